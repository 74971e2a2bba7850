"""Roll-ups: a rule on more than three PRs is one risk listing them worst first."""

from __future__ import annotations

from service.core.models import Risk, RiskKind, Severity
from service.core.profile import RepoProfile
from service.core.risks.base import make_risk
from service.core.risks.rollup import ROLLUP_OVER, roll_up, worst_first
from tests.core.risks.helpers import LABELS
from tests.core.risks.zoo import rollup_risks


def test_real_week_rolls_up_core_changes_without_tests(
    real_risks: dict[str, list[Risk]],
) -> None:
    # 2026-W03: four PRs change core code without tests; one item, largest change first
    rolled = [r for r in real_risks["2026-W03"] if r.members]
    assert len(rolled) == 1
    (risk,) = rolled
    assert (risk.kind, risk.rule, risk.severity) == (
        RiskKind.CORE_WITHOUT_TESTS,
        "core_without_tests",
        Severity.LOW,
    )
    assert risk.prs == [4715, 4902, 4916, 4956]
    assert [m.params["lines"] for m in risk.members] == [90, 50, 36, 32]
    assert risk.params == {"count": 4, "items": 4}
    assert [e.pr for e in risk.evidence] == [4715, 4902, 4916, 4956]
    assert not any(
        r.kind == RiskKind.CORE_WITHOUT_TESTS and not r.members for r in real_risks["2026-W03"]
    )


def test_real_weeks_roll_up_only_rules_on_more_than_three_prs(
    real_risks: dict[str, list[Risk]],
) -> None:
    rolled = {label: [(r.kind, r.rule) for r in real_risks[label] if r.members] for label in LABELS}
    assert rolled == {
        "2025-W47": [],  # three PRs change core code without tests: not rolled up
        "2025-W48": [],
        "2026-W03": [(RiskKind.CORE_WITHOUT_TESTS, "core_without_tests")],
        "2026-W04": [],  # three again
    }
    assert ROLLUP_OVER == 3


def test_rollup_takes_the_worst_severity_and_lists_worst_first() -> None:
    def risk(pr: int, severity: Severity, lines: int) -> Risk:
        return make_risk(
            RiskKind.CORE_WITHOUT_TESTS, "core_without_tests", severity, [pr], [], lines=lines
        )

    members = [
        risk(1, Severity.LOW, 40),
        risk(2, Severity.HIGH, 600),
        risk(3, Severity.MEDIUM, 120),
        risk(4, Severity.MEDIUM, 300),
    ]
    (rolled,) = roll_up(members)
    assert rolled.severity == Severity.HIGH
    assert rolled.prs == [2, 4, 3, 1]
    assert [m.prs for m in rolled.members] == [[2], [4], [3], [1]]
    assert worst_first(members) == rolled.members


def test_several_risks_of_one_pr_count_as_one_pr() -> None:
    # four dangerous-command risks of the same rule in three PRs: no roll-up
    risks = [
        make_risk(RiskKind.DANGEROUS_COMMAND, "kill_9", Severity.LOW, [pr], [])
        for pr in (1, 1, 2, 3)
    ]
    assert roll_up(risks) == risks


def test_rollups_of_the_zoo(verl_profile: RepoProfile) -> None:
    risks = rollup_risks(verl_profile)
    assert [(r.rule, r.severity, r.prs) for r in risks] == [
        ("failing_checks", Severity.HIGH, [60, 61, 62, 63]),
        ("core_without_tests", Severity.MEDIUM, [63, 62, 61, 60]),
        ("dtype_change", Severity.LOW, [60, 61, 62, 63]),
    ]
    assert all(len(r.members) == 4 for r in risks)
