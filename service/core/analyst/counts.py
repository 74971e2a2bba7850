"""Counts per author and per module: "alice merged 3 PRs this week" must be the number of the
week's PRs that author wrote (or, said without "this week", of the cited PRs they wrote);
"the tool module had 6 PRs" the module's count in the digest (this week's, or the earlier
week's when the figure is said of it), whatever other count of the week the figure happens to
equal."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from service.core.analyst import claims, repo_counts
from service.core.analyst.evidence import PeriodEvidence
from service.core.analyst.glossary import glossary

MIN_NAME = 3


def _names(evidence: PeriodEvidence) -> dict[str, str]:
    """Each author's login and display name (lower case) → the login."""
    out: dict[str, str] = {}
    for scored in evidence.scored.values():
        if not scored.author:
            continue
        login = scored.author.lower()
        for name in (login, (scored.author_name or "").lower()):
            if len(name) >= MIN_NAME:
                out.setdefault(name, login)
    return out


def author_count_reasons(
    text: str, cited: Sequence[int], evidence: PeriodEvidence, repos: Sequence[str] = ()
) -> list[str]:
    """A count of PRs in a sentence that names an author is that author's count (in the week,
    the cited PRs or a repository of the family the sentence names)."""
    figures = [f for f in claims.figures(text) if f.kind == "prs"]
    if not figures and not _PART_OF.search(text):
        return []
    named = _named_authors(text, evidence)
    if not named:
        return []
    week = Counter((s.author or "").lower() for s in evidence.scored.values())
    own = Counter((evidence.scored[n].author or "").lower() for n in cited if n in evidence.scored)
    allowed = {str(week[login]) for login in named}
    if not glossary().word("week_scope").search(text):  # "merged 3 PRs this week": the week's
        allowed |= {str(own[login]) for login in named if own[login]}
    allowed |= repo_counts.author_counts(text, named, repos, evidence)
    who = ", ".join(sorted(named))
    wrote = ", ".join(sorted({str(week[a]) for a in named}))
    whole = str(len(evidence.scored))
    reasons = [
        f"count {f.text}: {who} wrote {wrote} of the week's PRs"
        for f in figures
        if not f.values & allowed
        and not (whole in f.values and _the_whole(text, f.text, evidence))
        and not repo_counts.repo_count(f, text, repos, evidence)  # "verl-omni 本周 8 个 PR 中"
    ]
    # the part of "6 of the 17 PRs" is the author's count ("2 of the week's PRs": the week's)
    for m in _PART_OF.finditer(text):
        part = m.group("part") or m.group("week") or m.group("zh")
        ok = {str(week[login]) for login in named} if m.group("week") else allowed
        said = claims.figures(part)
        if not (said[0].values if said else {part}) & ok:
            reasons.append(f"count {part}: {who} wrote {wrote} of the week's PRs")
    return reasons


# "6 of the 17 PRs", "five of the 17 verl-omni PRs", "2 of the week's PRs", "17 个 PR 中的 6 个":
# the week's PRs (or a repository's), of which the author wrote some
_OF_BEFORE = re.compile(r"\bof(?:\s+(?:the|all|its))?\s*$", re.IGNORECASE)
_AMONG_AFTER = re.compile(r"^\s*(?:个)?\s*PRs?\s*(?:中|里|当中)")
_PART_OF = re.compile(
    r"(?<![\w.#])(?P<part>\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
    r"\s+of\s+(?:the\s+|all\s+|its\s+)?\d+\s+(?:[\w-]+\s+)?PRs\b"
    r"|(?<![\d.#])(?P<week>\d+)\s+of\s+(?:the|this)\s+week['’]s\s+(?:\d+\s+)?(?:merged\s+)?PRs\b"
    r"|\d+\s*个\s*PR\s*(?:中|里|当中)(?:的|有)?\s*(?P<zh>\d+)",
    re.IGNORECASE,
)


def _named_authors(text: str, evidence: PeriodEvidence) -> set[str]:
    """The logins of the week's authors `text` names, by login or display name."""
    lowered = text.lower()
    return {
        login
        for name, login in _names(evidence).items()
        if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", lowered)
    }


