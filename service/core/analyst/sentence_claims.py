"""The claims a sentence makes as a whole, grounded in the week's evidence (see evidence.py):
- relation: "#A reverts / follows up / replaces / breaks #B" is a relation the digest found;
- comparison: "more than last week" needs the earlier week's count of what it names, in the
  same direction, with the figures and ratio said;
- absence and universal claims ("no vLLM changes this week", "removes all GPU support") must
  hold of the week's PRs, or are not taken on trust (but for "both" or "all three" of the PRs
  the sentence cites);
- authorship and review claims need the author or a review on record.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from service.core.analyst import claims
from service.core.analyst.evidence import PeriodEvidence, PREvidence
from service.core.analyst.glossary import Glossary, glossary
from service.core.analyst.grounding import found_in

# "#A 是对 #B 的后续修复": the relation word may follow the second PR
RELATION_TAIL = 8
# "#A reverts the BF16 change of #B": a relation word this close before the second PR
RELATION_REACH = 32
ADVICE_REACH = 12  # "建议排期跟进", "should follow up": advice, not a relation
# a relation word before one of these, between two PRs, belongs to the clause before
_CLAUSE_BREAK = re.compile(r"[，,;；。]|以及|\band\b|\bwhile\b|随后|然后")
_TAIL_END = re.compile(r"[，,;；。]")
_JOINED = re.compile(r"\s*(?:与|和|及|以及|、|,|，|and|&)\s*", re.IGNORECASE)
_PASSIVE = re.compile(r"(?:\bby\b|被|由)\s*$", re.IGNORECASE)
_CJK_VERB_START = re.compile(r"\s*[\u4e00-\u9fff]")
_ZH_PASSIVE = re.compile(r"(?:被|由)\s*$")
# "#A 修复了 #B 新增的脚本": what #B added is the object, so the verb before #B relates the two
_ADDED_BY = re.compile(r"(?:新增|引入|添加|加入|带来)的")
_WEEK_BUCKETS = ("modules", "categories", "types", "labels")


_APPOSITIVE_BEFORE = re.compile(r"[,，]\s*$")
_APPOSITIVE_AFTER = re.compile(r"\s+(?:on|in|at|merged|landed)\b", re.IGNORECASE)
_APPOSITIVE_PR = re.compile(r"\s+(?:(?:from|in|of|by)\s+)?#\d+\b", re.IGNORECASE)
_WORDS_AFTER = re.compile(r"(?:\s+[\w-]+){1,3}")


def relation_reasons(text: str, cited: Sequence[int], evidence: PeriodEvidence) -> list[str]:
    """`#A <relation> #B` (or `#B <passive relation> by #A`) must be a relation the digest
    found; a relation word on one PR needs that PR to be a revert or follow-up."""
    words = glossary()
    spans = claims.pr_spans(text)
    reasons = []
    paired = _respectively(text, spans, words)
    if paired is not None:
        kind, verb, pairs = paired
        return [
            f"relation: #{later} {verb} #{earlier}"
            for later, earlier in pairs
            if not _related(kind, later, earlier, evidence)
        ]
    for (_s1, e1, first), (s2, e2, second) in itertools.pairwise(spans):
        if first != second:  # "…被 #4976 改写，…应以 #4976 的实现为准": no PR relates to itself
            reasons += _pair_reasons(text, (e1, first), (s2, e2, second), evidence, words)
    if len(spans) == 1:
        reasons += _single_relation(text, spans[0], evidence)
    return reasons + _unnamed_earlier(text, cited, evidence)


def _pair_reasons(
    text: str,
    before: tuple[int, int],
    after: tuple[int, int, int],
    evidence: PeriodEvidence,
    words: Glossary,
) -> list[str]:
    """The relations a sentence tells between two PRs it names one after the other (`before`:
    the first's end and number; `after`: the second's span and number)."""
    (e1, first), (s2, e2, second) = before, after
    # "被 #4976 改写，依赖该指标的用户": the tail ends with the clause
    tail = _TAIL_END.split(text[e2 : e2 + RELATION_TAIL], maxsplit=1)[0].lstrip()
    core = text[e1:s2]
    if not _leads_with_relation(core, words):
        core = core[-RELATION_REACH:]
    # "#A 是对 #B 的后续修复": the tail tells what #A is to #B; "#A 与 #B 的破坏性重构": two
    # PRs joined tell a thing of both, no relation between them
    joined = _JOINED.fullmatch(core) is not None
    # "#A 的新增行被 #B 改写": after a passive mark the verb follows the second PR
    passive_before = _PASSIVE.search(core) is not None
    if passive_before and _MODIFIES_NEXT.match(text, e2) is not None:
        return []  # "#A 恢复了被 #B 撤销的 #C": #B's relation is to #C, not to #A
    told_after = (
        tail.startswith("的")
        or (passive_before and _CJK_VERB_START.match(tail))
        or _ADDED_BY.match(tail) is not None
    )
    between = core + (" " + tail if told_after and not joined else "")
    reasons = []
    for kind, pattern in words.relations.items():
        found = pattern.search(between)
        if found is None or _CLAUSE_BREAK.search(core, found.end()):
            continue  # "#A 被 #B 撤销，随后 #C …": the word is said of the PRs before
        if _ZH_PASSIVE.search(core) and found.end() <= len(core):
            continue  # "被 #B 撤销后由 #C 修复": 撤销 is #B's; #C's verb follows it
        if _new_subject(text[e1 : s2 - len(core) + min(found.start(), len(core))]):
            continue  # "#4282, as the earlier features were reverted by #4258": not #4282
        passive = (
            passive_before
            or _named_after(text, e1, s2)
            or _agent_after(core, found.start(), found.end())
        )
        later, earlier = (second, first) if passive else (first, second)
        if not _related(kind, later, earlier, evidence):
            reasons.append(f"relation: #{later} {found.group(0)} #{earlier}")
        elif kind == "rewrites":
            reasons += _rewrote_other_lines(text[e1:s2], later, earlier, evidence)
    return reasons


LEAD_REACH = 12  # "#A reworks the metrics first added in #B": the verb right after #A


def _leads_with_relation(between: str, words: Glossary) -> bool:
    """The words between two PRs open with a relation verb of the first and hold no clause
    break: the verb relates them however far apart they stand."""
    if _CLAUSE_BREAK.search(between):
        return False
    return any(
        (found := pattern.search(between)) is not None and found.start() <= LEAD_REACH
        for pattern in words.relations.values()
    )


def _unnamed_earlier(text: str, cited: Sequence[int], evidence: PeriodEvidence) -> list[str]:
    """ "fixes a bug an earlier PR introduced": a cited PR rewrites, fixes or reverts an
    earlier PR the digest found."""
    found = glossary().word("earlier_pr").search(text)
    if found is None or any(r.later in cited for r in evidence.relations):
        return []
    return [f"relation: {found.group(0)} (no earlier PR of a cited one was found)"]


# "blockwise FP8 rollout (#3519), its MoE follow-up (#4222)": the relation noun names the
# bracketed PR after it, and "its" points back to the PR before
_POSSESSIVE_NOUN = re.compile(r"\s*\)?\s*[,，]\s*(?:(?:its|their)\s|其|它的)", re.IGNORECASE)


# a clause of its own before the relation word, with a subject of its own ("as the earlier
# split features were"), not a relative clause of the PR before ("which was")
_OWN_SUBJECT = re.compile(
    r"[，,;；]\s*(?:(?:as|since|because|while|when|where)\s+)?(?:the|a|an|these|those)\s+\w+"
    r"[^，,;；]*$",
    re.IGNORECASE,
)


# "被 #B 撤销的 #C": a passive relative clause whose head is the PR right after it
_MODIFIES_NEXT = re.compile(r"\s*[\u4e00-\u9fff]{1,6}的\s*#\d+")
# "…，并确认与随后改写这些脚本的 #B": in a clause of its own, a relation verb with its object
# and 的 before #B is #B's ("#B, which rewrote these scripts"); "#A 撤销的 #B" stays #A's
# "#A 修复 #B 及撤销它的 #C": a relative clause joined after the PR before
_JOINED_BEFORE = re.compile(r"(?:及|以及|和|与|并)\s*$")
_OBJECT_THEN_OF = re.compile(r"\S[^，,;；。]*的\s*$")


def _agent_after(core: str, start: int, end: int) -> bool:
    """The relation word at `core[start:end]` (the words between two PRs) opens a relative
    clause naming the second PR as the one that did it."""
    opened = _CLAUSE_BREAK.search(core[:start]) or _JOINED_BEFORE.search(core[:start])
    if start > len(core) or not opened:
        return False
    return _OBJECT_THEN_OF.match(core, end) is not None


def _new_subject(before: str) -> bool:
    """The words before a relation word, after the first PR, open a clause with its own
    subject: the relation is said of that subject, not of the PR."""
    return _OWN_SUBJECT.search(before) is not None


def _named_after(text: str, end: int, start: int) -> bool:
    """The words between two PRs (`text[end:start]`) are a noun phrase naming the second,
    bracketed one, as the first one's relation ("(#A), its follow-up (#B)": #B follows #A)."""
    bracketed = start > 0 and text[start - 1] in "(（"
    return bracketed and _POSSESSIVE_NOUN.match(text, end, start) is not None


