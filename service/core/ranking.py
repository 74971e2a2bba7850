"""The one order of things that are ranked: severities (high first), PRs (by importance), and
the selections made from them (the top PRs, a list of risks worst first)."""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from service.core.models import Digest, Factor, Risk, ScoredPR, Severity

SEVERITY_RANK = {Severity.HIGH: 0, Severity.MEDIUM: 1, Severity.LOW: 2}


def severity_rank(severity: Severity) -> int:
    """0 for high, 1 for medium, 2 for low."""
    return SEVERITY_RANK[severity]


def pr_rank(pr: ScoredPR) -> tuple[bool, float, int]:
    """The sort key of a PR: the highest score first, ties by the lower number; a PR that only
    changes comments and docstrings after every other (it changes nothing for users)."""
    return (pr.comment_only, -pr.score, pr.number)


def ranked_prs(digest: Digest) -> list[ScoredPR]:
    """Every PR of `digest`, the most important first."""
    return sorted(digest.prs, key=pr_rank)


def top_prs(digest: Digest, limit: int) -> list[ScoredPR]:
    """The `limit` most important PRs of `digest` (the report's table, a card, `top n`): the
    first `limit` of `ranked_prs`, without sorting a 2,000-PR week for five of them."""
    return heapq.nsmallest(limit, digest.prs, key=pr_rank)


def sorted_risks(risks: Iterable[Risk]) -> list[Risk]:
    """High first, then medium, then low; stable within a severity."""
    return sorted(risks, key=lambda r: severity_rank(r.severity))


def worst_severity(risks: Iterable[Risk]) -> Severity | None:
    """The highest severity among `risks`, None when there is none."""
    return min((r.severity for r in risks), key=severity_rank, default=None)


def ranked_factors(pr: ScoredPR) -> list[Factor]:
    """The PR's factors that moved its score, the largest (either way) first."""
    return sorted((f for f in pr.factors if f.points), key=lambda f: -abs(f.points))