def author_parts(text: str, evidence: PeriodEvidence) -> set[str]:
    """The parts of "6 of the 17 PRs" in a sentence that names an author: the author's count,
    which `author_count_reasons` checks."""
    if not _named_authors(text, evidence):
        return set()
    return {m.group("part") or m.group("week") or m.group("zh") for m in _PART_OF.finditer(text)}


# a clause of a sentence about authors: "The week merged 40 PRs from 31 contributors, with …"
_AUTHOR_CLAUSE = re.compile(r"[,，;；。]|\bwith\b|\bwhile\b")


def _the_whole(text: str, figure: str, evidence: PeriodEvidence) -> bool:
    """Whether `figure` (the week's count of PRs) stands in `text` as the whole the author's
    count is part of: "6 of the 17 PRs", or said in a clause that names no author."""
    at = text.find(figure)
    if at < 0:
        return False
    if _OF_BEFORE.search(text[:at]) or _AMONG_AFTER.match(text[at + len(figure) :]):
        return True
    cuts = [0, *(m.end() for m in _AUTHOR_CLAUSE.finditer(text)), len(text) + 1]
    for said in re.finditer(rf"(?<![\d.#]){re.escape(figure)}(?![\d.])", text):
        start = max(c for c in cuts if c <= said.start())
        end = min(c for c in cuts if c > said.start())
        if _named_authors(text[start:end], evidence):
            return False  # "with Zhen merging 40 PRs": told of the author
    return True


# a clause of a sentence: a count said in it is said of the buckets it names
_CLAUSE = re.compile(r"[，,;；。:：、]|\band\b|\bwhile\b|\bbut\b|而|但|，而")
_BUCKET_WORDS = re.compile(
    r"模块|类别|类型|\bmodules?\b|\bcategor(?:y|ies)\b|\btypes?\b|-type\b", re.IGNORECASE
)
# a figure followed by one of these counts something else than PRs (lines, files, risks …)
_OTHER_UNIT = re.compile(
    r"^\s*(?:个|位|项)?\s*(?:行|lines?|files?|文件|风险|risks?|findings?|贡献者|contributors?|%|％|-W)",
    re.IGNORECASE,
)


def bucket_counts(
    text: str, trends: Mapping[str, Sequence[Any]], previous: Mapping[str, Mapping[str, Any]]
) -> dict[str, set[int]]:
    """The digest's counts (this week's and the week before's) of each trend bucket `text`
    names, by bucket key."""
    words = glossary()
    out: dict[str, set[int]] = {}
    for kind, buckets in trends.items():
        for b in buckets:
            if words.names_bucket(kind, b.key, text):
                found = out.setdefault(b.key, set())
                found |= {b.count} | ({b.previous} if b.previous is not None else set())
    for kind, known in previous.items():
        for key, pair in known.items():
            if words.names_bucket(kind, key, text):
                out.setdefault(key, set()).update(pair)
    return out


def bucket_count_reasons(
    text: str, trends: Mapping[str, Sequence[Any]], previous: Mapping[str, Mapping[str, Any]]
) -> list[str]:
    """A count said in a clause that names a module, category or type ("tool 模块本周有 6 个
    PR", "megatron rose to 4 PRs") is that bucket's count this week or the week before."""
    reasons = []
    # "`tool` 模块本期共有 8 个 PR": a bucket's key in code spelling still names it
    plain = claims.without_code(_QUOTED_WORD.sub(r"\1", text))
    # a sentence about PRs counts PRs ("5 个 PR"); one about the week's trends counts them when
    # it speaks of buckets or of the week before
    any_count = not claims.pr_refs(text) and bool(
        _BUCKET_WORDS.search(plain) or glossary().word("previous_week").search(plain)
    )
    start = 0
    for cut in [*_CLAUSE.finditer(plain), None]:
        end = cut.start() if cut else len(plain)
        clause = plain[start:end]
        start = cut.end() if cut else end
        if not bucket_counts(clause, trends, previous):
            continue
        for figure in claims.figures(clause):
            at = clause.find(figure.text)
            counted = figure.kind == "prs" or (
                figure.kind == "plain" and (any_count or _COUNT_VERB.search(clause[:at]))
            )
            if not counted or not figure.text[:1].isdigit() or "." in figure.text:
                continue
            # the bucket named right after the figure ("13 feat") or, else, those named before
            # it ("22 PRs across rollout": the week's count)
            named = _named_after(clause[at + len(figure.text) :], trends, previous)
            named = named or bucket_counts(clause[:at], trends, previous)
            allowed = {str(v) for counts in named.values() for v in counts}
            if not named or _OTHER_UNIT.match(clause[at + len(figure.text) :]):
                continue
            if figure.values & allowed:
                continue
            shown = "; ".join(
                f"{key} {'/'.join(str(v) for v in sorted(counts))}" for key, counts in named.items()
            )
            reasons.append(f"count {figure.text}: the digest counts {shown} (this week/before)")
    return reasons


