"""GitHub JSON (GraphQL nodes and REST objects) → core models. The only code that knows
GitHub's field names; everything else in the service sees PullRequest and FileChange."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.core.models import (
    Check,
    CheckState,
    Comment,
    FileChange,
    FileStatus,
    PullRequest,
    Review,
    ReviewState,
    ReviewThread,
)

# GraphQL PatchStatus → our (REST-named) status
PATCH_STATUS = {
    "ADDED": FileStatus.ADDED,
    "DELETED": FileStatus.REMOVED,
    "MODIFIED": FileStatus.MODIFIED,
    "RENAMED": FileStatus.RENAMED,
    "COPIED": FileStatus.COPIED,
    "CHANGED": FileStatus.CHANGED,
}
# CheckRun conclusions and StatusContext states that count as a failed check
FAILED_CONCLUSIONS = {"FAILURE", "TIMED_OUT", "CANCELLED", "ACTION_REQUIRED", "STARTUP_FAILURE"}
FAILED_STATES = {"FAILURE", "ERROR"}


@dataclass(frozen=True)
class RepoIdentity:
    """A repository as `GET /repos/o/r` answers it (after GitHub's redirect of an old name)."""

    github_id: int | None
    name: str  # owner/name now
    private: bool | None


def repo_identity(data: dict[str, Any], asked: str) -> RepoIdentity:
    """`GET /repos/{asked}`'s answer: its `id`, `full_name` (else `asked`) and `private`."""
    github_id, name, private = data.get("id"), data.get("full_name"), data.get("private")
    return RepoIdentity(
        github_id=github_id if isinstance(github_id, int) else None,
        name=name if isinstance(name, str) and "/" in name else asked,
        private=private if isinstance(private, bool) else None,
    )


def parse_time(value: str) -> datetime:
    """GitHub's ISO 8601 timestamps (`2026-01-19T05:19:00Z`) as aware datetimes."""
    return datetime.fromisoformat(value)


def _login(actor: dict[str, Any] | None) -> str | None:
    return actor.get("login") if actor else None


def _name(actor: dict[str, Any] | None) -> str | None:
    """A user's display name (GraphQL `... on User { name }`; bots and REST give none)."""
    return (actor.get("name") or None) if actor else None


def _nodes(connection: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [n for n in (connection or {}).get("nodes") or [] if n]


# --- shape checks: what the converters below read without a default ---------------------


def _require(value: Any, kind: type | tuple[type, ...], what: str) -> None:
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise TypeError(f"{what} is {type(value).__name__}")


def check_connection(connection: Any, what: str) -> None:
    """A GraphQL connection: `nodes` a list, `pageInfo.hasNextPage` a boolean."""
    _require(connection, dict, what)
    _require(connection.get("nodes"), list, f"{what}.nodes")
    _require((connection.get("pageInfo") or {}).get("hasNextPage"), bool, f"{what}.pageInfo")


def check_graphql_node(node: Any) -> None:
    """A PullRequest node as pr_from_graphql reads it ({} stands for another result type)."""
    if node is None or node == {}:
        return
    _require(node, dict, "node")
    _require(node.get("number"), int, "node.number")
    _require(node.get("createdAt"), str, f"#{node['number']} createdAt")
    _require(node.get("mergedAt"), (str, type(None)), f"#{node['number']} mergedAt")
    for file in (node.get("files") or {}).get("nodes") or []:
        check_graphql_file(file)


def check_graphql_file(file: Any) -> None:
    if file is not None:
        _require(file, dict, "file")
        _require(file.get("path"), str, "file.path")


def check_rest_pull(pull: Any) -> None:
    """`pulls/N` (or a search item) as pr_from_rest and pr_from_search_item read it."""
    _require(pull, dict, "pull")
    _require(pull.get("number"), int, "number")
    _require(pull.get("created_at"), str, f"#{pull['number']} created_at")


def check_rest_files(files: Any) -> None:
    _require(files, list, "files")
    for file in files:
        _require(file, dict, "file")
        _require(file.get("filename"), str, "file.filename")


def check_search_page(page: Any) -> None:
    _require(page, dict, "search")
    _require(page.get("items"), list, "search.items")
    for item in page["items"]:
        check_rest_pull(item)


# --- GraphQL ---------------------------------------------------------------------------


def merged_at_of_node(node: dict[str, Any]) -> datetime | None:
    value = node.get("mergedAt")
    return parse_time(value) if value else None


def file_from_graphql(node: dict[str, Any]) -> FileChange:
    return FileChange(
        path=node["path"],
        status=PATCH_STATUS.get(node.get("changeType", ""), FileStatus.CHANGED),
        additions=int(node.get("additions") or 0),
        deletions=int(node.get("deletions") or 0),
    )


def _reviews(node: dict[str, Any]) -> list[Review]:
    states = set(ReviewState)
    return [
        Review(
            state=ReviewState(r["state"]),
            author=_login(r.get("author")),
            body=r.get("body") or "",
            submitted_at=_time(r.get("submittedAt")),
        )
        for r in _nodes(node.get("reviews"))
        if r.get("state") in states
    ]


def _time(value: str | None) -> datetime | None:
    return parse_time(value) if value else None


def _thread(thread: dict[str, Any]) -> ReviewThread:
    first = next(iter(_nodes(thread.get("comments"))), {})
    return ReviewThread(
        path=thread.get("path"),
        line=thread.get("line"),
        author=_login(first.get("author")),
        body=first.get("body") or "",
        url=first.get("url"),
        created_at=_time(first.get("createdAt")),
    )


def _by_a_person(comment: dict[str, Any]) -> bool:
    """Not a bot's (CI reports, review bots): a person wrote it."""
    author = comment.get("author") or {}
    return author.get("__typename") != "Bot" and not str(author.get("login", "")).endswith("[bot]")


def _comment(comment: dict[str, Any], thread: dict[str, Any] | None = None) -> Comment:
    return Comment(
        author=_login(comment.get("author")),
        body=comment.get("body") or "",
        url=comment.get("url"),
        created_at=_time(comment.get("createdAt")),
        path=thread.get("path") if thread else None,
        line=thread.get("line") if thread else None,
    )


def _conversation(node: dict[str, Any]) -> list[Comment]:
    return [_comment(c) for c in _nodes(node.get("comments")) if _by_a_person(c)]


def _inline_comments(node: dict[str, Any]) -> list[Comment]:
    """Each review thread's first comment, with the thread's file and line."""
    found = []
    for thread in _nodes(node.get("reviewThreads")):
        first = next(iter(_nodes(thread.get("comments"))), None)
        if first is not None and _by_a_person(first):
            found.append(_comment(first, thread))
    return found


def _threads(node: dict[str, Any]) -> tuple[int | None, list[ReviewThread], int | None]:
    """(total threads, the unresolved ones, inline comments counted over the threads seen)."""
    connection = node.get("reviewThreads")
    if connection is None:
        return None, [], None
    threads = _nodes(connection)
    open_threads = [_thread(t) for t in threads if not t.get("isResolved")]
    comments = sum(int((t.get("comments") or {}).get("totalCount") or 0) for t in threads)
    return int(connection.get("totalCount") or 0), open_threads, comments


def _failing(context: dict[str, Any]) -> Check | None:
    if context.get("__typename") == "StatusContext" or "context" in context:
        if context.get("state") in FAILED_STATES:
            return Check(
                name=context["context"], state=context["state"], url=context.get("targetUrl")
            )
        return None
    if context.get("conclusion") in FAILED_CONCLUSIONS:
        return Check(
            name=context["name"], state=context["conclusion"], url=context.get("detailsUrl")
        )
    return None


def _checks(node: dict[str, Any]) -> tuple[CheckState | None, list[Check]]:
    """The last commit's status rollup: its state and the contexts that failed."""
    commits = _nodes(node.get("commits"))
    rollup = (commits[-1].get("commit") or {}).get("statusCheckRollup") if commits else None
    if not rollup:
        return None, []
    state = rollup.get("state")
    failing = [c for c in map(_failing, _nodes(rollup.get("contexts"))) if c is not None]
    return (CheckState(state) if state in set(CheckState) else None), failing


def pr_from_graphql(
    node: dict[str, Any], files: Iterable[dict[str, Any]] | None = None
) -> PullRequest:
    """A PullRequest from a search node; `files` overrides the node's first page of files."""
    file_nodes = list(files) if files is not None else _nodes(node.get("files"))
    total, open_threads, inline = _threads(node)
    check_state, failing = _checks(node)
    labels = node.get("labels")
    return PullRequest(
        number=int(node["number"]),
        title=node.get("title") or "",
        body=node.get("body") or "",
        url=node.get("url") or "",
        author=_login(node.get("author")),
        author_name=_name(node.get("author")),
        author_association=node.get("authorAssociation"),
        created_at=parse_time(node["createdAt"]),
        merged_at=parse_time(node["mergedAt"]),
        additions=int(node.get("additions") or 0),
        deletions=int(node.get("deletions") or 0),
        changed_files=int(node.get("changedFiles") or 0),
        files=[file_from_graphql(f) for f in file_nodes],
        labels=[label["name"] for label in _nodes(labels)] if labels is not None else None,
        reviews=_reviews(node) if node.get("reviews") is not None else None,
        comments=(node.get("comments") or {}).get("totalCount"),
        review_comments=inline,
        review_threads_total=total,
        review_threads_unresolved=len(open_threads) if total is not None else None,
        unresolved_threads=open_threads,
        conversation=_conversation(node),
        inline_comments=_inline_comments(node),
        review_decision=node.get("reviewDecision"),
        check_state=check_state,
        failing_checks=failing,
        merge_commit=(node.get("mergeCommit") or {}).get("oid"),
    )


# --- REST --------------------------------------------------------------------------------


def merged_at_of_item(item: dict[str, Any]) -> datetime | None:
    """merged_at of a search/issues item (it sits under `pull_request`)."""
    value = (item.get("pull_request") or {}).get("merged_at") or item.get("merged_at")
    return parse_time(value) if value else None


def file_from_rest(raw: dict[str, Any]) -> FileChange:
    status = raw.get("status", "modified")
    return FileChange(
        path=raw["filename"],
        status=FileStatus(status) if status in set(FileStatus) else FileStatus.CHANGED,
        additions=int(raw.get("additions") or 0),
        deletions=int(raw.get("deletions") or 0),
        patch=raw.get("patch"),
        previous_path=raw.get("previous_filename"),
    )


def _labels(raw: dict[str, Any]) -> list[str] | None:
    labels = raw.get("labels")
    return [label["name"] for label in labels if label.get("name")] if labels is not None else None


def pr_from_rest(pull: dict[str, Any], files: list[dict[str, Any]] | None) -> PullRequest:
    """A PullRequest from `pulls/N` and `pulls/N/files` (files None: they could not be read).

    REST has no review decision, threads or check rollup in these payloads: those stay None.
    """
    changes = [file_from_rest(f) for f in files or []]
    return PullRequest(
        number=int(pull["number"]),
        title=pull.get("title") or "",
        body=pull.get("body") or "",
        url=pull.get("html_url") or "",
        author=_login(pull.get("user")),
        author_association=pull.get("author_association"),
        created_at=parse_time(pull["created_at"]),
        merged_at=parse_time(pull["merged_at"]),
        additions=int(pull.get("additions") or 0),
        deletions=int(pull.get("deletions") or 0),
        changed_files=int(pull.get("changed_files") or len(changes)),
        files=changes,
        patches_fetched=files is not None,
        labels=_labels(pull),
        comments=pull.get("comments"),
        review_comments=pull.get("review_comments"),
        merge_commit=pull.get("merge_commit_sha"),
    )


def pr_from_search_item(item: dict[str, Any]) -> PullRequest:
    """What a search/issues item alone tells about a PR (when `pulls/N` could not be read)."""
    return PullRequest(
        number=int(item["number"]),
        title=item.get("title") or "",
        body=item.get("body") or "",
        url=item.get("html_url") or "",
        author=_login(item.get("user")),
        author_association=item.get("author_association"),
        created_at=parse_time(item["created_at"]),
        merged_at=merged_at_of_item(item) or parse_time(item["closed_at"]),
        labels=_labels(item),
        comments=item.get("comments"),
    )


def with_patches(pr: PullRequest, files: list[dict[str, Any]]) -> PullRequest:
    """`pr` with its file list replaced by REST's (patches, exact status, previous paths)."""
    return pr.model_copy(
        update={"files": [file_from_rest(f) for f in files], "patches_fetched": True}
    )


def code_search_paths(payload: dict[str, Any]) -> list[str]:
    """Paths of a search/code answer."""
    return sorted({item["path"] for item in payload.get("items") or [] if item.get("path")})
