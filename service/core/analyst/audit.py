"""Every sentence of a model's answer with the checker's verdict: kept, or dropped and why (what
`verl-week analyst-check` prints). The verdicts are the checker's own (`check_answer`, as the
narrator calls it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from service.core.analyst.checker import Checker, check_answer, grounds
from service.core.analyst.facts import PeriodFacts
from service.core.analyst.schema import Draft


@dataclass(frozen=True)
class Verdict:
    """One item of the answer: where it stands (`summary[2]`), its text, the PRs it rests on,
    and the reasons it was dropped (empty: kept). `empty` items claim nothing and are skipped."""

    where: str
    text: str
    prs: tuple[int, ...]
    reasons: tuple[str, ...] = ()
    empty: bool = False
    grounds: tuple[str, ...] = ()  # for a kept one: the quotes and value claims that held

    @property
    def kept(self) -> bool:
        return not self.reasons and not self.empty


def audit_answer(drafts: Sequence[Draft], facts: PeriodFacts) -> list[Verdict]:
    """Each draft in answer order with the checker's verdict on it, from one checker pass (so
    limits and duplicates count exactly as in the whole answer, and a long answer costs time
    linear in its drafts)."""
    outcomes: list[str] = []
    analysis = check_answer(
        drafts, facts, model="analyst-check", prompt_version="-", outcomes=outcomes
    )
    dropped = iter(analysis.dropped)  # in draft order, one per dropped draft
    counts: dict[str, int] = {}
    checker = Checker(facts)
    out = []
    for draft, outcome in zip(drafts, outcomes, strict=True):
        index = counts.get(draft.section, 0)
        counts[draft.section] = index + 1
        where = draft.section if draft.section == "headline" else f"{draft.section}[{index}]"
        shown = f"{draft.theme}: {draft.text}" if draft.theme else draft.text
        if outcome == "dropped":
            out.append(Verdict(where, shown, draft.prs, tuple(next(dropped).reasons)))
        elif outcome == "empty":
            out.append(Verdict(where, shown, draft.prs, empty=True))
        else:
            out.append(Verdict(where, shown, draft.prs, grounds=tuple(grounds(draft, checker))))
    return out