_BY_AFTER = re.compile(r"\s*(?:\bby\b|被|由)", re.IGNORECASE)
_RESPECTIVELY = re.compile(r"\brespectively\b|分别", re.IGNORECASE)


def _respectively(
    text: str, spans: list[tuple[int, int, int]], words: Glossary
) -> tuple[str, str, list[tuple[int, int]]] | None:
    """ "#A and #B revert #C and #D respectively", "#C and #D were reverted by #A and #B":
    (relation, its word, the pairs A-C, B-D); two lists of two or more PRs around a relation
    word are paired in order even without "respectively"."""
    respectively = _RESPECTIVELY.search(text) is not None
    for kind, pattern in words.relations.items():
        for found in pattern.finditer(text):
            before = [n for s, _e, n in spans if s < found.start()]
            after = [n for s, _e, n in spans if s > found.start()]
            if not respectively:
                before, after = _lists_around(text, spans, found.start())
                if before and _TAIL_END.search(text, spans_end(spans, before), found.start()):
                    continue  # "#A and #B, as the earlier features were reverted by #C and #D"
            if (respectively or len(before) > 1) and before and len(before) == len(after):
                pairs = list(zip(before, after, strict=True))
                if _BY_AFTER.match(text, found.end()):  # "were reverted by"
                    pairs = [(b, a) for a, b in pairs]
                return kind, found.group(0), pairs
    return None


