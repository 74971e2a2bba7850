"""Collect one week of merged PRs: GraphQL search plus REST patches with a token, REST alone
without; per-PR failures are recorded in Completeness, never silently dropped."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Collection, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from service.core.models import (
    CollectedPeriod,
    Completeness,
    FileStatus,
    MissingItem,
    Period,
    PullRequest,
)
from service.core.relations import older_references
from service.errors import AuthRefusedError, NotFoundError, RateLimitError, UpstreamError
from service.github import convert, graphql, references, rest

if TYPE_CHECKING:
    from service.core.profile import RepoProfile
    from service.github.http import GitHubHttp

Progress = Callable[[int, int], None]
T = TypeVar("T")
# errors that end the whole run: every further request would meet them too
FATAL = (RateLimitError, AuthRefusedError)
SOURCE = "github"
SHAPE_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError)
MESSAGE_CHARS = 200
SEARCH_REQUEST = "POST /graphql (SearchMerged)"
PR_REQUEST = "POST /graphql (PullRequest)"
# older PRs the week's bodies name, looked up per week (one `pulls/N` each, then cached)
MAX_OLDER = 10
OLDER_CONCURRENCY = 4
OLDER_MAX_AGE = timedelta(days=30)


# a stored snapshot stands for its PR until the PR changes on GitHub: a rebuild asks for the PRs
# updated since the oldest snapshot of the window was saved, less this margin (the time from a
# search page to the save, and the difference between GitHub's clock and ours)
UPDATE_MARGIN = timedelta(hours=1)


class StoredPulls(Protocol):
    """PRs kept from earlier runs (the store implements it): their files are not asked again,
    and a window's PRs that did not change since they were saved are not asked again at all."""

    def stored_prs(self, repo: str, numbers: Collection[int]) -> dict[int, PullRequest]: ...
    def stored_period(
        self, repo: str, start: datetime, end: datetime
    ) -> tuple[dict[int, PullRequest], datetime | None]: ...


def stored_files(known: PullRequest | None, merge_commit: str | None) -> PullRequest | None:
    """`known` when its files, patches included, are those of `merge_commit`: a merged PR's
    files never change, so the same merge commit means the same files (else None)."""
    if known is None or not known.patches_fetched or not merge_commit:
        return None
    return known if known.merge_commit == merge_commit else None


def _converted(request: str, number: int | str, convert_: Callable[[], T]) -> T:
    """`convert_()`, with a GitHub answer it can't read (a field missing or null) reported as
    a GitHub error naming the request, not as a TypeError of ours."""
    try:
        return convert_()
    except SHAPE_ERRORS as exc:
        detail = str(exc)[:MESSAGE_CHARS]
        raise UpstreamError(
            f"GitHub answered {request} with an unexpected shape for #{number} "
            f"({type(exc).__name__}: {detail})"
        ) from None


def _repo_not_found(repo: str) -> NotFoundError:
    return NotFoundError(f"repository {repo} not found (or the token can't see it)")


def _check_repo(http: GitHubHttp, repo: str) -> convert.RepoIdentity:
    """The repository exists for us: GitHub's id, its name now (a repository that was
    transferred or renamed answers under its new name) and whether it is private."""
    try:
        data = rest.repository(http, repo)
    except NotFoundError:
        raise _repo_not_found(repo) from None
    return convert.repo_identity(data, repo)


def _in_window(moment: datetime | None, window: Period) -> bool:
    return moment is not None and window.start <= moment < window.end


