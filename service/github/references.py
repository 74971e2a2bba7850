"""Do references to removed paths remain? For a week's large removals, GitHub code search is
asked (a few queries a week) which files of the default branch still name the removed module."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from service.core.models import FileStatus, PullRequest
from service.errors import AuthRefusedError, RateLimitError, UpstreamError
from service.github import rest
from service.github.convert import code_search_paths

if TYPE_CHECKING:
    from service.github.http import GitHubHttp

# code search allows ~9 requests a minute (platform-facts §1.1): a handful per week
MAX_QUERIES = 5
# a directory that lost at least this many files in one PR counts as removed
MIN_REMOVED_FILES = 3
MAX_PATHS = 20


def _ancestors(path: str) -> list[str]:
    parts = path.split("/")[:-1]
    return ["/".join(parts[:depth]) for depth in range(1, len(parts) + 1)]


def _removed_in(pr: PullRequest) -> Counter[str]:
    """Directories of one PR that only lost files, with how many (nothing added or edited there)."""
    removed: Counter[str] = Counter()
    kept: set[str] = set()
    for change in pr.files:
        if change.status == FileStatus.REMOVED:
            removed.update(_ancestors(change.path))
            continue
        kept.update(_ancestors(change.path))
        if change.status == FileStatus.RENAMED and change.previous_path:
            removed.update(_ancestors(change.previous_path))
    return Counter({d: n for d, n in removed.items() if d not in kept})


def removed_directories(prs: list[PullRequest], limit: int = MAX_QUERIES) -> list[str]:
    """The outermost directories (below the top level) that PRs emptied, largest first."""
    counts: Counter[str] = Counter()
    for pr in prs:
        counts.update(_removed_in(pr))
    candidates = [d for d, n in counts.items() if n >= MIN_REMOVED_FILES and "/" in d]
    outermost = [d for d in candidates if not any(d.startswith(f"{o}/") for o in candidates)]
    outermost.sort(key=lambda d: (-counts[d], d))
    return outermost[:limit]


def search_term(directory: str, prs: list[PullRequest]) -> str:
    """The dotted module for a Python package directory, else the path itself."""
    python = any(
        f.path.startswith(f"{directory}/") and f.path.endswith(".py")
        for pr in prs
        for f in pr.files
    )
    return directory.replace("/", ".") if python else directory


def remaining_references(
    http: GitHubHttp, repo: str, prs: list[PullRequest], limit: int = MAX_QUERIES
) -> tuple[bool, dict[str, list[str]]]:
    """(all asked, {removed directory: default-branch files that still mention it}).

    The check is optional: a refused or rate-limited code search ends it early, any other
    failure skips that directory; either way the first value says the answer is partial.
    """
    found: dict[str, list[str]] = {}
    complete = True
    for directory in removed_directories(prs, limit):
        try:
            payload = rest.code_search(http, repo, search_term(directory, prs))
        except (RateLimitError, AuthRefusedError):
            return False, found
        except UpstreamError:
            complete = False
            continue
        paths = [p for p in code_search_paths(payload) if not p.startswith(f"{directory}/")]
        found[directory] = paths[:MAX_PATHS]
    return complete, found
