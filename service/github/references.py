"""Do references to removed paths remain? For a week's large removals, GitHub code search is
asked (a few queries a week) which files of the default branch still name the removed module."""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.core.models import PullRequest
from service.core.risks.migration import search_targets
from service.errors import AuthRefusedError, RateLimitError, UpstreamError
from service.github import rest
from service.github.convert import code_search_paths

if TYPE_CHECKING:
    from service.github.http import GitHubHttp

# code search allows ~9 requests a minute (platform-facts §1.1): a handful per week
MAX_QUERIES = 5
MAX_PATHS = 20


def search_term(directory: str, prs: list[PullRequest]) -> str:
    """The dotted module for a Python package directory or file, else the path itself."""
    if directory.endswith(".py"):
        return directory.removesuffix(".py").replace("/", ".")
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
    for directory in search_targets(prs, limit):
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