def _unique(items: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[int, dict[str, Any]] = {}
    for item in items:
        seen.setdefault(int(item["number"]), item)
    return list(seen.values())


def _run_each(
    items: list[T],
    work: Callable[[T], PullRequest],
    concurrency: int,
    progress: Progress | None,
    lead: tuple[int, Callable[[list[PullRequest]], None]] | None = None,
) -> list[PullRequest]:
    """`work` on every item with bounded concurrency, results in input order; with `lead`
    (n, then), `then` gets the first n results as soon as they are in, the rest still running."""
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        futures: list[Future[PullRequest]] = [pool.submit(work, item) for item in items]
        results: list[PullRequest] = []
        if lead is not None and lead[0] == 0:
            lead[1]([])
        for done, future in enumerate(futures, start=1):
            try:
                results.append(future.result())
            except BaseException:
                pool.shutdown(wait=True, cancel_futures=True)
                raise
            if progress is not None:
                progress(done, len(items))
            if lead is not None and done == lead[0]:
                lead[1](results[:done])
        return results


class _References:
    """The code search of the week's large removals, run in a thread of its own beside the
    file fetches once the PRs it may search for are final (their REST files in)."""

    def __init__(self, http: GitHubHttp, repo: str) -> None:
        self.http = http
        self.repo = repo
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="code-search")
        self.future: Future[tuple[bool, dict[str, list[str]]]] | None = None
        self.stopped = threading.Event()

    def start(self, prs: list[PullRequest]) -> None:
        if self.future is None:
            search = references.remaining_references
            limit = references.MAX_QUERIES
            self.future = self.pool.submit(search, self.http, self.repo, prs, limit, self.stopped)

    def stop(self) -> None:
        """No further query: the collection ended (a raise, or its answers are in)."""
        self.stopped.set()
        self.pool.shutdown(wait=True, cancel_futures=True)

    def result(self, prs: list[PullRequest]) -> dict[str, list[str]]:
        """The answers ({removed path: files still naming it}); started on `prs` if not yet."""
        self.start(prs)
        assert self.future is not None  # noqa: S101 - start() sets it
        try:
            return self.future.result()[1]
        finally:
            self.pool.shutdown(wait=False)


