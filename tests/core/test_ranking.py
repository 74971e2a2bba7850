"""core/ranking.py, the one order of severities and PRs: the digest's PRs, the top PRs of every
surface and the risk lists agree with it."""

from __future__ import annotations

from service.core.models import Severity
from service.core.ranking import (
    SEVERITY_RANK,
    pr_rank,
    ranked_factors,
    sorted_risks,
    top_prs,
    worst_severity,
)
from tests.commands.builders import WEEK_LABELS, real_digest


def test_the_digest_lists_its_prs_in_the_one_order() -> None:
    for label in WEEK_LABELS:
        digest = real_digest(label)
        assert digest.prs == sorted(digest.prs, key=pr_rank)
        top = top_prs(digest, 5)
        assert top == digest.prs[:5]
        assert [p.score for p in top] == sorted((p.score for p in digest.prs), reverse=True)[:5]


def test_risks_go_worst_first_and_the_worst_is_named() -> None:
    risks = [r for label in WEEK_LABELS for r in real_digest(label).risks]
    ordered = sorted_risks(risks)
    assert [SEVERITY_RANK[r.severity] for r in ordered] == sorted(
        SEVERITY_RANK[r.severity] for r in risks
    )
    severities = {r.severity for r in risks}
    assert worst_severity(risks) == min(severities, key=SEVERITY_RANK.__getitem__)
    assert worst_severity([]) is None
    assert list(SEVERITY_RANK) == [Severity.HIGH, Severity.MEDIUM, Severity.LOW]


def test_factors_that_moved_the_score_come_largest_first() -> None:
    for pr in real_digest("2026-W04").prs:
        ranked = ranked_factors(pr)
        assert all(f.points for f in ranked)
        assert [abs(f.points) for f in ranked] == sorted(
            (abs(f.points) for f in ranked), reverse=True
        )
