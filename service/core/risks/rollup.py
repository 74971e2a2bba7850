"""Roll-ups: a rule that fires on more than ROLLUP_OVER PRs of the week becomes one risk.

The roll-up keeps each PR's own risk in `members`, worst first (severity, then size: lines,
count, files), lists the PRs in that order and takes the worst member's severity; its evidence
is the first piece of each member's, each naming its PR. Every surface (report, cards, the
`risks` command) reads `detect_risks`, so they all see the same single item.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from service.core.models import Risk, RiskKind
from service.core.ranking import SEVERITY_RANK
from service.core.risks.base import MAX_EVIDENCE

ROLLUP_OVER = 3
SIZE_PARAMS = ("lines", "count", "files")


def _size(risk: Risk, name: str) -> float:
    value = risk.params.get(name, 0)
    return float(value) if isinstance(value, int | float) else 0.0


def worst_first(risks: Iterable[Risk]) -> list[Risk]:
    """Severity first, then the bigger change, then the PR number."""
    return sorted(
        risks,
        key=lambda r: (
            SEVERITY_RANK[r.severity],
            *(-_size(r, name) for name in SIZE_PARAMS),
            r.prs[0] if r.prs else 0,
        ),
    )


def _rolled(members: list[Risk]) -> Risk:
    ordered = worst_first(members)
    first = ordered[0]
    prs = list(dict.fromkeys(n for member in ordered for n in member.prs))
    flagged = list(dict.fromkeys(member.prs[0] for member in ordered if member.prs))
    verdicts = [m.verified for m in ordered if m.verified is not None]
    return Risk(
        kind=first.kind,
        rule=first.rule,
        severity=first.severity,
        prs=prs,
        evidence=[m.evidence[0] for m in ordered if m.evidence][:MAX_EVIDENCE],
        params={"count": len(flagged), "items": len(ordered)},
        verified=all(verdicts) if verdicts else None,
        members=ordered,
    )


def roll_up(risks: Iterable[Risk]) -> list[Risk]:
    """The risks with every rule that fires on more than ROLLUP_OVER PRs folded into one."""
    groups: dict[tuple[RiskKind, str], list[Risk]] = defaultdict(list)
    for risk in risks:
        groups[(risk.kind, risk.rule)].append(risk)
    out: list[Risk] = []
    for members in groups.values():
        flagged = {member.prs[0] for member in members if member.prs}
        out.extend([_rolled(members)] if len(flagged) > ROLLUP_OVER else members)
    return out
