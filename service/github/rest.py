"""REST side of the collector: the token-less search, `pulls/N`, `pulls/N/files` (patches),
code search; `Link` pagination throughout."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from service.github.search import halves, merged_query, needs_split

if TYPE_CHECKING:
    from service.github.http import GitHubHttp, RestPage

PER_PAGE = 100  # the maximum on search and pulls endpoints (platform-facts §1.3)


def pages(http: GitHubHttp, path: str, params: dict[str, str | int]) -> Iterator[RestPage]:
    """The first page and every `rel="next"` page after it."""
    page = http.get(path, params)
    yield page
    while page.next_url:
        page = http.get(page.next_url)
        yield page


def repository(http: GitHubHttp, repo: str) -> dict[str, Any]:
    """`GET /repos/o/r` (NotFoundError when GitHub has no such repository for us)."""
    return dict(http.get(f"/repos/{repo}").data)


def search_items(
    http: GitHubHttp, repo: str, start: datetime, end: datetime
) -> list[dict[str, Any]]:
    """Every search/issues item for PRs merged in [start, end); windows at the cap are split."""
    params: dict[str, str | int] = {"q": merged_query(repo, start, end), "per_page": PER_PAGE}
    found: list[dict[str, Any]] = []
    for index, page in enumerate(pages(http, "/search/issues", params)):
        if index == 0 and needs_split(int(page.data.get("total_count") or 0), start, end):
            for lo, hi in halves(start, end):
                found.extend(search_items(http, repo, lo, hi))
            return found
        found.extend(page.data.get("items") or [])
    return found


def pull(http: GitHubHttp, repo: str, number: int) -> dict[str, Any]:
    return dict(http.get(f"/repos/{repo}/pulls/{number}").data)


def pull_files(http: GitHubHttp, repo: str, number: int) -> list[dict[str, Any]]:
    """Every Diff Entry of a PR (GitHub lists at most 3,000), with `patch` where GitHub has one."""
    files: list[dict[str, Any]] = []
    for page in pages(http, f"/repos/{repo}/pulls/{number}/files", {"per_page": PER_PAGE}):
        files.extend(page.data)
    return files


def code_search(http: GitHubHttp, repo: str, term: str) -> dict[str, Any]:
    """One `search/code` page for an exact term in the repository (needs a token)."""
    params: dict[str, str | int] = {"q": f'"{term}" repo:{repo}', "per_page": PER_PAGE}
    return dict(http.get("/search/code", params).data)
