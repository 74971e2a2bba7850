"""Sentences the rules could not confirm, judged by the verifier instead of deleted (issue 26).

A rule says one of two things of a sentence: that it CONTRADICTS the data (a value on the wrong
side of a change, a default that disagrees with `config_changes`, a count the week's figures
deny, a relation the digest never found, a name the sentence tells as new that a removed line
defines), or only that it could not CONFIRM it (a name, figure, entity, action or default its
word search did not find in the cited PRs' data). On text the rules were not tuned to, the
second kind deletes true sentences: a version in a changed line's context, a default stated
beside a setting the search did not tie it to, a word of the body the rule's list lacks.

When a verifier is configured, a sentence whose every reason is of the second kind goes to the
verifier with the kept ones; it is restored only when judged entailed (and the section still
has room), otherwise it stays in the audit list with the verifier's reason added. A verifier
that fails restores nothing. Without a verifier nothing changes: the rules alone decide.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from service.core.analyst.injection import masked
from service.core.analyst.schema import LIMITS, Draft
from service.core.analyst.verdicts import (
    Judgement,
    Sentence,
    quotes_of,
    verifier_reason,
)
from service.core.models import Analysis, AnalysisItem, DroppedSentence

# the reasons that only say "not found" (the wording of the rules that write them:
# grounding.py, figure_rule.py, quoted.py, checker._identifier_rule, sentence_claims)
_UNCONFIRMED = tuple(
    re.compile(pattern)
    for pattern in (
        r"entity: [^()]*$",  # not "(the PR is about another of its kind)": that one contradicts
        r"action: .*\((?:.* show no \w+|.* on neither side of .*, and its words tell no \w+)\)$",
        r"default: .*\((?:no changed line of .* gives .* the default .*"
        r"|#\d+ changes no setting's value and its words tell no default)\)$",
        r"failure: ",
        r"figure: ",
        r"figure \S+: not in the quotes",
        r"identifier: ",
        r"identifier \S+: not in the quotes nor",
        r"comparison: no earlier figure for ",
        r"file value \S+: not found on changed lines of ",
    )
)
# an action that tells a relation (reverts, restores, backs out) needs the relation the digest
# found: its absence contradicts, as the relation rule's does
_RELATION_ACTION = re.compile(
    r"action: (?:\S*(?:恢复|回退|撤销|还原|回滚)|(?:restor|revert|back(?:s|ed)? out|roll))"
    r"|action: .*show no revert\)$",
    re.IGNORECASE,
)


def unconfirmed(reason: str) -> bool:
    """Whether `reason` only says the rules did not find what the sentence claims."""
    if _RELATION_ACTION.match(reason):
        return False
    return any(pattern.match(reason) for pattern in _UNCONFIRMED)


def deferrable(reasons: Sequence[str]) -> bool:
    """Whether a dropped sentence is one for the verifier: every reason is unconfirmed."""
    return bool(reasons) and all(unconfirmed(reason) for reason in reasons)


def _normal(draft: Draft) -> Draft:
    """The draft as the checker reads it (check_answer): spaces folded, theme stripped."""
    text = draft.text.strip() if "\n" in draft.text else " ".join(draft.text.split())
    return replace(draft, text=text, theme=draft.theme.strip())


def _drafts_by_text(drafts: Sequence[Draft]) -> dict[tuple[str, str], Draft]:
    """Each draft (as the checker reads it) by its section and its text as the audit list
    shows it (a key change with its theme, secrets masked)."""
    out: dict[tuple[str, str], Draft] = {}
    for draft in map(_normal, drafts):
        shown = f"{draft.theme}: {draft.text}" if draft.theme else draft.text
        out.setdefault((draft.section, masked(shown)), draft)
    return out


def deferred_sentences(
    analysis: Analysis, drafts: Sequence[Draft], first_id: int
) -> list[Sentence]:
    """The dropped sentences of `analysis` whose reasons are all unconfirmed, numbered from
    `first_id`; `index` is the sentence's place in `analysis.dropped`."""
    by_text = _drafts_by_text(drafts)
    out: list[Sentence] = []
    for index, dropped in enumerate(analysis.dropped):
        found = by_text.get((dropped.section, dropped.text))
        if found is None or not deferrable(dropped.reasons):
            continue
        out.append(
            Sentence(
                id=first_id + len(out),
                section=dropped.section,
                index=index,
                text=dropped.text,
                prs=tuple(dropped.prs),
                quotes=quotes_of(found),
            )
        )
    return out


def _has_room(analysis: Analysis, item: AnalysisItem, section: str) -> bool:
    if section == "headline":
        return analysis.headline is None
    items: list[AnalysisItem] = getattr(analysis, section)
    if len(items) >= LIMITS[section]:
        return False
    points = {i.prs[0] for i in items if i.prs}
    return not (section == "pr_points" and item.prs and item.prs[0] in points)


def _order(items: list[AnalysisItem], section: str, drafts: Sequence[Draft]) -> list[AnalysisItem]:
    """`items` in the answer's order (a restored one back where the model wrote it)."""
    where = {(d.section, d.text): n for n, d in enumerate(map(_normal, drafts))}
    return sorted(items, key=lambda i: where.get((section, i.text), len(where)))


def restored(
    analysis: Analysis,
    deferred: Sequence[Sentence],
    judged: dict[int, Judgement],
    drafts: Sequence[Draft],
) -> Analysis:
    """`analysis` with each deferred sentence the verifier judged entailed back in its section
    (while it has room), and the verifier's reason added to each one it refused; an unjudged
    one stays dropped as the rules left it."""
    by_text = _drafts_by_text(drafts)
    dropped: list[DroppedSentence | None] = list(analysis.dropped)
    for sentence in deferred:
        judgement = judged.get(sentence.id)
        entry = analysis.dropped[sentence.index]
        if judgement is None:
            continue
        if not judgement.entailed:
            reasons = [*entry.reasons, verifier_reason(judgement)]
            dropped[sentence.index] = entry.model_copy(update={"reasons": reasons})
            continue
        draft = by_text[(entry.section, entry.text)]
        item = AnalysisItem(text=draft.text, prs=list(draft.prs), theme=draft.theme)
        if not _has_room(analysis, item, entry.section):
            continue
        analysis = _with_item(analysis, item, entry.section, drafts)
        dropped[sentence.index] = None
    kept = [d for d in dropped if d is not None]
    return analysis.model_copy(update={"dropped": kept})


def _with_item(
    analysis: Analysis, item: AnalysisItem, section: str, drafts: Sequence[Draft]
) -> Analysis:
    if section == "headline":
        return analysis.model_copy(update={"headline": item})
    items = _order([*getattr(analysis, section), item], section, drafts)
    return analysis.model_copy(update={section: items})