def spans_end(spans: list[tuple[int, int, int]], numbers: list[int]) -> int:
    """Where the last of `numbers` is referred to."""
    return max(e for _s, e, n in spans if n in numbers)


def _lists_around(
    text: str, spans: list[tuple[int, int, int]], at: int
) -> tuple[list[int], list[int]]:
    """The PRs listed right before `at` ("#A, #B and #C were …") and right after it."""
    before = [i for i, s in enumerate(spans) if s[0] < at]
    after = [i for i, s in enumerate(spans) if s[0] > at]

    def grow(indexes: list[int], step: int) -> list[int]:
        if not indexes:
            return []
        group = [indexes[0]]
        while 0 <= group[-1] + step < len(spans) and group[-1] + step in indexes:
            one, other = sorted((spans[group[-1]], spans[group[-1] + step]))
            if not _JOINED.fullmatch(text[one[1] : other[0]]):
                break
            group.append(group[-1] + step)
        return [spans[i][2] for i in sorted(group)]

    return grow(before[::-1], -1), grow(after, 1)


def _related(kind: str, later: int, earlier: int, evidence: PeriodEvidence) -> bool:
    rules = evidence.related(later, earlier)
    if kind == "revert":
        return "revert" in rules
    if kind in ("followup", "builds_on"):
        return bool(rules) or _said_by(later, earlier, evidence)
    if kind == "rewrites":  # rewrites lines the other added, this week or an earlier one
        return bool(rules & {"supersedes", "fix_same_code"})
    return False


MIN_TOLD_NAME = 4  # shorter names (`uv`, `tp`) stand on too many lines to tell lines apart


