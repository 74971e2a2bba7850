"""GraphQL side of the collector: the merged-PR search of a window (cursors to the end, split
windows over 1,000 results), the rest of a PR's files past 100, and one PR by number."""

from __future__ import annotations

import functools
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from importlib import resources
from typing import TYPE_CHECKING, Any

from service.errors import UpstreamError
from service.github import convert
from service.github.search import merged_query, needs_split, split

if TYPE_CHECKING:
    from service.github.http import GitHubHttp

# GitHub's largest page: ~56 points with the nested connections (~36,000 nodes, well under the
# 500,000-node and 10 s limits); half the requests of pages of 50 for the same points
PAGE_SIZE = 100
FRAGMENT = "pull_request_fields.graphql"


@functools.cache
def load_query(name: str) -> str:
    """A query document from service/github/queries, with the PR fragment when it uses it."""
    folder = resources.files("service.github").joinpath("queries")
    text = folder.joinpath(f"{name}.graphql").read_text(encoding="utf-8")
    if "...PullRequestFields" in text:
        text += "\n" + folder.joinpath(FRAGMENT).read_text(encoding="utf-8")
    return text


def _owner_name(repo: str) -> dict[str, str]:
    owner, name = repo.split("/", 1)
    return {"owner": owner, "name": name}


def _check_search(data: dict[str, Any]) -> None:
    search = data.get("search")
    convert.check_connection(search, "search")
    for node in data["search"]["nodes"]:
        convert.check_graphql_node(node)


def _files_of(data: dict[str, Any]) -> Any:
    return ((data.get("repository") or {}).get("pullRequest") or {}).get("files")


def _check_more_files(data: dict[str, Any]) -> None:
    files: dict[str, Any] = _files_of(data)
    convert.check_connection(files, "files")
    for file in files["nodes"]:
        convert.check_graphql_file(file)


def _check_pull_request(data: dict[str, Any]) -> None:
    repository = data["repository"]  # null comes with a NOT_FOUND error, handled before
    convert.check_graphql_node(repository.get("pullRequest"))


def _search_page(http: GitHubHttp, q: str, first: int, cursor: str | None) -> dict[str, Any]:
    variables = {"q": q, "first": first, "cursor": cursor}
    data = http.graphql(load_query("search_merged"), variables, check=_check_search)
    search = data.get("search")
    if not isinstance(search, dict):
        raise UpstreamError("GitHub GraphQL search answered without a result")
    return search


def merged_count(http: GitHubHttp, repo: str, start: datetime, end: datetime) -> int:
    """How many PRs were merged in [start, end): one search page of one node."""
    page = _search_page(http, merged_query(repo, start, end), 1, None)
    return int(page.get("issueCount") or 0)


def search_nodes(
    http: GitHubHttp,
    repo: str,
    start: datetime,
    end: datetime,
    *,
    page_size: int = PAGE_SIZE,
    concurrency: int = 1,
    updated_since: datetime | None = None,
) -> list[dict[str, Any]]:
    """Every PR node the search finds for [start, end) (with `updated_since`, those changed
    since), page after page. A capped window is split, and its parts are searched
    `concurrency` at a time (cursors make pages sequential)."""
    q = merged_query(repo, start, end, updated_since)
    page = _search_page(http, q, page_size, None)
    count = int(page.get("issueCount") or 0)
    if needs_split(count, start, end):
        parts = split(start, end, count)

        def part_nodes(part: tuple[datetime, datetime]) -> list[dict[str, Any]]:
            lo, hi = part
            return search_nodes(
                http, repo, lo, hi, page_size=page_size, updated_since=updated_since
            )

        with ThreadPoolExecutor(max_workers=max(1, min(concurrency, len(parts)))) as pool:
            return [node for nodes in pool.map(part_nodes, parts) for node in nodes]
    nodes = list(page.get("nodes") or [])
    while page["pageInfo"]["hasNextPage"]:
        page = _search_page(http, q, page_size, page["pageInfo"]["endCursor"])
        nodes.extend(page.get("nodes") or [])
    # nodes of other result types come back as {} through the `... on PullRequest` spread
    return [n for n in nodes if n and "number" in n]


def first_files(node: dict[str, Any]) -> list[dict[str, Any]]:
    """The file nodes of a PR node's first page (the search's)."""
    return [f for f in (node.get("files") or {}).get("nodes") or [] if f]


def has_more_files(node: dict[str, Any]) -> bool:
    """Whether a PR node's files go on past its first page."""
    return bool(((node.get("files") or {}).get("pageInfo") or {}).get("hasNextPage"))


def all_files(http: GitHubHttp, repo: str, node: dict[str, Any]) -> list[dict[str, Any]]:
    """A PR's file nodes: the search's first page and, past 100 files, the follow-up pages."""
    connection = node.get("files") or {}
    files = [f for f in connection.get("nodes") or [] if f]
    info = connection.get("pageInfo") or {}
    variables: dict[str, Any] = {**_owner_name(repo), "number": int(node["number"])}
    while info.get("hasNextPage"):
        variables["cursor"] = info.get("endCursor")
        data = http.graphql(load_query("more_files"), variables, check=_check_more_files)
        page = _files_of(data) or {}
        files.extend(f for f in page.get("nodes") or [] if f)
        info = page.get("pageInfo") or {}
    return files


def pull_request_node(http: GitHubHttp, repo: str, number: int) -> dict[str, Any] | None:
    """One PR's node by number (None when GitHub answers null)."""
    variables = {**_owner_name(repo), "number": number}
    data = http.graphql(load_query("pull_request"), variables, check=_check_pull_request)
    node = (data.get("repository") or {}).get("pullRequest")
    return node if isinstance(node, dict) else None
