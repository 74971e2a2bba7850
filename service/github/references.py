"""Do references to removed paths remain? For a week's large removals, GitHub code search is
asked (a few queries a week) which files of the default branch still name a removed path.

What to ask is core's decision (`search_terms`): a removed path's import path or path as a
phrase, never a bare word. A path whose search did not answer is left out of the result, so the
digest says that search is incomplete rather than that nothing refers to it.
"""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import TYPE_CHECKING

from service.core.models import PullRequest
from service.core.risks.migration import SearchTerm, search_terms
from service.errors import AuthRefusedError, RateLimitError, UpstreamError
from service.github import rest
from service.github.convert import code_search_paths

if TYPE_CHECKING:
    from service.github.http import GitHubHttp

# code search allows ~9 requests a minute (platform-facts §1.1): a handful per week
MAX_QUERIES = 5
MAX_PATHS = 20
# an answer this young is used again without asking: a rebuild of the week an hour later
# costs no search, while the next day's report sees references removed since
ANSWER_MAX_AGE = timedelta(hours=12)


class _SearchStoppedError(Exception):
    """Code search refused or rate-limited: further queries would fail too."""


def _files_naming(
    http: GitHubHttp, repo: str, term: SearchTerm, stop: threading.Event
) -> list[str] | None:
    """Default-branch files that name the removed path (outside it); None if a query failed."""
    paths: set[str] = set()
    for phrase in term.phrases:
        if stop.is_set():  # the collection ended without it: ask nothing more
            raise _SearchStoppedError
        try:
            payload = rest.code_search(http, repo, phrase, max_age=ANSWER_MAX_AGE)
        except (RateLimitError, AuthRefusedError):
            raise _SearchStoppedError from None
        except UpstreamError:
            return None
        paths.update(p for p in code_search_paths(payload) if not p.startswith(f"{term.target}/"))
    return sorted(paths)[:MAX_PATHS]


def remaining_references(
    http: GitHubHttp,
    repo: str,
    prs: list[PullRequest],
    limit: int = MAX_QUERIES,
    stop: threading.Event | None = None,
) -> tuple[bool, dict[str, list[str]]]:
    """(every path answered, {removed path: default-branch files that still name it}).

    The check is optional: a refused or rate-limited code search ends it early, any other
    failure skips that path; either way the first value says the answer is partial and the
    paths without an answer are not keys of the result. Once `stop` is set no query is sent.
    """
    found: dict[str, list[str]] = {}
    terms = search_terms(prs, limit)
    for term in terms:
        try:
            paths = _files_naming(http, repo, term, stop or threading.Event())
        except _SearchStoppedError:
            return False, found
        if paths is not None:
            found[term.target] = paths
    return len(found) == len(terms), found