class _Run:
    """State of one collection: where it goes, and what could not be fetched."""

    def __init__(
        self, http: GitHubHttp, repo: str, stored: StoredPulls | None, profile: RepoProfile
    ) -> None:
        self.http = http
        self.repo = repo
        self.stored = stored
        self.profile = profile
        # search nodes whose file list stops at its first page because REST lists the files
        # anyway (their patches are wanted): the rest is asked of GraphQL only if REST fails
        self.unpaged: dict[int, dict[str, Any]] = {}
        self.older_future: Future[list[PullRequest]] | None = None
        self.older_pool: ThreadPoolExecutor | None = None
        self.stopped = threading.Event()
        # with a store the files live in the PR snapshots, so the ETag cache would keep every
        # patch a second time
        self.cache_files = stored is None
        self.known: dict[int, PullRequest] = {}
        self.missing: list[MissingItem] = []

    def load_known(self, numbers: Collection[int]) -> None:
        """The stored snapshots of `numbers` not known yet, read in one go before the per-PR
        requests."""
        unknown = [n for n in numbers if n not in self.known]
        if self.stored is not None and unknown:
            self.known.update(self.stored.stored_prs(self.repo, unknown))

    def stored_window(self, window: Period) -> tuple[dict[int, PullRequest], datetime | None]:
        """The stored PRs of `window` and the moment to ask GitHub for changes since (None
        when nothing of the window is stored)."""
        if self.stored is None:
            return {}, None
        prs, saved = self.stored.stored_period(self.repo, window.start, window.end)
        if not prs or saved is None:
            return {}, None
        return prs, saved - UPDATE_MARGIN

    def reuse(self, pr: PullRequest) -> PullRequest | None:
        """`pr` with the files stored for its merge commit, if there are any and they are not
        fewer than `pr` lists (a snapshot REST capped, now that GraphQL lists them all). A
        snapshot GitHub's lists capped stays partial on every build: its gap is noted again."""
        known = stored_files(self.known.get(pr.number), pr.merge_commit)
        if known is None or len(known.files) < len(pr.files):
            return None
        if self.http.has_token and len(known.files) < pr.changed_files:
            return None  # GraphQL lists every file: a snapshot REST capped is not whole
        self.note_stored_cap(pr, len(known.files))
        return pr.model_copy(update={"files": known.files, "patches_fetched": True})

    def note_stored_cap(self, pr: PullRequest, stored: int) -> None:
        """The gap of a stored snapshot of a PR with more files than REST lists: its files
        (REST stopped at 3,000 of `changed_files`) or its patches (all files, 3,000 patched)."""
        total = max(pr.changed_files, len(pr.files), stored)
        if total <= rest.FILES_LISTED_MAX:
            return
        if stored < total:
            self.missing.append(_capped(pr.number, "files", stored, total))
        else:
            self.missing.append(_capped(pr.number, "patches", rest.FILES_LISTED_MAX, total))

    def files(self, number: int) -> list[dict[str, Any]]:
        return rest.pull_files(self.http, self.repo, number, cache=self.cache_files)

    def miss(self, number: int, what: str, exc: UpstreamError) -> None:
        if isinstance(exc, FATAL):
            raise exc
        self.missing.append(MissingItem(number=number, what=what, reason=str(exc)))

    # --- with a token: GraphQL ---------------------------------------------------------

    def may_remove(self, pr: PullRequest) -> bool:
        """Whether `pr` may be a large removal the code search asks about: it removes or moves
        a file, or its list stops at GraphQL's first page."""
        gone = (FileStatus.REMOVED, FileStatus.RENAMED)
        return pr.number in self.unpaged or any(f.status in gone for f in pr.files)

    def wants_patches(self, paths: Iterable[str]) -> bool:
        return any(self.profile.needs_patch(path) for path in paths)

    def graphql_pr(self, node: dict[str, Any]) -> PullRequest:
        """The PR of a search node, its files paged to the end, unless its first page already
        shows a file whose patch is wanted: then REST's `pulls/N/files` lists them all."""
        number = node["number"]
        first = graphql.first_files(node)
        if graphql.has_more_files(node) and self.wants_patches(f.get("path", "") for f in first):
            self.unpaged[int(number)] = node
            return _converted(SEARCH_REQUEST, number, lambda: convert.pr_from_graphql(node, first))
        return _converted(
            SEARCH_REQUEST, number, lambda: convert.pr_from_graphql(node, self.paged(node))
        )

    def paged(self, node: dict[str, Any]) -> list[dict[str, Any]] | None:
        """Every file node of a search node (None, and the gap noted, when a page fails)."""
        try:
            return graphql.all_files(self.http, self.repo, node)
        except UpstreamError as exc:
            self.miss(int(node["number"]), "files", exc)
            return None

    def graphql_files(self, pr: PullRequest) -> PullRequest:
        """`pr` with GraphQL's whole file list, for a PR whose list stopped at the first page."""
        node = self.unpaged.get(pr.number)
        if node is None:
            return pr
        files = self.paged(node)
        if files is None:
            return pr
        return _converted(SEARCH_REQUEST, pr.number, lambda: convert.pr_from_graphql(node, files))

    def files_request(self, number: int) -> str:
        return f"GET /repos/{self.repo}/pulls/{number}/files"

    def patched(self, pr: PullRequest) -> PullRequest:
        try:
            files = self.files(pr.number)
            request = self.files_request(pr.number)
            patched = _converted(request, pr.number, lambda: convert.with_patches(pr, files))
        except UpstreamError as exc:
            self.miss(pr.number, "patches", exc)
            return self.graphql_files(pr)
        if len(files) >= rest.FILES_LISTED_MAX and pr.number in self.unpaged:
            pr = self.graphql_files(pr)
        if len(files) >= rest.FILES_LISTED_MAX and len(pr.files) > len(files):
            # GraphQL listed them all: keep the files REST's list stops short of, unpatched
            listed = {f.path for f in patched.files}
            unlisted = [f for f in pr.files if f.path not in listed]
            patched = patched.model_copy(update={"files": [*patched.files, *unlisted]})
            self.missing.append(_capped(pr.number, "patches", len(files), len(pr.files)))
        return patched

    def nodes(self, numbers: list[int]) -> dict[int, dict[str, Any]]:
        """The nodes of `numbers`, asked one by one; one GitHub does not give now is left out,
        its gap noted."""
        found: dict[int, dict[str, Any]] = {}
        for number in numbers:
            try:
                node = graphql.pull_request_node(self.http, self.repo, number)
            except UpstreamError as exc:
                self.miss(number, "pull", exc)
                continue
            if node is not None:
                found[number] = node
        return found

    # --- older PRs the week names ------------------------------------------------------

    def older(self, prs: list[PullRequest]) -> list[PullRequest]:
        """Older merged PRs the week's PRs name (at most MAX_OLDER): from the store when it
        keeps them, else `pulls/N` once (its answer kept OLDER_MAX_AGE in the store's cache).
        A number that is an issue, or that GitHub does not answer, is left out: a link the
        report cannot make is no gap in the week."""
        numbers = older_references(self.repo, prs, {p.number for p in prs}, MAX_OLDER)
        if not numbers:
            return []
        stored = self.stored.stored_prs(self.repo, numbers) if self.stored is not None else {}
        asked = [n for n in numbers if n not in stored]
        with ThreadPoolExecutor(max_workers=max(1, min(OLDER_CONCURRENCY, len(asked)))) as pool:
            fetched = dict(zip(asked, pool.map(self.fetch_older, asked), strict=True))
        found: list[PullRequest] = []
        for number in numbers:
            pr = stored.get(number) or fetched.get(number)
            if pr is not None and pr.merged_at is not None:
                found.append(pr.model_copy(update={"files": [], "patches_fetched": False}))
        return sorted(found, key=lambda p: (p.merged_at, p.number))

    def start_older(self, prs: list[PullRequest]) -> None:
        """Look the older PRs up in a thread of their own, beside the file fetches: they are
        named in titles and bodies, which the search already gave."""
        self.older_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="older")
        self.older_future = self.older_pool.submit(self.older, prs)
        self.older_pool.shutdown(wait=False)  # the thread ends with its one task

    def stop(self) -> None:
        """No further request of the older-PR lookup: the collection ended (a raise, or its
        answers are in). Waits for the one request under way, if any."""
        self.stopped.set()
        if self.older_pool is not None:
            self.older_pool.shutdown(wait=True, cancel_futures=True)

    def older_result(self, prs: list[PullRequest]) -> list[PullRequest]:
        """The older PRs looked up by `start_older`, or looked up now on `prs`."""
        if self.older_future is None:
            return self.older(prs)
        return self.older_future.result()

    def fetch_older(self, number: int) -> PullRequest | None:
        if self.stopped.is_set():
            return None
        try:
            pull = rest.pull(self.http, self.repo, number, max_age=OLDER_MAX_AGE)
        except FATAL:
            return None  # out of budget: the week is whole without its older links
        except NotFoundError:
            self.remember_absent(number)  # an issue's number: not asked again for a while
            return None
        except UpstreamError:
            return None
        if not pull.get("merged_at"):
            return None
        request = f"GET /repos/{self.repo}/pulls/{number}"
        try:
            return _converted(request, number, lambda: convert.pr_from_rest(pull, None))
        except UpstreamError:
            return None

    def remember_absent(self, number: int) -> None:
        """Keep "no such pull request" in the cache as an empty answer, so `fetch_older` does not
        ask again before OLDER_MAX_AGE (GitHub's 404 carries no ETag to ask with)."""
        cache = self.http.cache
        if cache is not None:
            url = self.http.url_for(f"/repos/{self.repo}/pulls/{number}")
            cache.cache_put(url, "", json.dumps({"data": {}, "next": None}))

    # --- without a token: REST ---------------------------------------------------------

    def rest_pr(self, item: dict[str, Any]) -> PullRequest:
        number = int(item["number"])
        try:
            pull = rest.pull(self.http, self.repo, number)
        except UpstreamError as exc:
            self.miss(number, "pull", exc)
            search = "GET /search/issues"
            return _converted(search, number, lambda: convert.pr_from_search_item(item))
        request = f"GET /repos/{self.repo}/pulls/{number}"
        reused = self.reuse(_converted(request, number, lambda: convert.pr_from_rest(pull, None)))
        if reused is not None:
            return reused
        try:
            files: list[dict[str, Any]] | None = self.files(number)
        except UpstreamError as exc:
            self.miss(number, "files", exc)
            files = None
        pr = _converted(request, number, lambda: convert.pr_from_rest(pull, files))
        self.note_listing_cap(pr, len(files) if files is not None else None)
        return pr

    def note_listing_cap(self, pr: PullRequest, listed: int | None) -> None:
        """A PR with more files than GitHub's REST list gives (3,000) is partial: say so."""
        if listed is not None and listed >= rest.FILES_LISTED_MAX and pr.changed_files > listed:
            self.missing.append(_capped(pr.number, "files", listed, pr.changed_files))


