"""FakeGitHub on 127.0.0.1: GraphQL search with cursors and the 1,000-result cap, REST
search/pulls/files with Link pagination, ETag → 304, x-ratelimit-* headers, secondary 403 with
Retry-After, primary exhaustion, 5xx injection, bearer-token checks. It is fed real recorded
verl weeks (tests/data/weeks) and shapes its answers on tests/data/github/."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from graphql import GraphQLError, GraphQLSchema, build_schema, parse, validate

from tests.fakes._server import FakeAPI, Recorded, Reply, serve

DATA = Path(__file__).parents[1] / "data" / "github"
SEARCH_CAP = 1000  # search answers at most 1,000 results (platform-facts §1.1)
FILES_CAP = 3000  # pulls/N/files lists at most 3,000 files (§1.2)
MAX_PAGE = 100
QUERY_RE = re.compile(r"^repo:(\S+) is:pr is:merged merged:(\S+)\.\.(\S+)(?: updated:>=(\S+))?$")
CODE_QUERY_RE = re.compile(r'^"(?P<term>[^"]+)" repo:(?P<repo>\S+)$')
# legacy code search (REST search/code) ignores these symbols: "You can't use the following
# wildcard characters as part of your search query: . , : ; / \ ` ' " = * ! ? # $ & + ^ | ~ < >
# ( ) { } [ ] @. The search will simply ignore these symbols." (github/docs, Searching code).
# A quoted query is a phrase of the words left: "verl.experimental.vla" finds
# verl/experimental/vla too, and "recipe/" is the bare word recipe.
CODE_SEARCH_IGNORED = ".,:;/\\`'\"=*!?#$&+^|~<>(){}[]@"
CODE_WORD_RE = re.compile("[^\\s" + re.escape(CODE_SEARCH_IGNORED) + "]+")


def code_words(text: str) -> list[str]:
    """The words code search indexes or queries (case-insensitive)."""
    return [word.lower() for word in CODE_WORD_RE.findall(text)]


def has_phrase(words: list[str], phrase: list[str]) -> bool:
    size = len(phrase)
    return any(words[i : i + size] == phrase for i in range(len(words) - size + 1))


OPERATION_RE = re.compile(r"query (\w+)")
# the part of GitHub's schema our queries touch: a query that would not validate at GitHub
# gets GitHub's answer, HTTP 200 with `errors`
SCHEMA: GraphQLSchema = build_schema((DATA / "schema_subset.graphql").read_text(encoding="utf-8"))
CHANGE_TYPES = {
    "added": "ADDED",
    "removed": "DELETED",
    "modified": "MODIFIED",
    "renamed": "RENAMED",
    "copied": "COPIED",
    "changed": "CHANGED",
    "unchanged": "CHANGED",
}


TOKENLESS_LIMIT = 60


def _template(name: str) -> dict[str, Any]:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def _cursor(offset: int) -> str:
    return base64.b64encode(f"cursor:{offset}".encode()).decode()


def _offset(cursor: str | None) -> int:
    """The index after `cursor` (0 when there is none)."""
    if not cursor:
        return 0
    return int(base64.b64decode(cursor).decode().split(":")[1]) + 1


def _invalid(query: str) -> list[str]:
    """What GitHub would say is wrong with a query document (nothing when it validates)."""
    try:
        document = parse(query)
    except GraphQLError as exc:
        return [exc.message]
    return [error.message for error in validate(SCHEMA, document)]


def _time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace(" ", "+"))


@dataclass
class FakePR:
    """One PR as the fake keeps it: the recorded PR plus what git history does not record."""

    raw: dict[str, Any]
    labels: list[str] = field(default_factory=list)
    # (state, login) or (state, login, body, submittedAt): what GitHub's review node carries
    reviews: list[tuple[str, ...]] = field(default_factory=list)
    threads: list[dict[str, Any]] = field(
        default_factory=list
    )  # resolved, path, line, body, author
    rollup: str | None = "SUCCESS"
    contexts: list[dict[str, Any]] = field(default_factory=list)  # GraphQL context nodes
    review_decision: str | None = "APPROVED"
    comments: int = 0
    # the conversation's comments: body, author, created_at, and bot (True for a Bot actor)
    conversation: list[dict[str, Any]] = field(default_factory=list)
    association: str = "CONTRIBUTOR"

    @property
    def number(self) -> int:
        return int(self.raw["number"])

    @property
    def merged_at(self) -> datetime:
        return _time(self.raw["merged_at"])

    @property
    def updated_at(self) -> datetime:
        """When anything about the PR last changed: its merge, unless `touch`ed since."""
        return _time(self.raw.get("updated_at") or self.raw["merged_at"])

    def touch(self, when: datetime) -> None:
        """Something changed on the PR at `when` (a comment, a review, a label)."""
        self.raw["updated_at"] = when.isoformat()

    @property
    def files(self) -> list[dict[str, Any]]:
        return list(self.raw.get("files") or [])


class FakeGitHub:
    """The far side of the GitHub wire, with named scenario helpers."""

    def __init__(
        self,
        repo: str = "volcengine/verl",
        token: str | None = None,
        web_url: str = "https://github.com",
    ) -> None:
        self.repo = repo
        self.token = token
        self.web_url = web_url  # the host of the web links it answers (an Enterprise one, say)
        self.private = False  # what GET /repos/o/r says of the repository
        self.repo_id = 775_123_456  # GitHub's id of the repository: the same after a move
        self.old_names: set[str] = set()  # names it had before move_to (GitHub redirects them)
        self.api = FakeAPI()
        self.prs: dict[int, FakePR] = {}
        self.tree: dict[str, str] = {}  # default-branch files (path → text) for code search
        self.broken: dict[str, Reply] = {}  # path → the answer it always gets
        self.answers: list[tuple[str, str, int]] = []  # (method, path, status) sent back
        self.rate_remaining = 5000
        # the other repositories this fake serves (add_repo), by name: one host, one budget
        self.siblings: dict[str, FakeGitHub] = {}
        # who else may call: a GitHub App's installation tokens (tests/fakes/github_app.py)
        self.accept: Callable[[str, Recorded], bool] | None = None
        self.reset_epoch = int(time.time()) + 3600
        self._templates = {
            name: _template(f"{name}.json")
            for name in ("rest_pull", "rest_search_item", "rest_file")
        }
        self.api.route("POST", "/graphql", self._wrap(self._graphql, graphql=True))
        self.api.route("GET", f"/repos/{repo}", self._wrap(self._repository))
        self.api.route("GET", "/search/issues", self._wrap(self._search_issues))
        self.api.route("GET", "/search/code", self._wrap(self._search_code))
        self.api.route_prefix("GET", f"/repos/{repo}/pulls/", self._wrap(self._pulls))
        self.api.route("GET", f"/repos/{repo}/pulls", self._wrap(self._pull_list))
        self.api.route("GET", "/rate_limit", self._rate_limit)

    # --- running and scenarios ------------------------------------------------------------

    @contextmanager
    def running(self) -> Iterator[FakeGitHub]:
        with serve(self.api):
            yield self

    @property
    def url(self) -> str:
        return self.api.url

    @property
    def graphql_url(self) -> str:
        return f"{self.api.url}/graphql"

    def serve_week(self, data: dict[str, Any]) -> list[FakePR]:
        """Serve every PR of a recorded week file's content."""
        return [self.add_pr(raw) for raw in data["pulls"]]

    def add_pr(self, raw: dict[str, Any], **extras: Any) -> FakePR:
        pr = FakePR(raw=copy.deepcopy(raw), **extras)
        self.prs[pr.number] = pr
        return pr

    def add_repo(self, repo: str) -> FakeGitHub:
        """Serve another repository from this fake (a family of them): its own PRs, id and
        tree, on the same host, with the same tokens, rate budget and request log."""
        sibling = FakeGitHub.__new__(FakeGitHub)
        sibling.__dict__.update(self.__dict__)
        sibling.repo, sibling.prs, sibling.tree, sibling.siblings = repo, {}, {}, {}
        sibling.repo_id = self.repo_id + 1 + len(self.siblings)
        sibling.old_names = set()
        self.siblings[repo] = sibling
        self.api.route("GET", f"/repos/{repo}", self._wrap(sibling._repository))
        self.api.route_prefix("GET", f"/repos/{repo}/pulls/", self._wrap(sibling._pulls))
        self.api.route("GET", f"/repos/{repo}/pulls", self._wrap(sibling._pull_list))
        return sibling

    def _serving(self, repo: str) -> FakeGitHub | None:
        """The fake that serves `repo` (this one, or a sibling add_repo made)."""
        if repo == self.repo or repo in self.old_names:
            return self
        return self.siblings.get(repo)

    def move_to(self, new: str) -> None:
        """The repository is transferred or renamed to `new`, as GitHub does it: REST under the
        old name answers 301 to `/repositories/{id}/…`, GraphQL `repository(owner, name)` with
        the old name resolves to the moved one, and the search knows the new name only."""
        old, self.repo = self.repo, new
        self.old_names.add(old)
        api = self.api
        api.prefix_routes = [r for r in api.prefix_routes if not r[1].startswith(f"/repos/{old}/")]
        api.route("GET", f"/repos/{old}", self._moved)
        api.route_prefix("GET", f"/repos/{old}/", self._moved)
        by_id = f"/repositories/{self.repo_id}"
        api.route("GET", f"/repos/{new}", self._wrap(self._repository))
        api.route("GET", by_id, self._wrap(self._repository))
        api.route_prefix("GET", f"/repos/{new}/pulls/", self._wrap(self._pulls))
        api.route_prefix("GET", f"{by_id}/pulls/", self._wrap(self._pulls))

    def _moved(self, rec: Recorded) -> Reply:
        old = next(n for n in self.old_names if rec.path.startswith(f"/repos/{n}"))
        tail = rec.path.removeprefix(f"/repos/{old}")
        query = f"?{urlencode(rec.query, doseq=True)}" if rec.query else ""
        location = f"{self.url}/repositories/{self.repo_id}{tail}{query}"
        self.answers.append((rec.method, rec.path, 301))
        body = {
            "message": "Moved Permanently",
            "url": location,
            "documentation_url": "https://docs.github.com/rest/guides/best-practices-for-using-the-rest-api#follow-redirects",
        }
        return 301, {"location": location}, body

    def fail_next(self, status: int = 502, times: int = 1, **kwargs: Any) -> None:
        self.api.fail_next(status, times=times, **kwargs)

    def secondary_limit(self, retry_after: int = 1) -> None:
        """The next request hits a secondary rate limit (403 + Retry-After, primary not spent)."""
        message = {"message": "You have exceeded a secondary rate limit. Please wait."}
        headers = {**self._limits("core"), "retry-after": str(retry_after)}
        self.api.fail_next(403, headers, message)

    def exhaust_primary(self, reset_in: int = 3600, times: int = 1) -> int:
        """The next requests meet an exhausted primary limit; returns the reset epoch."""
        reset = int(time.time()) + reset_in
        headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)}
        message = {"message": "API rate limit exceeded for user ID 1."}
        self.api.fail_next(403, headers, message, times=times)
        return reset

    def graphql_rate_limited(self, reset_in: int = 3600) -> int:
        """The next request is a GraphQL primary limit: HTTP 200 with a RATE_LIMITED error."""
        reset = int(time.time()) + reset_in
        headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)}
        errors = {"errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded"}]}
        self.api.fail_next(200, headers, errors)
        return reset

    def break_path(
        self, path: str, status: int = 502, headers: dict[str, str] | None = None
    ) -> None:
        """Every request for `path` fails with `status` (and `headers`) until `heal`."""
        self.broken[path] = (status, headers or {}, {"message": "Server Error"})

    def heal(self) -> None:
        self.broken.clear()

    def calls(self, method: str | None = None, path: str | None = None) -> list[Recorded]:
        return self.api.calls(method, path)

    def rest_bodies_sent(self) -> int:
        """REST answers that carried a body (200s), as opposed to 304s."""
        return sum(1 for m, p, s in self.answers if m == "GET" and s == 200)

    def reset_log(self) -> None:
        self.api.requests.clear()
        self.answers.clear()

    # --- plumbing ---------------------------------------------------------------------

    def _auth_refusal(self, rec: Recorded, *, required: bool) -> Reply | None:
        header = rec.header("authorization")
        if header is None:
            if required:
                return 401, {}, {"message": "This endpoint requires you to be authenticated."}
            return None
        scheme, _, value = header.partition(" ")
        if scheme.lower() not in ("bearer", "token"):
            return 401, {}, {"message": "Bad credentials"}
        if self.accept is not None and not (value == self.token or self.accept(value, rec)):
            return 401, {}, {"message": "Bad credentials"}
        if self.accept is None and self.token and value != self.token:
            return 401, {}, {"message": "Bad credentials"}
        return None

    def _limits(self, resource: str) -> dict[str, str]:
        return {
            "x-ratelimit-limit": "5000",
            "x-ratelimit-remaining": str(self.rate_remaining),
            "x-ratelimit-reset": str(self.reset_epoch),
            "x-ratelimit-resource": resource,
        }

    def _wrap(self, handler: Any, *, graphql: bool = False) -> Any:
        def route(rec: Recorded) -> Reply:
            reply = self._auth_refusal(rec, required=graphql or rec.path == "/search/code")
            if reply is None:
                reply = self.broken.get(rec.path) or handler(rec)
            status, headers, payload = reply
            resource = "graphql" if graphql else "search" if "/search/" in rec.path else "core"
            if status == 200 and not graphql:
                etag = '"' + hashlib.sha1(json.dumps(payload).encode()).hexdigest() + '"'  # noqa: S324
                headers = {"etag": etag, **headers}
                if rec.header("if-none-match") == etag:
                    status, payload = 304, b""
            if status != 304:
                self.rate_remaining -= 1
            self.answers.append((rec.method, rec.path, status))
            return status, {**self._limits(resource), **headers}, payload

        return route

    def _link(self, path: str, params: dict[str, Any], page: int, last: int) -> dict[str, str]:
        if page >= last:
            return {}

        def url(n: int) -> str:
            return f"{self.url}{path}?{urlencode({**params, 'page': n})}"

        return {"link": f'<{url(page + 1)}>; rel="next", <{url(last)}>; rel="last"'}

    def _merged_between(self, q: str) -> list[FakePR] | None:
        match = QUERY_RE.match(q)
        if match is None:
            return None
        repo, low, high = match.group(1), _time(match.group(2)), _time(match.group(3))
        if repo != self.repo:
            return []
        found = [p for p in self.prs.values() if low <= p.merged_at <= high]
        if match.group(4):  # `updated:>=T`: what changed since T (a merge, a review, a comment)
            since = _time(match.group(4))
            found = [p for p in found if p.updated_at >= since]
        return sorted(found, key=lambda p: -p.number)

    # --- REST -------------------------------------------------------------------------

    def _rate_limit(self, rec: Recorded) -> Reply:
        """GET /rate_limit: costs nothing (platform-facts §1.4); 60 an hour without a token."""
        refused = self._auth_refusal(rec, required=False)
        if refused is not None:
            return refused
        limit = 5000 if rec.header("authorization") else TOKENLESS_LIMIT
        remaining = self.rate_remaining if rec.header("authorization") else TOKENLESS_LIMIT
        core = {"limit": limit, "remaining": remaining, "reset": self.reset_epoch, "used": 0}
        resources = {"core": core, "graphql": core, "search": {**core, "limit": 30}}
        return 200, {}, {"resources": resources, "rate": core}

    def _repository(self, rec: Recorded) -> Reply:
        owner, name = self.repo.split("/")
        body: dict[str, Any] = {"full_name": self.repo, "name": name, "owner": {"login": owner}}
        body["id"] = self.repo_id
        body["html_url"] = f"{self.web_url}/{self.repo}"
        body["visibility"] = "private" if self.private else "public"
        return 200, {}, {**body, "private": self.private, "default_branch": "main"}

    def _search_issues(self, rec: Recorded) -> Reply:
        q = rec.query.get("q", [""])[0]
        other = self._sibling_for_query(q)
        if other is not None:
            return other._search_issues(rec)
        per_page = min(int(rec.query.get("per_page", ["30"])[0]), MAX_PAGE)
        page = int(rec.query.get("page", ["1"])[0])
        found = self._merged_between(q)
        if found is None:
            return 422, {}, {"message": "Validation Failed"}
        if (page - 1) * per_page >= SEARCH_CAP:
            return 422, {}, {"message": "Only the first 1000 search results are available"}
        reachable = found[:SEARCH_CAP]
        items = [self._search_item(p) for p in reachable[(page - 1) * per_page : page * per_page]]
        last = max(1, -(-len(reachable) // per_page))
        params = {"q": q, "per_page": per_page}
        body = {"total_count": len(found), "incomplete_results": False, "items": items}
        return 200, self._link("/search/issues", params, page, last), body

    def _search_code(self, rec: Recorded) -> Reply:
        match = CODE_QUERY_RE.match(rec.query.get("q", [""])[0])
        other = self.siblings.get(match.group("repo")) if match else None
        if other is not None:
            return other._search_code(rec)
        if match is None or match.group("repo") != self.repo:
            return 422, {}, {"message": "Validation Failed"}
        phrase = code_words(match.group("term"))
        if not phrase:
            return 422, {}, {"message": "Validation Failed"}
        paths = sorted(p for p, text in self.tree.items() if has_phrase(code_words(text), phrase))
        items = [
            {"name": p.rsplit("/", 1)[-1], "path": p, "repository": {"full_name": self.repo}}
            for p in paths
        ]
        return 200, {}, {"total_count": len(items), "incomplete_results": False, "items": items}

    def _pull_list(self, rec: Recorded) -> Reply:
        """GET /repos/o/r/pulls?state=closed: the newest first, one page (what doctor asks)."""
        if rec.query.get("state", ["open"])[0] not in ("closed", "all"):
            return 200, {}, []
        per_page = min(int(rec.query.get("per_page", ["30"])[0]), MAX_PAGE)
        newest = sorted(self.prs.values(), key=lambda p: -p.number)[:per_page]
        return 200, {}, [self._pull(pr) for pr in newest]

    def _pulls(self, rec: Recorded) -> Reply:
        rest = rec.path.removeprefix(f"/repos/{self.repo}/pulls/")
        rest = rest.removeprefix(f"/repositories/{self.repo_id}/pulls/")
        number, _, tail = rest.partition("/")
        pr = self.prs.get(int(number)) if number.isdigit() else None
        if pr is None or tail not in ("", "files"):
            return 404, {}, {"message": "Not Found"}
        if tail == "":
            return 200, {}, self._pull(pr)
        per_page = min(int(rec.query.get("per_page", ["30"])[0]), MAX_PAGE)
        page = int(rec.query.get("page", ["1"])[0])
        files = pr.files[:FILES_CAP]
        chunk = files[(page - 1) * per_page : page * per_page]
        last = max(1, -(-len(files) // per_page))
        link = self._link(rec.path, {"per_page": per_page}, page, last)
        return 200, link, [self._file(f) for f in chunk]

    def _pull(self, pr: FakePR) -> dict[str, Any]:
        raw = pr.raw
        body = copy.deepcopy(self._templates["rest_pull"])
        body.update(
            number=pr.number,
            title=raw["title"],
            body=raw.get("body"),
            html_url=f"{self.web_url}/{self.repo}/pull/{pr.number}",
            url=f"{self.url}/repos/{self.repo}/pulls/{pr.number}",
            user={"login": (raw.get("author") or {}).get("login"), "type": "User"},
            labels=[{"name": name} for name in pr.labels],
            created_at=raw["created_at"],
            updated_at=raw.get("updated_at") or raw["merged_at"],
            closed_at=raw["merged_at"],
            merged_at=raw["merged_at"],
            merge_commit_sha=raw.get("merge_commit_sha"),
            author_association=pr.association,
            comments=pr.comments,
            review_comments=sum(1 for _ in pr.threads),
            additions=raw["additions"],
            deletions=raw["deletions"],
            changed_files=raw["changed_files"],
        )
        return body

    def _search_item(self, pr: FakePR) -> dict[str, Any]:
        raw = pr.raw
        item = copy.deepcopy(self._templates["rest_search_item"])
        item.update(
            number=pr.number,
            title=raw["title"],
            body=raw.get("body"),
            html_url=f"{self.web_url}/{self.repo}/pull/{pr.number}",
            user={"login": (raw.get("author") or {}).get("login"), "type": "User"},
            labels=[{"name": name} for name in pr.labels],
            comments=pr.comments,
            created_at=raw["created_at"],
            closed_at=raw["merged_at"],
            author_association=pr.association,
        )
        item["pull_request"] = {**item["pull_request"], "merged_at": raw["merged_at"]}
        return item

    def _file(self, raw: dict[str, Any]) -> dict[str, Any]:
        entry = copy.deepcopy(self._templates["rest_file"])
        entry.update({k: raw[k] for k in ("filename", "status", "additions", "deletions")})
        entry["changes"] = raw.get("changes", raw["additions"] + raw["deletions"])
        entry.pop("patch", None)
        if raw.get("patch") is not None:
            entry["patch"] = raw["patch"]
        if raw.get("previous_filename"):
            entry["previous_filename"] = raw["previous_filename"]
        return entry

    # --- GraphQL ----------------------------------------------------------------------

    def _graphql(self, rec: Recorded) -> Reply:
        body = rec.json() or {}
        query, variables = body.get("query", ""), body.get("variables") or {}
        problems = _invalid(query)
        if problems:
            return 200, {}, {"errors": [{"message": m} for m in problems]}
        match = OPERATION_RE.search(query)
        operation = match.group(1) if match else ""
        handler = {
            "SearchMerged": self._gql_search,
            "MoreFiles": self._gql_more_files,
            "PullRequest": self._gql_pull_request,
        }.get(operation)
        if handler is None:
            return 200, {}, {"errors": [{"message": f"the fake does not serve {operation!r}"}]}
        data, errors = handler(variables)
        reset = datetime.fromtimestamp(self.reset_epoch, tz=UTC).isoformat()
        cost = self._cost(operation, variables)
        data["rateLimit"] = {"cost": cost, "remaining": self.rate_remaining, "resetAt": reset}
        return 200, {}, {"data": data, **({"errors": errors} if errors else {})}

    def _cost(self, operation: str, variables: dict[str, Any]) -> int:
        if operation != "SearchMerged":
            return 1
        # docs' estimate: 1 + first x (files, labels, reviews, threads, commits, contexts)
        # + first x 50 thread comments, / 100
        first = int(variables.get("first", 1))
        return max(1, round((1 + first * 6 + first * 50) / 100))

    def _sibling_for_query(self, q: str) -> FakeGitHub | None:
        match = QUERY_RE.match(q)
        return self.siblings.get(match.group(1)) if match else None

    def _gql_search(self, variables: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
        other = self._sibling_for_query(str(variables.get("q", "")))
        if other is not None:
            return other._gql_search(variables)
        found = self._merged_between(str(variables.get("q", "")))
        first = int(variables.get("first", 0))
        if found is None or not 1 <= first <= MAX_PAGE:
            return {"search": None}, [{"type": "INVALID", "message": "bad search arguments"}]
        start = _offset(variables.get("cursor"))
        reachable = found[:SEARCH_CAP]
        chunk = reachable[start : start + first]
        info = {
            "hasNextPage": start + len(chunk) < len(reachable),
            "endCursor": _cursor(start + len(chunk) - 1) if chunk else None,
        }
        nodes = [self._node(p) for p in chunk]
        return {"search": {"issueCount": len(found), "pageInfo": info, "nodes": nodes}}, []

    def _pr_for(self, variables: dict[str, Any]) -> tuple[FakePR | None, list[Any]]:
        repo = f"{variables.get('owner')}/{variables.get('name')}"
        if repo != self.repo and repo not in self.old_names:
            message = f"Could not resolve to a Repository with the name '{repo}'."
            return None, [{"type": "NOT_FOUND", "path": ["repository"], "message": message}]
        pr = self.prs.get(int(variables.get("number", 0)))
        if pr is None:
            message = (
                f"Could not resolve to a PullRequest with the number of {variables.get('number')}."
            )
            return None, [
                {"type": "NOT_FOUND", "path": ["repository", "pullRequest"], "message": message}
            ]
        return pr, []

    def _gql_more_files(self, variables: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
        other = self.siblings.get(f"{variables.get('owner')}/{variables.get('name')}")
        if other is not None:
            return other._gql_more_files(variables)
        pr, errors = self._pr_for(variables)
        if pr is None:
            return {"repository": None}, errors
        files = self._files_page(pr, _offset(variables.get("cursor")))
        return {"repository": {"pullRequest": {"files": files}}}, []

    def _gql_pull_request(self, variables: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
        other = self.siblings.get(f"{variables.get('owner')}/{variables.get('name')}")
        if other is not None:
            return other._gql_pull_request(variables)
        pr, errors = self._pr_for(variables)
        if pr is None:
            return {"repository": None}, errors
        return {"repository": {"pullRequest": self._node(pr)}}, []

    def _files_page(self, pr: FakePR, start: int) -> dict[str, Any]:
        files = pr.files
        chunk = files[start : start + MAX_PAGE]
        nodes = [
            {
                "path": f["filename"],
                "additions": f["additions"],
                "deletions": f["deletions"],
                "changeType": CHANGE_TYPES[f["status"]],
            }
            for f in chunk
        ]
        info = {
            "hasNextPage": start + len(chunk) < len(files),
            "endCursor": _cursor(start + len(chunk) - 1) if chunk else None,
        }
        return {"totalCount": len(files), "pageInfo": info, "nodes": nodes}

    def _node(self, pr: FakePR) -> dict[str, Any]:
        raw = pr.raw
        author = (raw.get("author") or {}).get("login")
        name = (raw.get("author") or {}).get("name")
        return {
            "number": pr.number,
            "title": raw["title"],
            "body": raw.get("body") or "",
            "url": f"{self.web_url}/{self.repo}/pull/{pr.number}",
            "createdAt": raw["created_at"],
            "mergedAt": raw["merged_at"],
            "additions": raw["additions"],
            "deletions": raw["deletions"],
            "changedFiles": raw["changed_files"],
            "authorAssociation": pr.association,
            "author": {"login": author, "name": name} if author else None,
            "mergeCommit": {"oid": raw.get("merge_commit_sha")},
            "reviewDecision": pr.review_decision,
            "labels": {"nodes": [{"name": name} for name in pr.labels]},
            "files": self._files_page(pr, 0),
            "reviews": {
                "totalCount": len(pr.reviews),
                "nodes": [self._review(review, pr) for review in pr.reviews[-50:]],
            },
            "comments": self._conversation(pr),
            "reviewThreads": self._threads(pr),
            "commits": {"nodes": [{"commit": {"statusCheckRollup": self._rollup(pr)}}]},
        }

    def _review(self, review: tuple[str, ...], pr: FakePR) -> dict[str, Any]:
        state, login, *rest = review
        body = rest[0] if rest else ""
        submitted = rest[1] if len(rest) > 1 else pr.raw["merged_at"]
        return {"state": state, "body": body, "submittedAt": submitted, "author": {"login": login}}

    def _conversation(self, pr: FakePR) -> dict[str, Any]:
        """The conversation's last 30 comments, as `comments(last: 30)` asks."""
        nodes = [
            {
                "body": c.get("body", ""),
                "url": f"{self.web_url}/{self.repo}/pull/{pr.number}#issuecomment-{i}",
                "createdAt": c.get("created_at", pr.raw["merged_at"]),
                "author": {
                    "__typename": "Bot" if c.get("bot") else "User",
                    "login": c.get("author", "someone"),
                },
            }
            for i, c in enumerate(pr.conversation)
        ]
        return {"totalCount": max(pr.comments, len(nodes)), "nodes": nodes[-30:]}

    def _threads(self, pr: FakePR) -> dict[str, Any]:
        nodes = [
            {
                "isResolved": t.get("resolved", False),
                "path": t.get("path"),
                "line": t.get("line"),
                "comments": {
                    "totalCount": 1,
                    "nodes": [
                        {
                            "body": t.get("body", ""),
                            "url": f"{self.web_url}/{self.repo}/pull/{pr.number}#r{i}",
                            "createdAt": t.get("created_at", pr.raw["merged_at"]),
                            "author": {
                                "__typename": "User",
                                "login": t.get("author", "reviewer"),
                            },
                        }
                    ],
                },
            }
            for i, t in enumerate(pr.threads[:50])
        ]
        return {"totalCount": len(pr.threads), "nodes": nodes}

    def _rollup(self, pr: FakePR) -> dict[str, Any] | None:
        if pr.rollup is None:
            return None
        return {"state": pr.rollup, "contexts": {"nodes": pr.contexts[:50]}}