_QUOTED_WORD = re.compile(r"`([\w-]+)`")
# "fully_async counts 6", "ci accounts for 10": a bucket's count told by its verb
_COUNT_VERB = re.compile(r"\b(?:counts?|accounts? for|totals?)\s*$", re.IGNORECASE)


# the word right after a count: "13 feat", "8 个 feat 类"; or the bucket its PRs are said to
# be in, with its kind: "20 PRs in the doc module"
_WORD_AFTER = re.compile(
    r"\s*(?:PRs?\s+(?:in|from|under)\s+(?:the\s+)?([\w-]+)\s+(?:module|category|type)\b"
    r"|(?:个\s*)?([\w-]+))",
    re.IGNORECASE,
)


def _named_after(
    rest: str, trends: Mapping[str, Sequence[Any]], previous: Mapping[str, Mapping[str, Any]]
) -> dict[str, set[int]]:
    """The bucket the word right after a count names ("against 13 feat"): what it counts."""
    word = _WORD_AFTER.match(rest)
    return bucket_counts(word.group(1) or word.group(2), trends, previous) if word else {}


# "fix-type PRs outnumbered feat-type PRs", "fix 类 PR 多于 feat 类": this week's counts compared
_MORE = re.compile(r"\b(?:outnumber(?:ed|s)?|exceed(?:ed|s)?|more than)\b|多于|超过", re.IGNORECASE)
_FEWER = re.compile(r"\b(?:fewer than|less than)\b|少于", re.IGNORECASE)
_ORDER_CLAUSE = re.compile(r"[，,;；。:：]|\bwhile\b|\bbut\b|而|但")


def _named_buckets(text: str, trends: Mapping[str, Sequence[Any]]) -> list[tuple[int, str, Any]]:
    """The buckets `text` names, with where the name stands and the bucket's kind."""
    words = glossary()
    found = []
    for kind, buckets in trends.items():
        for b in buckets:
            match = re.search(rf"(?<![\w-]){re.escape(b.key)}(?![\w])", text, re.IGNORECASE)
            if match and words.names_bucket(kind, b.key, text):
                found.append((match.start(), kind, b))
    return sorted(found, key=lambda f: f[0])


def bucket_order_reasons(text: str, trends: Mapping[str, Sequence[Any]]) -> list[str]:
    """Two buckets of one kind compared in a clause ("fix-type PRs outnumbered feat-type
    PRs"): the first must have more PRs this week than the second (fewer, for "fewer than")."""
    reasons = []
    for clause in _ORDER_CLAUSE.split(claims.without_code(text)):
        for pattern, more in ((_MORE, True), (_FEWER, False)):
            word = pattern.search(clause)
            if word is None:
                continue
            left = _named_buckets(clause[: word.start()], trends)
            right = _named_buckets(clause[word.end() :], trends)
            if not left or not right:
                continue
            _, kind, first = left[-1]
            second = next((b for _, k, b in right if k == kind and b.key != first.key), None)
            if second is None:
                continue
            holds = first.count > second.count if more else first.count < second.count
            if not holds:
                reasons.append(
                    f"comparison {word.group(0)}: the digest counts {first.key} {first.count}, "
                    f"{second.key} {second.count} this week"
                )
    return reasons


