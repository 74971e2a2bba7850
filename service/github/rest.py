"""REST side of the collector: the token-less search, `pulls/N`, `pulls/N/files` (patches),
code search; `Link` pagination throughout."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from service.github import convert
from service.github.search import merged_query, needs_split, split

if TYPE_CHECKING:
    from service.github.http import Check, GitHubHttp, RestPage

PER_PAGE = 100  # the maximum on search and pulls endpoints (platform-facts §1.3)
FILES_LISTED_MAX = 3000  # `pulls/N/files` lists no more of a PR's files than this


def pages(
    http: GitHubHttp,
    path: str,
    params: dict[str, str | int],
    *,
    cache: bool = True,
    check: Check | None = None,
) -> Iterator[RestPage]:
    """The first page and every `rel="next"` page after it (`cache`, `check`: see
    GitHubHttp.get)."""
    page = http.get(path, params, cache=cache, check=check)
    yield page
    while page.next_url:
        page = http.get(page.next_url, cache=cache, check=check)
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
    search = pages(http, "/search/issues", params, check=convert.check_search_page)
    for index, page in enumerate(search):
        count = int(page.data.get("total_count") or 0)
        if index == 0 and needs_split(count, start, end):
            for lo, hi in split(start, end, count):
                found.extend(search_items(http, repo, lo, hi))
            return found
        found.extend(page.data.get("items") or [])
    return found


def pull(
    http: GitHubHttp, repo: str, number: int, *, max_age: timedelta | None = None
) -> dict[str, Any]:
    """`GET /repos/o/r/pulls/N`; an answer stored less than `max_age` ago is used as is."""
    path = f"/repos/{repo}/pulls/{number}"
    return dict(http.get(path, check=convert.check_rest_pull, max_age=max_age).data)


def pull_files(
    http: GitHubHttp, repo: str, number: int, *, cache: bool = True
) -> list[dict[str, Any]]:
    """Every Diff Entry of a PR (GitHub lists at most 3,000), with `patch` where GitHub has one."""
    files: list[dict[str, Any]] = []
    path = f"/repos/{repo}/pulls/{number}/files"
    listed = pages(http, path, {"per_page": PER_PAGE}, cache=cache, check=convert.check_rest_files)
    for page in listed:
        files.extend(page.data)
    return files


def code_search(
    http: GitHubHttp, repo: str, term: str, *, max_age: timedelta | None = None
) -> dict[str, Any]:
    """One `search/code` page for an exact term in the repository (needs a token); an answer
    stored less than `max_age` ago is used without asking."""
    params: dict[str, str | int] = {"q": f'"{term}" repo:{repo}', "per_page": PER_PAGE}
    return dict(http.get("/search/code", params, max_age=max_age).data)
