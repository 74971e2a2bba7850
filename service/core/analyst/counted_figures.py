"""Counts a sentence states of what it names itself, which no PR's figures hold: a family's
count of repositories ("the three repositories merged 43 PRs"), and a count of the PRs it lists
right after it ("three of which, #6318, #6429 and #6443, …").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.core.analyst import claims

_REPOSITORIES = re.compile(
    r"\s*(?:(?:member|family)\s+)?(?:repositor(?:y|ies)|repos?)\b|\s*个?仓库", re.IGNORECASE
)
_REF = r"(?:[\w.-]+)?#\d+"
# the PRs listed right after a count: "of which, #1, #2 and #3", "其中 #1、#2 与 #3"
_LISTED = re.compile(
    rf"[^#.。;；]{{0,20}}?({_REF}(?:\s*(?:,|、|，|\band\b|和|与|及)\s*(?:and\s+)?{_REF})*)",
    re.IGNORECASE,
)


def _after(figure: claims.Figure, text: str) -> int | None:
    at = text.find(figure.text)
    return None if at < 0 else at + len(figure.text)


def repository_count(figure: claims.Figure, text: str, repos: Sequence[str]) -> bool:
    """ "The three repositories": as many as the family's repositories."""
    end = _after(figure, text)
    if end is None or not repos or str(len(repos)) not in figure.values:
        return False
    return _REPOSITORIES.match(text, end) is not None


def listed_count(figure: claims.Figure, text: str) -> bool:
    """ "Three of which, #6318, #6429 and #6443": as many as the PRs listed right after."""
    end = _after(figure, text)
    listed = _LISTED.match(text, end) if end is not None else None
    if listed is None:
        return False
    return str(len(re.findall(_REF, listed.group(1)))) in figure.values


def counts_what_it_names(figure: claims.Figure, text: str, repos: Sequence[str]) -> bool:
    """`figure` counts the family's repositories or the PRs listed right after it."""
    return repository_count(figure, text, repos) or listed_count(figure, text)


# a figure followed by what the week's totals count of people: "35 位贡献者", "31 contributors"
_CONTRIBUTORS = re.compile(r"\s*(?:位|名|个)?\s*(?:贡献者|contributors?\b)", re.IGNORECASE)


def denied_total(figure: claims.Figure, text: str, totals: dict[str, int]) -> str:
    """The reason a count of the week's contributors other than the checker's own count is
    wrong (the request's total may be another: the checker counts the family's authors), or
    "" when the figure counts no contributors."""
    end = _after(figure, text)
    known = totals.get("contributors")
    if end is None or known is None or not _CONTRIBUTORS.match(text, end):
        return ""
    if str(known) in figure.values:
        return ""
    return f"count {figure.text}: the week's contributors number {known}"