def _rewrote_other_lines(
    between: str, later: int, earlier: int, evidence: PeriodEvidence
) -> list[str]:
    """ "#A adds X …, its added lines later rewritten by #B": the rewrite is told of the names
    `between` the two PRs gives of #A's added lines, and is true only when #B's removed lines
    hold one of them (#B may have rewritten other lines of #A, the names still as #A merged
    them); "#B, which supersedes lines from #A, …" names none."""
    old, new = evidence.pr(earlier), evidence.pr(later)
    if old is None or new is None:
        return []
    added, removed = "\n".join(old.changed[1]), "\n".join(new.changed[0])
    told = [
        name
        for name in claims.identifiers(between)
        if len(name) >= MIN_TOLD_NAME and name.lower() in added
    ]
    if not told or any(name.lower() in removed for name in told):
        return []
    return [f"relation: #{later} rewrites other lines of #{earlier} than {', '.join(told[:2])}"]


SAID_REACH = 40  # how far before `#earlier` the later PR's own follow-up words may stand


def _said_by(later: int, earlier: int, evidence: PeriodEvidence) -> bool:
    """The later PR says itself that it follows up or builds on the earlier one ("this is a
    follow-up to #3519" in #4222's body)."""
    found = evidence.pr(later)
    if found is None:
        return False
    words = glossary()
    kinds = (words.relations["followup"], words.relations["builds_on"])
    for match in re.finditer(rf"#{earlier}(?!\d)", found.text):
        before = found.text[max(0, match.start() - SAID_REACH) : match.start()]
        if any(pattern.search(before) for pattern in kinds):
            return True
    return False


_SENTENCE_CLAUSE = re.compile(r"[，；。;]|[,.](?=\s)")


def _single_relation(text: str, span: tuple[int, int, int], evidence: PeriodEvidence) -> list[str]:
    number = span[2]
    # the PR's own clause: "#6350 的修复不再生效，被标为需跟进的风险" follows nothing up
    after = _SENTENCE_CLAUSE.split(text[span[1] :], maxsplit=1)[0]
    words = glossary()
    found = words.relations["followup"].search(after)
    advised = found is not None and words.word("modal").search(
        after[max(0, found.start() - ADVICE_REACH) : found.start()]
    )
    if found and not advised and not any(r.later == number for r in evidence.relations):
        return [f"relation: #{number} {found.group(0)}"]
    return []


# a week's total a comparison may name: (total, its words)
_TOTALS = (
    ("contributors", re.compile(r"contributors?|贡献者|作者", re.IGNORECASE)),
    ("deletions", re.compile(r"delet|remov|删除|删去", re.IGNORECASE)),
    (
        "additions",
        re.compile(r"lines? added|add(?:ed|s|ing)? [\w ,]{0,12}lines|新增|增加了?[^，。]{0,6}行"),
    ),
    ("prs", re.compile(r"\bPRs?\b|pull requests?|合入|合并", re.IGNORECASE)),
    *(
        (
            f"risk_findings_{level}",
            re.compile(
                rf"\b{level}(?:[- ]severity)?\s+(?:risk\s+)?findings?\b"
                rf"|{zh}(?:等|严重度|危)?的?风险",
                re.IGNORECASE,
            ),
        )
        for level, zh in (("high", "高"), ("medium", "(?<!其)中"), ("low", "低"))
    ),
    ("risk_findings", re.compile(r"\brisk findings?\b|风险发现|风险数", re.IGNORECASE)),
)


# a comparison's clauses: each says one bucket's figures (a clause naming none belongs to the
# one before: "hardware 类别有 8 个 PR，上一周为 6 个")
# "…增至 12 个，其中多数是昇腾文档": a part of the clause before, not a bucket of its own
_SUBSET = re.compile(r"\s*(?:其中|包括|含|including|of which|mostly|mainly|such as)", re.I)
_COMPARISON_CUT = re.compile(r"[，,；;。]|\band\b|\bwhile\b|而|但")


def _named_buckets(text: str, evidence: PeriodEvidence) -> dict[tuple[str, str], tuple[int, int]]:
    words = glossary()
    return {
        (kind, key): counts
        for kind in _WEEK_BUCKETS
        for key, counts in evidence.previous.get(kind, {}).items()
        if words.names_bucket(kind, key, text) and _kind_said(text, key) in (None, kind)
    }


