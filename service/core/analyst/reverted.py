"""What became of a change within the period, which a sentence about it must not hide:
- a PR a later PR of the period reverts, told without the revert ("#6350 makes the
  use_remove_padding=False branch emit top-k outputs" when #6360 reverts it), unless a still
  later PR brings the change back;
- a revert told without the later PR that brings the change back ("the FLOPS correction of
  #4929 was undone by #4937" when #4959 applies it again): the change is in effect at the
  period's end.
A PR brings a change back when it comes after the revert and refers to either PR (a relation of
the digest), repeats most of the reverted PR's added lines, or is titled as it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.core.analyst import claims
from service.core.analyst.evidence import PeriodEvidence
from service.core.analyst.glossary import glossary

# "was undone by": the glossary's revert words hold "undoes", "undid", "backed out" already
_UNDONE = re.compile(r"\bundo(?:ne)?\b", re.IGNORECASE)
# what a revert left, or what to do about it: "因此未能保留", "moved backwards", "建议重新提交"
_END_TOLD = re.compile(
    r"因此|未能|没能|不再|至今|期末|最终|告终|重新提交|重新合入|仍需|尚未|建议"
    r"|\b(?:so|therefore|no longer|backwards|still|remains?|stays?|resubmit\w*|re-?lands?"
    r"|yet to|pending|should|consider)\b",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[a-z0-9]+")
_TITLE_PREFIX = re.compile(r"^\s*(?:\[[^\]]*\]\s*)*(?:\w+(?:\([^)]*\))?!?:\s*)?")
_STOP = frozenset({"the", "and", "for", "with", "from", "into", "in", "of", "to", "on", "py"})
SHARED_TITLE = 0.6  # share of the reverted PR's title words a re-landing PR's title holds
SHARED_LINES = 0.5  # share of its added lines a re-landing PR adds again
MIN_LINE = 8  # shorter added lines (a bracket, `else:`) tell nothing
MAX_NAMED = 2  # a sentence naming more PRs is a list, not the story of one


def reverted_reasons(text: str, cited: Sequence[int], evidence: PeriodEvidence) -> list[str]:
    """The reasons a sentence hides what became of a change it tells (empty: it hides none)."""
    named = list(dict.fromkeys([*claims.pr_refs(text), *cited]))
    revert_said = glossary().relations["revert"].search(text) or _UNDONE.search(text)
    reasons = []
    for relation in evidence.relations:
        earlier, later = relation.earlier, relation.later
        if relation.rule != "revert" or earlier not in named:
            continue
        back = _brought_back(earlier, later, evidence)
        if later in named or revert_said:
            if back is not None and back not in named and _END_TOLD.search(text):
                reasons.append(f"relanded: #{back} brings #{earlier} back after #{later}")
        elif (
            back is None and named[0] == earlier and len(named) <= MAX_NAMED and _tells_change(text)
        ):
            reasons.append(f"reverted: #{later} reverts #{earlier} later in the period")
    return reasons


# a PR's size alone ("#4221 新增 120 行、删除 8 行，涉及 3 个文件"): its figures, not its effect
_SIZE_WORDS = re.compile(
    r"#\d+|[\d,.]+|新增|删除|涉及|改动|个文件|文件|行|\b(?:adds?|deletes?|changes?|touches|"
    r"across|lines?|files?|and|in|of|with)\b|[\s,，、.。;；:：()（）]",
    re.IGNORECASE,
)


def _tells_change(text: str) -> bool:
    """The sentence tells what a change does, not only how large it is."""
    return bool(_SIZE_WORDS.sub("", text).strip())


def _brought_back(earlier: int, revert: int, evidence: PeriodEvidence) -> int | None:
    """The PR after `revert` that brings `earlier`'s change back, if any."""
    first, undo = evidence.collected.get(earlier), evidence.collected.get(revert)
    if first is None or undo is None:
        return None
    # a revert of the revert brings it back; other reverts bring nothing back
    reverts = {r.later for r in evidence.relations if r.rule == "revert" and r.earlier != revert}
    referring = {
        r.later
        for r in evidence.relations
        if r.earlier in (earlier, revert) and r.later not in (earlier, revert)
    } - reverts
    lines = _added_lines(earlier, evidence)
    paths = {f.path for f in first.files}
    for number, pr in sorted(evidence.collected.items(), key=lambda item: item[1].merged_at):
        if pr.merged_at <= undo.merged_at or number in (earlier, revert) or number in reverts:
            continue
        if number in referring or _same_title(first.title, pr.title):
            return number
        # the lines are compared only for a PR changing a file the reverted one changed
        if lines and paths & {f.path for f in pr.files}:
            again = _added_lines(number, evidence)
            if len(lines & again) >= SHARED_LINES * len(lines):
                return number
    return None


def _same_title(reverted: str, later: str) -> bool:
    """The later title holds most of the reverted one's words ("support resource pool split
    method" and "support resource_pool split")."""
    words = _words(reverted)
    return bool(words) and len(words & _words(later)) >= SHARED_TITLE * len(words)


def _words(title: str) -> set[str]:
    plain = _TITLE_PREFIX.sub("", title.lower())
    return {w for w in _TOKEN.findall(plain) if len(w) > 1 and w not in _STOP}


def _added_lines(number: int, evidence: PeriodEvidence) -> set[str]:
    pr = evidence.pr(number)
    if pr is None:
        return set()
    return {line.strip() for line in pr.changed[1] if len(line.strip()) >= MIN_LINE}
