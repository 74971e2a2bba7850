"""What became of a change within the period (core/analyst/reverted.py), on a small period:
#10 adds a feature, #11 reverts it, and what comes after decides whether telling #10 alone, or
the revert as the end of it, hides something."""

from __future__ import annotations

from datetime import UTC, datetime

from service.core.analyst.evidence import PeriodEvidence, Relation
from service.core.analyst.reverted import reverted_reasons
from service.core.models import FileChange, PullRequest


def _pr(number: int, day: int, title: str) -> PullRequest:
    when = datetime(2026, 5, day, tzinfo=UTC)
    files = [FileChange(path="verl/trainer/split.py", additions=1)]
    return PullRequest(number=number, title=title, created_at=when, merged_at=when, files=files)


def _period(*later: tuple[PullRequest, Relation | None]) -> PeriodEvidence:
    prs = [_pr(10, 4, "[trainer] feat: support resource pool split"), _pr(11, 5, 'Revert "…"')]
    relations = [Relation(11, 10, "revert")]
    for pr, relation in later:
        prs.append(pr)
        relations += [relation] if relation else []
    return PeriodEvidence(collected={p.number: p for p in prs}, relations=tuple(relations))


def _rules(reasons: list[str]) -> set[str]:
    return {r.split(":")[0] for r in reasons}


def test_a_reverted_change_told_as_in_effect_is_dropped() -> None:
    period = _period()
    assert _rules(reverted_reasons("#10 lets the trainer split resource pools.", [10], period)) == {
        "reverted"
    }
    assert (
        reverted_reasons("#10 lets the trainer split pools; #11 reverts it.", [10, 11], period)
        == []
    )
    assert reverted_reasons("#10 adds 120 lines across 3 files.", [10], period) == []


def test_a_revert_told_as_the_end_of_a_change_brought_back_is_dropped() -> None:
    # #12, titled as #10, brings the split back after #11
    period = _period((_pr(12, 6, "[trainer] feat: support resource_pool split"), None))
    told = "#11 reverted #10, so the trainer can no longer split resource pools."
    assert _rules(reverted_reasons(told, [11, 10], period)) == {"relanded"}
    both = "#11 reverted #10, and #12 brought the split back, so pools still split."
    assert reverted_reasons(both, [11, 10, 12], period) == []
    # told without an end ("#11 reverts #10") it hides nothing
    assert reverted_reasons("#11 reverts #10.", [11, 10], period) == []


def test_a_revert_of_the_revert_brings_the_change_back_and_another_revert_does_not() -> None:
    again = _pr(12, 6, 'Revert "Revert …"')
    period = _period((again, Relation(12, 11, "revert")))
    told = "#11 reverted #10, so the trainer can no longer split resource pools."
    assert _rules(reverted_reasons(told, [11, 10], period)) == {"relanded"}
    other = _pr(13, 6, 'Revert "[rollout] fix: something else"')
    period = _period((other, Relation(13, 9, "revert")))
    assert reverted_reasons(told, [11, 10], period) == []