# the kind a sentence gives a bucket's name: "hardware 类别", "the rollout module"
_KIND_WORDS = (
    ("categories", r"类别|categor(?:y|ies)"),
    ("modules", r"模块|modules?"),
    ("types", r"类型|types?"),
    ("labels", r"标签|labels?"),
)


def _kind_said(text: str, key: str) -> str | None:
    """The kind of bucket the words right after `key` name (None: they name none)."""
    for kind, said in _KIND_WORDS:
        if re.search(rf"(?<![\w-]){re.escape(key)}[\s-]*(?:{said})", text, re.IGNORECASE):
            return kind
    return None


def _comparison_clauses(text: str, evidence: PeriodEvidence) -> list[str]:
    """The sentence cut where a new clause names a bucket of its own."""
    clauses: list[str] = []
    start = 0
    for cut in [*_COMPARISON_CUT.finditer(text), None]:
        end = cut.start() if cut else len(text)
        part = text[start:end]
        if clauses and (not _named_buckets(part, evidence) or _SUBSET.match(part)):
            clauses[-1] += text[start - 1 : end] if start else part
        else:
            clauses.append(part)
        start = cut.end() if cut else end
    return clauses


def _compared(
    text: str, named: dict[tuple[str, str], tuple[int, int]], words: Glossary
) -> str | None:
    """None when one of the buckets `text` names compares as it says (a name may stand for
    a module and a category); else the first that does not, as a reason's detail."""
    direction = _direction(text, words)
    figures = claims.figures(text)
    compares = words.word("comparative").search(text) or words.word("absence").search(text)
    said = words.word("previous_week").search(text)
    if direction == "none" and not compares and not (said and figures):
        return None  # "megatron 与 trainer 模块各有 4 个 PR": no comparison in this clause
    nothing = words.word("absence").search(text) is not None
    failed = [
        f"{key} {count} vs {previous}"
        for (_kind, key), (count, previous) in named.items()
        if not _compares(direction, count, previous, figures, nothing)
    ]
    # "新增行数与删除行数双双减少": each named figure compares as said
    every = _BOTH.search(text) is not None and all(kind == "totals" for kind, _ in named)
    return failed[0] if failed and (every or len(failed) == len(named)) else None


_BOTH = re.compile(r"\bboth\b|\beach\b|双双|均|都|皆", re.IGNORECASE)


# "with no previous week to compare", "数据中没有上一周的数量": a sentence telling that the data
# holds no earlier week, which is true exactly when the digest has none
_NO_EARLIER = re.compile(
    r"\b(?:no|without)\b[^.;,]{0,40}?\b(?:previous|prior|earlier|last)[- ]week"
    r"|(?:没有|并无|无)[^。；，,]{0,12}?(?:上一?周|前一周)",
    re.IGNORECASE,
)


def tells_no_earlier(text: str, evidence: PeriodEvidence) -> bool:
    """`text` tells that there is no earlier week to compare with, and the data has none."""
    return evidence.previous_period is None and _NO_EARLIER.search(text) is not None


def comparison_reasons(
    text: str,
    evidence: PeriodEvidence,
    totals: dict[str, int] | None = None,
    earlier: dict[str, int] | None = None,
) -> list[str]:
    """A comparison with an earlier week: in each clause, the earlier count of a named module,
    category, type or label (else of a week's total), in the direction said, with the figures
    and ratio said."""
    words = glossary()
    found = words.word("previous_week").search(text) or _earlier_named(text, evidence, words)
    if found is None or tells_no_earlier(text, evidence):
        return []
    week = found.group(0)
    clauses = [(c, _named_buckets(c, evidence)) for c in _comparison_clauses(text, evidence)]
    if any(named for _c, named in clauses):
        failed = [_compared(c, named, words) for c, named in clauses if named]
        return [f"comparison: {f} {week}" for f in failed if f]
    named_totals = {
        ("totals", key): (totals[key], earlier[key])
        for key, said in _TOTALS
        if totals and earlier and said.search(text) and key in totals and key in earlier
    }
    if not named_totals:
        return [f"comparison: no earlier figure for {week}"]
    direction = _direction(text, words)
    figures = claims.figures(text)
    compares = words.word("comparative").search(text) or words.word("absence").search(text)
    if direction == "none" and not figures and not compares:
        return []  # "reverts the support from last week": no count is compared
    failure = _compared(text, named_totals, words)
    return [f"comparison: {failure} {week}"] if failure else []


