"""Order in time: "#A 先…，#B 随后…", "#A adds X, and #B then …", "after #A, #B …", "#B later
rewrote the code #A had added" tell which PR merged first, and the PRs' merge times must agree.
A PR told as the later one must have merged after every other PR of the sentence it is not
listed with (or one told as the earlier, before): a sentence may order more PRs than two, and
the one it compares with is not always the nearest."""

from __future__ import annotations

import re
from collections.abc import Iterator

from service.core.analyst import claims
from service.core.analyst.evidence import PeriodEvidence

# right after a PR: it is the later one ("#5631 随后…", "#4282 then restored"); not a passive
# ("#A 随后被 #B 撤销": the event is #B's)
_LATER_AFTER = re.compile(
    r"\s*(?:则|也|又|再)?\s*(?:随后|然后|接着|继而|此后|后来|紧接着)(?!\s*(?:被|由))"
    r"|(?:\s*,)?\s+(?:then|later|subsequently|afterwards)\b(?!\s+(?:by|reverted|rewritten))",
    re.IGNORECASE,
)
# "#4067's multi-turn support … later rewrote": the adverb a few words on, in the same clause
_LATER_FAR = re.compile(
    r"(?:'s)?[^#,，;；。.!?]{0,80}?\s(?:later|subsequently)\s+(?!by\b)[a-z]+", re.IGNORECASE
)
# right before a PR: it is the later one ("随后 #6265", "followed by #4282", "before #B")
_LATER_BEFORE = re.compile(
    r"(?:随后|然后|接着|此后|后来|\bthen|\blater|\bfollowed by|\bbefore)\s*(?:由|被|by)?\s*$",
    re.IGNORECASE,
)
# right after a PR: it is the earlier one ("#6269 先把…", "#A 之后，#B", "#A first")
_EARLIER_AFTER = re.compile(
    r"\s*(?:首先|率先|先|(?:合并)?\s*(?:之后|以后))|\s+first\b", re.IGNORECASE
)
# "after #A, #B …", "following #A"
_EARLIER_BEFORE = re.compile(r"\b(?:after|following)\s*$", re.IGNORECASE)
# "#4956 修正了 #4976 中…的笔误", "#A fixes #B's regression": what is fixed merged before
_FIXED_BEFORE = re.compile(r"(?:修复了?|修正了?|\bfix(?:es|ed)?)\s*$", re.IGNORECASE)
_FIXED_AFTER = re.compile(
    r"\s*(?:中|里|所?引入|的(?:笔误|错误|问题|缺陷|回归))"
    r"|'s\s+(?:bug|regression|typo|error|breakage)|\s+(?:had\s+)?introduced\b",
    re.IGNORECASE,
)
# "after #A had moved it", "在 #A 已经…之后": the earlier event told as done before the other
_HAD_DONE = re.compile(r"\s+(?:had|already had)\b|\s*(?:已经?|早已)", re.IGNORECASE)
_LISTED = re.compile(r"\s*(?:与|和|及|以及|、|,|，|\band\b|&)\s*", re.IGNORECASE)
_CLAUSE = re.compile(r"[，,;；。]")
_LISTED_IN_CLAUSE = re.compile(r"\s*(?:与|和|及|以及|、|\band\b|&)\s*", re.IGNORECASE)


def _marks(text: str, spans: list[tuple[int, int, int]]) -> Iterator[tuple[int, bool, bool]]:
    """Each PR (by its index in `spans`) a word tells as the later (True) or the earlier one,
    and whether it is compared with PRs of other clauses only ("after #A, #B …": #A's own
    clause tells what #A did)."""
    for index, (start, end, _number) in enumerate(spans):
        before = text[max(0, start - 16) : start]
        stop = spans[index + 1][0] if index + 1 < len(spans) else len(text)
        near = _LATER_AFTER.match(text, end) or _LATER_BEFORE.search(before)
        if near or _LATER_FAR.match(text[:stop], end):
            yield index, True, False
        elif _EARLIER_AFTER.match(text, end):
            yield index, False, False
        elif _EARLIER_BEFORE.search(before):
            # "#B slimmed the CI after #A had moved it": compared with the PR before it in its
            # clause; "after #A, #B …" and "X still holds after #A": with those of the other
            # clauses (or none)
            prior = index > 0 and not _CLAUSE.search(text[spans[index - 1][1] : start])
            yield index, False, not (prior and _HAD_DONE.match(text, end))
        elif _FIXED_BEFORE.search(before) and _FIXED_AFTER.match(text, end):
            yield index, False, False


def _between(text: str, one: tuple[int, int, int], other: tuple[int, int, int]) -> str:
    first, second = sorted((one, other))
    return text[first[1] : second[0]]


def _listed(text: str, spans: list[tuple[int, int, int]], at: int, apart: bool) -> set[int]:
    """The indexes of the PRs listed with the one at `at` ("#A、#B 与 #C"; "after #A, #B":
    a comma ends the clause of #A)."""
    listed = _LISTED_IN_CLAUSE if apart else _LISTED
    group = {at}
    for step in (-1, 1):
        i = at
        while 0 <= i + step < len(spans) and listed.fullmatch(
            _between(text, spans[i], spans[i + step])
        ):
            i += step
            group.add(i)
    return group


def _others(text: str, spans: list[tuple[int, int, int]], at: int, apart: bool) -> set[int]:
    """The PRs the one at `at` is compared with: not those listed with it, and only those of
    other clauses when `apart`."""
    group = _listed(text, spans, at, apart)
    return {
        span[2]
        for i, span in enumerate(spans)
        if i not in group
        and span[2] != spans[at][2]
        and (not apart or _CLAUSE.search(_between(text, spans[at], span)))
    }


def order_reasons(text: str, evidence: PeriodEvidence) -> list[str]:
    """Each PR told as merged after (or before) the others that merged before (after) all."""
    spans = claims.pr_spans(text)
    reasons = []
    for at, later, apart in _marks(text, spans):
        number = spans[at][2]
        mine = evidence.scored.get(number)
        others = [evidence.scored.get(n) for n in _others(text, spans, at, apart)]
        times = [o.merged_at for o in others if o is not None]
        if mine is None or not times:
            continue
        wrong = (
            all(t > mine.merged_at for t in times)
            if later
            else all(t < mine.merged_at for t in times)
        )
        if wrong:
            told = "after" if later else "before"
            reasons.append(f"order: #{number} is told as merged {told} the others, it was not")
    return reasons
