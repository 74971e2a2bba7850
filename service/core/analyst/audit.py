"""Every sentence of a model's answer with the checker's verdict: kept, or dropped and why (what
`verl-week analyst-check` prints). The verdicts are the checker's own (`check_answer`, as the
narrator calls it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from service.core.analyst.checker import Checker, check_answer, grounds
from service.core.analyst.facts import WeekFacts
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


def _normal(text: str) -> str:
    """The text as the checker reads it (one line unless the model broke it)."""
    return " ".join(text.split()) if "\n" not in text else text.strip()


def audit_answer(drafts: Sequence[Draft], facts: WeekFacts) -> list[Verdict]:
    """Each draft in answer order with the checker's verdict on it: the answer up to that
    draft is checked, so limits and duplicates count exactly as in the whole answer (an answer
    has a few dozen items; a checker run over them costs milliseconds)."""
    counts: dict[str, int] = {}
    checker = Checker(facts)
    dropped_before = 0
    out = []
    for end, draft in enumerate(drafts, 1):
        index = counts.get(draft.section, 0)
        counts[draft.section] = index + 1
        where = draft.section if draft.section == "headline" else f"{draft.section}[{index}]"
        shown = f"{draft.theme}: {draft.text}" if draft.theme else draft.text
        if not _normal(draft.text):
            out.append(Verdict(where, shown, draft.prs, empty=True))
            continue
        analysis = check_answer(drafts[:end], facts, model="analyst-check", prompt_version="-")
        reasons = analysis.dropped[dropped_before:]
        dropped_before = len(analysis.dropped)
        if reasons:
            out.append(Verdict(where, shown, draft.prs, tuple(reasons[0].reasons)))
        else:
            held = tuple(grounds(draft, checker))
            out.append(Verdict(where, shown, draft.prs, grounds=held))
    return out
