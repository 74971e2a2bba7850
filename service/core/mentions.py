"""What the short report names: its top-PR table, its risk items (risks grouped by kind and
severity, roll-ups kept whole) and a ledger that keeps any PR from being named more than
MENTION_LIMIT times."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from service.core.models import Digest, Risk, RiskKind, Severity
from service.core.models import Model as _Model
from service.core.ranking import SEVERITY_RANK, top_prs

# the short report (Markdown, cards' condensed forms) names a PR at most this many times
MENTION_LIMIT = 5
# rows of the short report's top-PR table (重点 PR 速览)
TOP_TABLE_ROWS = 8
# parameters whose int value is a PR number (renderers link them; the ledger counts them)
PR_PARAM_NAMES = frozenset({"pr", "number", "earlier", "later", "reverted", "original"})
PR_PARAM_SUFFIX = "_pr"
KIND_ORDER = tuple(RiskKind)


class RiskGroup(_Model):
    """One risk item of the short report: the risks of one kind at one severity (a roll-up's
    members included), worst first; each PR is named once in it."""

    kind: RiskKind
    severity: Severity
    risks: list[Risk]

    @property
    def prs(self) -> list[int]:
        return list(dict.fromkeys(n for r in self.risks for n in r.prs))


def leaf_risks(risks: Iterable[Risk]) -> list[Risk]:
    """Every PR's own risk: a roll-up's members in place of the roll-up."""
    return [leaf for risk in risks for leaf in (risk.members or [risk])]


def risk_groups(risks: list[Risk]) -> list[RiskGroup]:
    """Risks by (kind, severity of the item they stand in), most severe first, then the larger
    group, then kind order; inside a group the order of `risks` (detectors put the worst first)."""
    groups: dict[tuple[RiskKind, Severity], list[Risk]] = {}
    for risk in risks:
        groups.setdefault((risk.kind, risk.severity), []).extend(risk.members or [risk])
    ordered = sorted(
        groups.items(),
        key=lambda item: (SEVERITY_RANK[item[0][1]], -len(item[1]), KIND_ORDER.index(item[0][0])),
    )
    return [RiskGroup(kind=k, severity=s, risks=members) for (k, s), members in ordered]


def top_table(digest: Digest) -> list[int]:
    """The PRs of the top-PR table: the most important first (digest.prs is sorted)."""
    return [p.number for p in top_prs(digest, TOP_TABLE_ROWS)]


class MentionLedger:
    """How often the short report names each PR so far; `take` grants mentions while a PR stays
    within MENTION_LIMIT."""

    def __init__(self, limit: int = MENTION_LIMIT) -> None:
        self.limit = limit
        self.counts: Counter[int] = Counter()

    def add(self, numbers: Iterable[int]) -> None:
        """Mentions the report makes whatever the budget (the table, the risk items)."""
        self.counts.update(dict.fromkeys(numbers, 1))

    def left(self, number: int) -> int:
        return self.limit - self.counts[number]

    def take(self, numbers: Iterable[int], most: int | None = None) -> list[int]:
        """The first `most` of `numbers` that may still be named (each once), now counted."""
        granted = [n for n in dict.fromkeys(numbers) if self.left(n) > 0][:most]
        self.add(granted)
        return granted


def fixed_ledger(digest: Digest) -> MentionLedger:
    """A ledger holding the mentions of the sections that always name their PRs: the top-PR
    table and the risk items (one per PR in each group; a follow-up also names the earlier PR)."""
    ledger = MentionLedger()
    ledger.add(top_table(digest))
    for group in risk_groups(digest.risks):
        ledger.add(group.prs)
        ledger.add(earlier_prs(group.risks))
    return ledger


def is_pr_param(name: str) -> bool:
    """Whether a parameter of that name holds a PR number."""
    return name in PR_PARAM_NAMES or name.endswith(PR_PARAM_SUFFIX)


def earlier_prs(risks: list[Risk]) -> list[int]:
    """PRs a risk's sentence names besides its own (a follow-up's earlier PR)."""
    return list(
        dict.fromkeys(
            value
            for r in risks
            for name, value in r.params.items()
            if is_pr_param(name) and isinstance(value, int) and value not in r.prs
        )
    )