def _earlier_named(text: str, evidence: PeriodEvidence, words: Glossary) -> re.Match[str] | None:
    """The earlier week named by its label in a sentence that compares ("rose to 1 this week
    from 0 in 2026-W19"): a comparison with that week."""
    period = evidence.previous_period
    found = re.search(rf"(?<![\w-]){re.escape(period)}(?![\w-])", text) if period else None
    if found is None:
        return None
    compares = words.word("comparative").search(text) is not None
    return found if compares or _direction(text, words) != "none" else None


def comparison_ratios(text: str, evidence: PeriodEvidence) -> list[float]:
    """The ratios (this week / the earlier week) of the buckets a comparison names."""
    words = glossary()
    if words.word("previous_week").search(text) is None:
        return []
    return [
        count / previous
        for kind in _WEEK_BUCKETS
        for key, (count, previous) in evidence.previous.get(kind, {}).items()
        if previous and words.names_bucket(kind, key, text)
    ]


def _compares(
    direction: str, count: int, previous: int, figures: list[claims.Figure], nothing: bool
) -> bool:
    actual = "up" if count > previous else "down" if count < previous else "same"
    if direction not in (actual, "none"):
        return False
    plain = {v for f in figures if f.kind != "multiplier" for v in f.values}
    if direction == "none" and str(previous) not in plain and not (previous == 0 and nothing):
        return False  # "4 PRs, last week 0" (or "none"): the earlier figure itself
    for figure in (f for f in figures if f.kind == "multiplier"):
        if not previous or all(abs(float(v) - count / previous) > 0.1 for v in figure.values):  # noqa: PLR2004
            return False
    return True


def _direction(text: str, words: Glossary) -> str:
    for name, label in (("comparison_same", "same"), ("comparison_down", "down")):
        if words.word(name).search(text):
            return label
    return "up" if words.word("comparison_up").search(text) else "none"


def absence_reasons(
    text: str,
    week_text: str,
    cited: Sequence[int],
    prs_text: str = "",
    leads: bool = False,
    prs: Sequence[PREvidence] = (),
) -> list[str]:
    """ "No X this week" must be true of every PR of the week; other universal claims ("all",
    "the whole team", "所有") are not taken on trust, but for "both" or "all three" of the PRs
    the sentence rests on, a trailing "…, all on 2025-11-24" after two or more cited PRs,
    words the cited PRs say themselves ("every changed line"; `prs_text`, lower case), or a
    bucket leading all of its kind that the digest's counts show (`leads`)."""
    words = glossary()
    plain = claims.without_code(text)
    reasons = []
    absent = words.word("absence").search(plain)
    # "none last week", "no previous-week count": a comparison's to judge
    earlier = words.word("previous_week").search(plain) or _NO_EARLIER.search(plain)
    if absent and words.word("week_scope").search(plain) and not earlier:
        named = words.concepts_in(plain)
        concepts = words.concepts
        present = [said for name, said in named.items() if found_in(concepts[name], week_text)]
        buckets = [
            key
            for kind, names in words.buckets.items()
            for key in names
            if words.names_bucket(kind, key, plain)
        ]
        present += [key for key in buckets if re.search(rf"^{re.escape(key)}$", week_text, re.M)]
        if present or not (named or buckets):
            reasons.append(f"absence: {absent.group(0)} {', '.join(present)}".rstrip())
    universal = words.word("universal").search(plain)
    if (
        universal
        and not leads
        and not _cited_universal(plain, universal, len(cited), words)
        and not _trailing_universal(plain, universal, len(cited))
        and not _quoted_universal(plain, universal, prs_text)
        and not _listed_universal(plain, universal, prs)
        and not _counted_universal(plain, universal, prs)
        and not _failure_universal(plain, universal, prs_text)
    ):
        reasons.append(f"universal: {universal.group(0)}")
    return reasons


