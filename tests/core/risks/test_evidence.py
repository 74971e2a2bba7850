"""Every evidence line of every risk stands in its PR's patch, at the number it names, on the
side it names: a removed line by its number in the old file, an added or context line by its
number in the new file. Checked against a numbering of the raw patch written here, not the
detectors' own parser."""

from __future__ import annotations

import re

import pytest

from service.core.models import CollectedPeriod, Evidence, PullRequest, Risk, RiskKind
from service.core.profile import RepoProfile
from service.core.risks import detect_risks, secrets
from service.core.risks.base import snippet
from tests.core.risks.helpers import LABELS, earlier_of
from tests.core.risks.zoo import rollup_prs, rollup_risks, zoo_prs, zoo_risks

HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")
Numbered = dict[tuple[str, int], str]


def numbered_lines(patch: str) -> Numbered:
    """(side, number) → text for every line of a unified diff."""
    lines: Numbered = {}
    old = new = 0
    for raw in patch.splitlines():
        header = HUNK.match(raw)
        if header:
            old, new = int(header.group(1)), int(header.group(2))
        elif raw.startswith("+"):
            lines[("added", new)] = raw[1:]
            new += 1
        elif raw.startswith("-"):
            lines[("removed", old)] = raw[1:]
            old += 1
        elif not raw.startswith("\\"):
            lines[("context", new)] = raw[1:]
            old += 1
            new += 1
    return lines


def shown(risk: Risk, text: str) -> str:
    """What the evidence should quote for a line: the line, or for a secret the masked line."""
    if risk.kind == RiskKind.SECRET:
        text = secrets.masked_line(text, [found for _, found in secrets.find_secrets(text)])
    return snippet(text)


def every_risk(risks: list[Risk]) -> list[Risk]:
    return [item for risk in risks for item in (risk, *risk.members)]


def check_line(risk: Risk, found: Evidence, prs: dict[int, PullRequest]) -> None:
    where = f"{risk.kind}.{risk.rule} #{found.pr} {found.path}:{found.line}"
    assert found.pr is not None, where
    assert found.side is not None, where
    assert found.line is not None, where
    assert found.line >= 1, where
    change = next(f for f in prs[found.pr].files if f.path == found.path)
    lines = numbered_lines(change.patch or "")
    assert (found.side.value, found.line) in lines, where
    assert found.snippet == shown(risk, lines[(found.side.value, found.line)]), where


def check_all(risks: list[Risk], prs: dict[int, PullRequest]) -> int:
    checked = 0
    for risk in every_risk(risks):
        for found in risk.evidence:
            if found.line is None:
                assert found.side is None, (risk.kind, risk.rule, found)
                continue
            if risk.kind == RiskKind.OPEN_CONCERNS:
                continue  # a review thread's line on GitHub, quoting the comment, not the diff
            check_line(risk, found, prs)
            checked += 1
    return checked


def test_numbering_of_a_patch() -> None:
    patch = "@@ -10,3 +12,3 @@ def f():\n keep\n-old\n+new\n tail\n\\ No newline at end of file"
    assert numbered_lines(patch) == {
        ("context", 12): "keep",
        ("removed", 11): "old",
        ("added", 13): "new",
        ("context", 14): "tail",
    }


@pytest.mark.parametrize("label", LABELS)
def test_every_evidence_line_of_a_recorded_week_stands_in_the_patch(
    label: str, weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    earlier = earlier_of(weeks, label)
    risks = detect_risks(weeks[label].prs, verl_profile, earlier=earlier)
    prs = {pr.number: pr for pr in (*earlier, *weeks[label].prs)}
    assert check_all(risks, prs) > 0


def test_every_evidence_line_of_the_zoo_stands_in_the_patch(verl_profile: RepoProfile) -> None:
    prs = {pr.number: pr for pr in zoo_prs()}
    assert check_all(zoo_risks(verl_profile), prs) > 0


def test_rollup_members_keep_their_evidence(verl_profile: RepoProfile) -> None:
    risks = rollup_risks(verl_profile)
    assert {r.rule for r in risks if r.members} == {
        "failing_checks",
        "core_without_tests",
        "dtype_change",
    }
    for risk in risks:
        assert [e.pr for e in risk.evidence] == [m.prs[0] for m in risk.members]
        assert all(m.evidence for m in risk.members)
    assert check_all(risks, {pr.number: pr for pr in rollup_prs()}) > 0