# "the doc module led all modules", "doc 模块在所有模块中最多": one bucket ahead of its kind
_LEADS = re.compile(
    r"\b(?:led|leads|topped|tops|outnumbered)\s+(?:all|every)\s+(?:the\s+)?(?:other\s+)?"
    r"(?P<en>modules?|categor(?:y|ies)|types?)\b"
    r"|在?(?:所有|全部)(?P<zh>模块|类别|类型)中(?:最多|居首|排名第一)",
    re.IGNORECASE,
)
_KINDS = {"modul": "modules", "categ": "categories", "type": "types", "模块": "modules"}
_KINDS |= {"类别": "categories", "类型": "types"}


def leads_its_kind(text: str, trends: Mapping[str, Sequence[Any]]) -> bool:
    """Whether `text` says a bucket leads all of its kind ("the doc module led all modules
    with 8 PRs") and the digest's counts this week agree: the bucket named before the words
    has the most PRs of its kind."""
    found = _LEADS.search(claims.without_code(text))
    if found is None:
        return False
    said = (found.group("en") or found.group("zh") or "").lower()
    kind = next((k for prefix, k in _KINDS.items() if said.startswith(prefix)), "")
    buckets = list(trends.get(kind, ()))
    named = [b for _, k, b in _named_buckets(text[: found.start()], {kind: buckets}) if k == kind]
    return bool(named) and named[-1].count == max(b.count for b in buckets)


# "11 个风险，其中高风险 1 个、中风险 8 个、低风险 6 个", "4 risks, of which 1 high and 3 medium"
_RISK_WHOLE = re.compile(
    r"(?P<whole>\d+)\s*(?:个|项)?\s*(?:风险|risks?\b|risk groups?\b)[^。;；.]{0,12}?"
    r"(?:其中|包括|including\b|of which\b|of them\b)(?P<parts>[^。;；]{0,80})",
    re.IGNORECASE,
)
_LEVEL_COUNT = re.compile(
    r"[高中低](?:风险|危|等级|级)\s*(?P<a>\d+)|(?P<b>\d+)\s*(?:个|项)?\s*[高中低](?:风险|危|等级|级)"
    r"|\b(?:high|medium|low)\b\s*(?P<c>\d+)|(?P<d>\d+)\s*(?:high|medium|low)\b",
    re.IGNORECASE,
)


def level_sum_reasons(text: str) -> list[str]:
    """Risk levels split the risks: the counts per level a sentence gives "of" a number of
    risks cannot add up to more than that number."""
    reasons = []
    for whole in _RISK_WHOLE.finditer(text):
        parts = [
            int(next(g for g in m.groups() if g)) for m in _LEVEL_COUNT.finditer(whole["parts"])
        ]
        if len(parts) > 1 and sum(parts) > int(whole["whole"]):
            shown = " + ".join(str(p) for p in parts)
            reasons.append(
                f"levels exceed the whole: {shown} = {sum(parts)} > {whole['whole']} risks"
            )
    return reasons


# "新增 52 个文件", "adds 52 new files": a count of one PR's files, right before the word
_FILES = re.compile(r"(\d[\d,]*)\s*(?:个\s*)?(?:新\s*)?文件|(\d[\d,]*)\s+(?:new\s+)?files\b", re.I)


def file_count_reasons(text: str, cited: Sequence[int], evidence: PeriodEvidence) -> list[str]:
    """A count of files said of the one PR a sentence cites is one its diff holds: all its
    files, or those it adds, deletes, changes or renames (a body's "52 files" of a PR whose
    diff adds 61 is the author's plan or estimate, not the change)."""
    if len(cited) != 1 or (pr := evidence.collected.get(cited[0])) is None or not pr.files:
        return []
    by_status = Counter(str(f.status) for f in pr.files)
    held = {len(pr.files), pr.changed_files, *by_status.values()}
    reasons = []
    for found in _FILES.finditer(claims.without_code(text)):
        said = int((found[1] or found[2]).replace(",", ""))
        if said not in held:
            shown = ", ".join(f"{n} {status}" for status, n in sorted(by_status.items()))
            reasons.append(
                f"count {said}: the diff of #{cited[0]} holds {len(pr.files)} files ({shown})"
            )
    return reasons