def _trailing_universal(text: str, universal: re.Match[str], cited: int) -> bool:
    """ "#4258, #4259 and #4260 revert …, all on 2025-11-24": an appositive after a comma,
    said of the two or more PRs the sentence lists; "1 PR each for x and y, all #3": of
    the PR it names."""
    if _APPOSITIVE_BEFORE.search(text[: universal.start()]) is None:
        return False
    if _APPOSITIVE_PR.match(text, universal.end()):
        return True  # "…, all #3": the things listed are of the cited PR (the PR rule checks it)
    return cited >= 2 and _APPOSITIVE_AFTER.match(text, universal.end()) is not None  # noqa: PLR2004


_WORD_BEFORE = re.compile(r"[\w-]+\s+$")
QUOTED_WORDS = 3


def _quoted_universal(text: str, universal: re.Match[str], prs_text: str) -> bool:
    """The universal with the words after it (or the word before and after it) is the cited
    PRs' own ("every changed line", "to trace all samples")."""
    said = " ".join(prs_text.lower().split())
    tail = _WORDS_AFTER.match(text, universal.end())
    after = universal.group(0) + (tail.group(0) if tail else "")
    before = _WORD_BEFORE.search(text[: universal.start()])
    phrases = [after, (before.group(0) if before else "") + after]
    for phrase in (" ".join(p.lower().split()) for p in phrases):
        if len(phrase.split()) >= QUOTED_WORDS and phrase in said:
            return True
    return _quoted_pair(after.lower(), before.group(0).strip().lower() if before else "", said)


PAIR_REACH = 60  # "log-probs at those positions every step": the word before, this close