def _capped(number: int, what: str, listed: int, total: int) -> MissingItem:
    """A PR GitHub lists only part of (files or patches), worded by the catalogs."""
    params: dict[str, str | int] = {"listed": listed, "total": total, "max": rest.FILES_LISTED_MAX}
    reason = _cap_reason(listed, total)
    return MissingItem(number=number, what=what, reason=reason, key=f"{what}_capped", params=params)


def _cap_reason(listed: int, total: int) -> str:
    return (
        f"GitHub lists at most {rest.FILES_LISTED_MAX:,} files of a pull request: "
        f"{listed:,} of {total:,} were read"
    )


def _window_nodes(
    run: _Run, window: Period, concurrency: int, since: datetime | None = None
) -> list[dict[str, Any]]:
    nodes = graphql.search_nodes(
        run.http, run.repo, window.start, window.end, concurrency=concurrency, updated_since=since
    )
    return _unique(n for n in nodes if _in_window(convert.merged_at_of_node(n), window))


def _search(
    run: _Run, window: Period, concurrency: int
) -> tuple[list[dict[str, Any]], dict[int, PullRequest]]:
    """The search nodes of the window's PRs to read afresh, and the stored PRs that stand.

    When the store holds PRs of the window, GitHub is asked how many the window has and which
    changed since they were saved: if the stored and the changed ones make up the window,
    only the changed ones are read (a finished week rebuilt: a few requests, not a page per
    100 PRs); else, or with nothing stored, every PR of the window is. A window of less than
    a page is read whole: one request, as few as asking what changed."""
    stored, since = run.stored_window(window)
    if since is not None and len(stored) >= graphql.PAGE_SIZE:
        total = graphql.merged_count(run.http, run.repo, window.start, window.end)
        changed = _window_nodes(run, window, concurrency, since)
        fresh = {int(n["number"]) for n in changed}
        if len(stored.keys() | fresh) == total:
            # a snapshot that is not whole (a file page missed, or read without a token) is
            # read again by number, unless there are so many that the window's pages cost less
            partial = sorted(n for n, pr in stored.items() if n not in fresh and not whole(pr))
            if len(partial) < -(-total // graphql.PAGE_SIZE):
                again = run.nodes(partial)
                standing = {n: pr for n, pr in stored.items() if n not in again}
                return changed + list(again.values()), standing
    return _window_nodes(run, window, concurrency), {}


def whole(pr: PullRequest) -> bool:
    """Whether a stored snapshot may stand for its PR in a run with a token: every file GitHub
    counts is in it, and it holds what only GraphQL gives (a REST snapshot's reviews are None;
    its checks and decision are unknown with them)."""
    return len(pr.files) >= pr.changed_files and pr.reviews is not None


def _collect_graphql(
    run: _Run,
    window: Period,
    concurrency: int,
    progress: Progress | None,
    search: _References | None = None,
) -> list[PullRequest]:
    nodes, standing = _search(run, window, concurrency)
    prs = [run.graphql_pr(node) for node in nodes]
    fresh = {pr.number for pr in prs}
    prs += [pr for number, pr in standing.items() if number not in fresh]
    run.start_older(prs)  # titles and bodies are all it reads
    run.known.update(standing)
    wanted = [pr for pr in prs if run.wants_patches(f.path for f in pr.files)]
    run.load_known([pr.number for pr in wanted])
    patched = {pr.number: r for pr in wanted if (r := run.reuse(pr)) is not None}
    ask = [pr for pr in wanted if pr.number not in patched]
    # the PRs the code search may ask about are fetched first; the search then runs beside
    # the other fetches instead of after the last of them
    first = [pr for pr in ask if run.may_remove(pr)]
    ask = first + [pr for pr in ask if not run.may_remove(pr)]

    def searching(done: list[PullRequest]) -> None:
        if search is not None:
            final = {**patched, **{pr.number: pr for pr in done}}
            search.start([final.get(pr.number, pr) for pr in prs])

    lead = (len(first), searching)
    patched.update(
        (pr.number, pr) for pr in _run_each(ask, run.patched, concurrency, progress, lead)
    )
    return [patched.get(pr.number, pr) for pr in prs]


def _collect_rest(
    run: _Run, window: Period, concurrency: int, progress: Progress | None
) -> list[PullRequest]:
    items = rest.search_items(run.http, run.repo, window.start, window.end)
    items = _unique(i for i in items if _in_window(convert.merged_at_of_item(i), window))
    run.load_known([int(item["number"]) for item in items])
    return _run_each(items, run.rest_pr, concurrency, progress)


def collect_week(
    http: GitHubHttp,
    repo: str,
    window: Period,
    profile: RepoProfile,
    *,
    patch_concurrency: int = 4,
    check_references: bool = True,
    progress: Progress | None = None,
    stored: StoredPulls | None = None,
) -> CollectedPeriod:
    """Every PR merged in `window` (start inclusive, end exclusive), oldest merge first.

    A failed search page raises (the PR set would be unknown); a PR whose files, patches or
    details fail after the retries is kept as far as known and listed in `completeness`.
    Without a token only REST is used: reviews, threads, decision and checks stay None.
    A PR that `stored` holds with its patches under the same merge commit keeps those files
    without asking GitHub for them again (everything else about it is asked afresh).
    `progress(done, total)` follows the per-PR fetches (patches, or pulls/N without a token).
    """
    identity = _check_repo(http, repo)
    repo = identity.name  # a moved repository is searched and read under its new name
    run = _Run(http, repo, stored, profile)
    # `references_checked`: the code search ran (it needs a token); the removed paths it
    # answered for are the keys of `refs`, so a partial answer stays visible per path
    checked = check_references and http.has_token
    search = _References(http, repo) if checked else None
    try:
        if http.has_token:
            prs = _collect_graphql(run, window, patch_concurrency, progress, search)
        else:
            prs = _collect_rest(run, window, patch_concurrency, progress)
        prs.sort(key=lambda p: (p.merged_at, p.number))
        refs = search.result(prs) if search is not None else {}
        older = run.older_result(prs)
    finally:  # a collection that raised leaves no thread asking GitHub
        run.stop()
        if search is not None:
            search.stop()
    missing = sorted(run.missing, key=lambda m: (m.number or 0, m.what))
    return CollectedPeriod(
        repo=repo,
        window=window,
        prs=prs,
        completeness=Completeness(complete=not missing, missing=missing),
        source=SOURCE,
        references_checked=checked,
        remaining_references=refs,
        private=identity.private,
        github_id=identity.github_id,
        older=older,
    )


def _not_merged(repo: str, number: int) -> NotFoundError:
    return NotFoundError(f"pull request #{number} of {repo} not found or not merged")


def fetch_pr(http: GitHubHttp, repo: str, number: int) -> PullRequest:
    """One merged PR, live, with patches; NotFoundError when the repo or PR isn't there."""
    repo = _check_repo(http, repo).name
    try:
        if http.has_token:
            node = graphql.pull_request_node(http, repo, number)
            if node is None or not node.get("mergedAt"):
                raise _not_merged(repo, number)
            files = graphql.all_files(http, repo, node)
            pr = _converted(PR_REQUEST, number, lambda: convert.pr_from_graphql(node, files))
            patches = rest.pull_files(http, repo, number)
            request = f"GET /repos/{repo}/pulls/{number}/files"
            return _converted(request, number, lambda: convert.with_patches(pr, patches))
        pull = rest.pull(http, repo, number)
        if not pull.get("merged_at"):
            raise _not_merged(repo, number)
        listed = rest.pull_files(http, repo, number)
        request = f"GET /repos/{repo}/pulls/{number}"
        return _converted(request, number, lambda: convert.pr_from_rest(pull, listed))
    except NotFoundError:
        raise _not_merged(repo, number) from None