def _quoted_pair(after: str, before: str, said: str) -> bool:
    """ "biased log-probs every step": the universal and its noun ("every step") are the PR's
    own, with the word the sentence says before them shortly before them there too."""
    phrase = " ".join(after.split()[:2])
    if len(phrase.split()) < 2 or len(before) < 4:  # noqa: PLR2004
        return False
    return any(
        before in said[max(0, m.start() - PAIR_REACH) : m.start()]
        for m in re.finditer(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", said)
    )


# "#3465, #4146, #4189 and #4210 all modified": a universal over the PRs listed before it
_PR_LIST = re.compile(r"#\d+(?:\s*(?:,|，|、|\band\b|和|与|及)\s*#\d+)+\s*$", re.IGNORECASE)
_FILE_NAME = re.compile(r"[\w.-]+\.(?:py|ya?ml|json|toml|sh|md|txt|cfg|ini|rst)\b")


def _listed_universal(text: str, universal: re.Match[str], prs: Sequence[PREvidence]) -> bool:
    """ "e2e_ascend.yml, which #3465, #4146 and #4210 all modified": said of the two or more
    PRs listed right before it, each of which touches every file the sentence names."""
    listed = _PR_LIST.search(text[: universal.start()])
    if listed is None:
        return False
    numbers = {int(n) for n in re.findall(r"#(\d+)", listed.group(0))}
    found = [e for e in prs if e.number in numbers]
    if len(found) != len(numbers):
        return False
    files = [f.lower() for f in _FILE_NAME.findall(text)]
    return all(_touches(e, name) for e in found for name in files)


def _touches(pr: PREvidence, name: str) -> bool:
    """`pr` changes a file called `name` (or at the path `name`)."""
    return re.search(rf"(?<![\w.-]){re.escape(name)}$", pr.paths, re.MULTILINE) is not None


# "解决……导致一轮内生成全部工具调用的问题": the universal tells the failure a PR fixes
_CAUSED = re.compile(
    r"(?:导致|造成|引起|致使|\bcaus(?:es|ed|ing)\b|\bleads? to\b)[^，,;；。]*$", re.IGNORECASE
)
_FAILURE_AFTER = re.compile(r"[^，,;；。]*?(?:的?问题|的?错误|\bbug\b|\bissue\b|\berror\b)", re.I)
_ALL_SAID = re.compile(r"\b(?:all|every)\b")


def _failure_universal(text: str, universal: re.Match[str], prs_text: str) -> bool:
    """A universal in the clause that tells what a failure did ("导致……生成全部工具调用的问题",
    "causing all requests to hang"), which the cited PRs' own words tell with "all" too."""
    caused = _CAUSED.search(text[: universal.start()]) is not None
    failure = _FAILURE_AFTER.match(text, universal.end()) is not None
    return caused and failure and _ALL_SAID.search(prs_text) is not None


def _counted_universal(text: str, universal: re.Match[str], prs: Sequence[PREvidence]) -> bool:
    """ "All four fapo scripts": as many of the cited PRs' changed files (those whose paths
    hold the words after the count that a path holds) as the sentence counts."""
    tail = _WORDS_AFTER.match(text, universal.end())
    if tail is None or not prs:
        return False
    words = tail.group(0).lower().split()
    counted = claims.figures(words[0])
    if not counted:
        return False
    paths = [p for e in prs for p in dict.fromkeys(path for path, _old, _new in e.files)]
    named = [w for w in words[1:] if any(w in p.lower() for p in paths)]
    matching = [p for p in paths if all(w in p.lower() for w in named)]
    return str(len(matching)) in counted[0].values


def _cited_universal(text: str, universal: re.Match[str], cited: int, words: Glossary) -> bool:
    """ "all three PRs" of three cited, "both", "三个 PR 都": a claim about the cited PRs."""
    if cited < 2:  # noqa: PLR2004 - "both" and "all" need at least two PRs
        return False
    window = text[max(0, universal.start() - 12) : universal.end() + 12]
    counts = [f for f in claims.figures(window) if f.values & {str(cited)}]
    return bool(counts) and words.word("cited_universal").search(text) is not None


_CONTRIBUTOR_COUNT = re.compile(r"\d[\d,]*\s*(?:位|名|个)?\s*(?:贡献者|作者|开发者)")


def people_reasons(text: str, prs: Sequence[PREvidence]) -> list[str]:
    """Who wrote or reviewed a PR: the author's name, or a review on record."""
    words = glossary()
    reasons = []
    wrote = words.word("authorship").search(text)
    if wrote and _CONTRIBUTOR_COUNT.search(wrote.group(0)):
        wrote = None  # "由 38 位贡献者完成": how many wrote the week, a figure checked as one
    if wrote and not any(e.author and _names_author(text, e.author) for e in prs):
        reasons.append(f"authorship: {wrote.group(0)}")
    reviewed = words.word("review").search(text)
    if reviewed and not any(e.approved or e.reviewed for e in prs):
        reasons.append(f"review: {reviewed.group(0)}")
    return reasons


def _names_author(text: str, author: str) -> bool:
    lowered = text.lower()
    return any(len(name) > 2 and name in lowered for name in author.split())  # noqa: PLR2004


# a speed-up said of a PR ("makes scoring faster", "缩短了加载耗时"): what it claims; an
# accelerator is a device ("moves it to the accelerator"), as 加速器 is
_FASTER = re.compile(
    r"\b(?:faster|quicker|speeds? up|sped up|speed-?ups?|accelerat(?!ors?\b)\w+)\b"
    r"|\bshort(?:ens?|ened)\b(?![\w\s]{0,12}\bnames?\b)"
    r"|(?:耗时|时间|用时|时长|启动|加载)[^，。,;；]{0,8}缩短|缩短[^，。,;；]{0,8}(?:耗时|时间|用时|时长)"
    r"|加快|提速|更快|变快|(?<!硬件)加速(?!器|卡)",
    re.IGNORECASE,
)
# the PR's own words about speed: a speed-up the sentence may tell
_SPEED_SAID = re.compile(
    r"fast|quick|speed|accelerat|latency|throughput|slow|perf|overhead|converge"
    r"|\d(?:\.\d+)?\s*[x×]\b|耗时|速度|加速|提速|更快|变快|延迟|吞吐|性能|收敛",
    re.IGNORECASE,
)


def speed_reasons(text: str, prs: Sequence[PREvidence]) -> list[str]:
    """A speed-up said of the cited PRs needs one of them to speak of speed (its title, body
    or reviews): a faster run is no consequence to infer from what a PR changes."""
    found = _FASTER.search(text)
    if found is None or not prs or glossary().word("modal").search(text[: found.start()]):
        return []
    if any(_SPEED_SAID.search(e.text) or any(map(_SPEED_SAID.search, e.body)) for e in prs):
        return []  # its title, reviews or any line of its body (a table after the checklist)
    return [f"consequence: {found.group(0)} (no cited PR tells a speed-up)"]
