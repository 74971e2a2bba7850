"""The verification pass's pure part (issue 26 §3): the sentences the rules kept, sent in
batches bounded in tokens with their quotes and the cited PRs' facts; the JSON schema of the
verifier's answer and its parser; and the analysis with only the entailed sentences left.

A sentence the verifier judged contradicted or not enough information goes to the audit list
with its reason. A sentence it did not judge (its batch failed, timed out, or the answer
skipped it) stays: a failing verifier drops nothing, and the audit list says so.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from service.core.analyst.facts import EXCERPT_CHARS, PeriodFacts, PRFacts, bounded, pr_payload
from service.core.analyst.family_refs import named_payload
from service.core.analyst.injection import masked
from service.core.analyst.quotes import QuoteFinder
from service.core.analyst.schema import Draft
from service.core.analyst.verify_lines import evidence_lines, file_statuses, names_of
from service.core.models import Analysis, AnalysisItem, DroppedSentence

# bump when the schema or the meaning of a field changes (the templates are hashed apart)
# 2: `diff` lines, authors; 3: merge times, PRs per author; 4: `evidence_lines`;
# 5: a block's next line, `file_status` (created, deleted, renamed), `config_changes` by name,
# `trend_buckets` by key with their PRs' titles, and what counts as entailed said plainly;
# 6: an evidence line the PR changes the same way in several files once, with `also_in`; test
# files' lines; sentences the rules could not confirm (deferral.py); a merged value or name
# judged on the changed lines only, a restore on an earlier state the data holds;
# 7: each quote with `found`, where the service found it in its PR's whole data (or "no")
# 8: the sentence judged as a whole too: true parts joined into a false whole (a reverted
# change told as in effect, one PR's effect credited to another, a wider scope, a figure moved)
VERIFY_VERSION = "8"
SCHEMA_NAME = "sentence_verdicts"
ENTAILED = "entailed"
VERDICTS = (ENTAILED, "contradicted", "not_enough_information")
OPEN = "<<<VERIFY_DATA"
CLOSE = "VERIFY_DATA>>>"
CHARS_PER_TOKEN = 3  # a cautious estimate for mixed zh/en JSON
VERDICT_TOKENS = 80  # one verdict with a one-line reason
BATCH_CHARS = 64_000  # the data of one request (~21k tokens; the narrative's is up to 60k chars)
REASON_CHARS = 200
MAX_VERDICTS_CHARS = 64 * 1024
SECTIONS = ("summary", "key_changes", "pr_points", "trends", "recommendations", "review_notes")
NOTE_SECTION = "verifier"
CONFIG_ENTRIES = 8  # config changes shown beside one sentence
BUCKETS_SHOWN = 3  # trend buckets shown beside one sentence
MIN_BUCKET_KEY = 3  # a shorter key (`ci`) is too easily a word of the sentence
_WORD = re.compile(r"[a-z][a-z0-9_]*")
# a count: a number that is no PR number, version or part of a name (`#58`, `9.0.0`, `H100`)
_COUNT = re.compile(
    r"(?<![#A-Za-z0-9_.])\d+(?![A-Za-z0-9_.%])|[一二三四五六七八九十两]+\s*(?:个|项|次)"
)


class InvalidVerdictsError(ValueError):
    """The verifier's text is not JSON for the verdict schema."""


@dataclass(frozen=True)
class Quote:
    """A passage the writing model says it copied from a PR's data."""

    pr: int
    quote: str


@dataclass(frozen=True)
class Sentence:
    """One kept sentence to judge: `id` within the pass, where it stands (section, index), the
    text as shown (a key change with its theme), the PRs it cites and its quotes."""

    id: int
    section: str
    index: int
    text: str
    prs: tuple[int, ...]
    quotes: tuple[Quote, ...] = ()


@dataclass(frozen=True)
class Judgement:
    verdict: str
    reason: str

    @property
    def entailed(self) -> bool:
        return self.verdict == ENTAILED


_KEEP = Judgement(ENTAILED, "")  # what an unjudged sentence counts as: it stays


def verdict_schema() -> dict[str, Any]:
    """The verifier's answer: one verdict per sentence id (strict mode: all required)."""
    item = {
        "type": "object",
        "additionalProperties": False,
        "required": ["id", "verdict", "reason"],
        "properties": {
            "id": {"type": "integer"},
            "verdict": {"type": "string", "enum": list(VERDICTS)},
            "reason": {"type": "string"},
        },
    }
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["verdicts"],
        "properties": {"verdicts": {"type": "array", "items": item}},
    }


def response_format() -> dict[str, Any]:
    return {
        "type": "json_schema",
        "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": verdict_schema()},
    }


def _quote(raw: Any) -> Quote | None:
    """A quote from Draft.evidence: a (pr, quote) pair, a dict or an object with both."""
    if isinstance(raw, tuple) and len(raw) == 2:  # noqa: PLR2004 - a pair
        pr, text = raw
    elif isinstance(raw, dict):
        pr, text = raw.get("pr"), raw.get("quote")
    else:
        pr, text = getattr(raw, "pr", None), getattr(raw, "quote", None)
    if isinstance(pr, int) and isinstance(text, str) and text.strip():
        return Quote(pr, text)
    return None


def quotes_of(draft: Draft) -> tuple[Quote, ...]:
    """The draft's quotes (`evidence`), none for an answer without them."""
    found = (_quote(raw) for raw in getattr(draft, "evidence", None) or ())
    return tuple(q for q in found if q is not None)


def _shown(item: AnalysisItem) -> str:
    return f"{item.theme}: {item.text}" if item.theme else item.text


def _items(analysis: Analysis) -> Iterable[tuple[str, int, AnalysisItem]]:
    if analysis.headline is not None:
        yield "headline", 0, analysis.headline
    for section in SECTIONS:
        for index, item in enumerate(getattr(analysis, section)):
            yield section, index, item


def sentences_of(analysis: Analysis, drafts: Sequence[Draft]) -> list[Sentence]:
    """Every kept sentence of `analysis`, with the quotes of the draft it came from."""
    quotes: dict[tuple[str, str], tuple[Quote, ...]] = {}
    for draft in drafts:
        quotes.setdefault((draft.section, " ".join(draft.text.split())), quotes_of(draft))
    return [
        Sentence(
            id=number,
            section=section,
            index=index,
            text=_shown(item),
            prs=tuple(item.prs),
            quotes=quotes.get((section, " ".join(item.text.split())), ()),
        )
        for number, (section, index, item) in enumerate(_items(analysis), 1)
    ]


def _pr_data(pr: PRFacts, facts: PeriodFacts) -> dict[str, Any]:
    data = {**pr_payload(pr), "body": bounded(pr.excerpt, EXCERPT_CHARS)}
    found = facts.evidence.pr(pr.number) if facts.evidence is not None else None
    if found is not None and found.author:
        data["author"] = found.author  # for "X wrote three of them": the login and name
    scored = facts.evidence.scored.get(pr.number) if facts.evidence is not None else None
    if scored is not None:
        data["merged_at"] = scored.merged_at.isoformat()
    return data


def _author_counts(cited: Iterable[int], facts: PeriodFacts) -> dict[str, int]:
    """How many of the week's PRs each author of the cited PRs wrote (by login): a sentence
    saying "X merged four PRs" is judged on the week, not on the PRs it happens to cite."""
    if facts.evidence is None:
        return {}
    scored = facts.evidence.scored
    week = Counter(s.author for s in scored.values() if s.author)
    logins = dict.fromkeys(a for n in cited if (a := getattr(scored.get(n), "author", None)))
    return {login: week[login] for login in logins}


def config_entries(sentence: Sentence, facts: PeriodFacts) -> list[dict[str, Any]]:
    """Every config change of the cited PRs whose key or file the sentence names (a PR's
    payload shows its first CONFIG_SHOWN only): `{"pr": n, "change": "file key: old → new"}`."""
    names = names_of(sentence.text)
    out = []
    for number in dict.fromkeys(sentence.prs):
        pr = facts.pr(number)
        for change in pr.config if pr is not None else ():
            where = f"{change.path} {change.key}".lower()
            if any(name in where for name in names):
                out.append({"pr": number, "change": change.line()})
    return out[:CONFIG_ENTRIES]


def bucket_entries(sentence: Sentence, facts: PeriodFacts) -> list[dict[str, Any]]:
    """The trend buckets (module, category, type) a sentence stating a count names by key,
    each with its PRs' titles: "the five hardware PRs are about Ascend NPU" is judged on all
    five (a sentence with no count, "#58 adds a diffusion algorithm", gets none)."""
    if sentence.section != "trends" and not _COUNT.search(sentence.text):
        return []
    words = set(_WORD.findall(sentence.text.lower()))
    out = []
    for kind, buckets in facts.trends.items():
        for bucket in buckets:
            if bucket.key.lower() not in words or len(bucket.key) < MIN_BUCKET_KEY:
                continue
            titles = [
                {"number": n, "title": pr.title if (pr := facts.pr(n)) is not None else ""}
                for n in bucket.prs
            ]
            entry = {"kind": kind, "key": bucket.key, "count": bucket.count, "prs": titles}
            out.append(entry | ({"more_prs": bucket.more_prs} if bucket.more_prs else {}))
    return out[:BUCKETS_SHOWN]


def _sentence_data(sentence: Sentence, facts: PeriodFacts) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": sentence.id,
        "text": sentence.text,
        "prs": list(sentence.prs),
        "quotes": [_quote_data(q, sentence.prs, facts) for q in sentence.quotes],
        "evidence_lines": evidence_lines(sentence.text, sentence.prs, facts.evidence),
    }
    if changes := config_entries(sentence, facts):
        data["config_changes"] = changes
    if files := file_statuses(sentence.text, sentence.prs, facts.evidence):
        data["file_status"] = files
    if buckets := bucket_entries(sentence, facts):
        data["trend_buckets"] = buckets
    return data


# the finder of the facts last verified: `batches` builds a batch's data once per sentence it
# tries, and a finder normalises each PR's whole data once
_FINDER: list[tuple[PeriodFacts, QuoteFinder]] = []


def _finder(facts: PeriodFacts) -> QuoteFinder | None:
    if facts.evidence is None:
        return None
    if _FINDER and _FINDER[0][0] is facts:
        return _FINDER[0][1]
    finder = QuoteFinder(facts, facts.evidence)
    _FINDER[:] = [(facts, finder)]
    return finder


def _quote_data(quote: Quote, cited: Sequence[int], facts: PeriodFacts) -> dict[str, Any]:
    """A writer's quote and where it is in its PR's whole data: the verifier sees only an
    excerpt of each PR, so a line found in the full patch or body would read as unsupported."""
    data: dict[str, Any] = {"pr": quote.pr, "quote": quote.quote}
    finder = _finder(facts)
    if finder is not None:
        found = finder.find(quote.pr, quote.quote, cited)
        data["found"] = found.where or f"no: {found.reason}"
    return data


def _encoded(payload: Any) -> str:
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e")


def _week_data(facts: PeriodFacts) -> dict[str, Any]:
    """The week's own figures, for sentences about the whole week (they cite no PR)."""
    out: dict[str, Any] = {"repo": facts.repo, "week": facts.period, "totals": facts.totals}
    if facts.earlier is not None:
        out["previous_week"] = {"week": facts.earlier.period, **facts.earlier.totals}
    out["trends"] = {
        name: [{"key": b.key, "count": b.count, "previous": b.previous} for b in buckets]
        for name, buckets in facts.trends.items()
        if buckets
    }
    return out


def batch_data(batch: Sequence[Sentence], facts: PeriodFacts) -> str:
    """The data block of one request: the week's figures, the cited PRs' facts, then the
    sentences."""
    cited = dict.fromkeys(n for s in batch for n in s.prs)
    prs = [_pr_data(pr, facts) for pr in (facts.pr(n) for n in cited) if pr is not None]
    payload = {**_week_data(facts), "prs": prs}
    if authors := _author_counts(cited, facts):
        payload["week_prs_by_author"] = authors
    payload = {**payload, "sentences": [_sentence_data(s, facts) for s in batch]}
    if facts.repos:  # a family's: every PR named by its reference, not its key
        payload = {"repos": list(facts.repos), **named_payload(payload, facts.repos)}
    return _encoded(payload)


def batches(
    sentences: Sequence[Sentence], facts: PeriodFacts, max_tokens: int
) -> list[list[Sentence]]:
    """The sentences in order, cut so that each request's data stays within BATCH_CHARS and
    its verdicts within `max_tokens` (a sentence too large alone goes alone)."""
    most = max(1, max_tokens // VERDICT_TOKENS)
    out: list[list[Sentence]] = []
    current: list[Sentence] = []
    for sentence in sentences:
        trial = [*current, sentence]
        if current and (len(trial) > most or len(batch_data(trial, facts)) > BATCH_CHARS):
            out.append(current)
            trial = [sentence]
        current = trial
    if current:
        out.append(current)
    return out


def _judgement(raw: Any, ids: set[int]) -> tuple[int, Judgement] | None:
    if not isinstance(raw, dict):
        raise InvalidVerdictsError("a verdict is not an object")
    number, verdict, reason = raw.get("id"), raw.get("verdict"), raw.get("reason", "")
    if not isinstance(number, int) or isinstance(number, bool) or verdict not in VERDICTS:
        raise InvalidVerdictsError("a verdict has no id or no verdict of the schema")
    if number not in ids:
        return None  # a sentence it was not asked about
    text = " ".join(reason.split()) if isinstance(reason, str) else ""
    return number, Judgement(str(verdict), bounded(text, REASON_CHARS))


def parse_verdicts(text: str, batch: Sequence[Sentence]) -> dict[int, Judgement]:
    """The verdicts of an answer on `batch`, by sentence id (the first for an id counts; an id
    it left out is not judged); InvalidVerdictsError when it is not JSON for the schema."""
    if len(text) > MAX_VERDICTS_CHARS:
        raise InvalidVerdictsError(f"larger than {MAX_VERDICTS_CHARS:,} characters")
    try:
        data = json.loads(text.strip())
    except (ValueError, RecursionError) as exc:
        raise InvalidVerdictsError(f"not JSON ({exc.__class__.__name__})") from None
    items = data.get("verdicts") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise InvalidVerdictsError("no list of verdicts")
    ids = {s.id for s in batch}
    out: dict[int, Judgement] = {}
    for raw in items:
        found = _judgement(raw, ids)
        if found is not None:
            out.setdefault(*found)
    return out


def verifier_reason(judgement: Judgement) -> str:
    """The audit list's reason for a sentence the verifier refused."""
    detail = f": {judgement.reason}" if judgement.reason else ""
    return masked(f"verifier {judgement.verdict}{detail}")


def _dropped(sentence: Sentence, judgement: Judgement) -> DroppedSentence:
    return DroppedSentence(
        section=sentence.section,
        text=masked(sentence.text),
        prs=list(sentence.prs),
        reasons=[verifier_reason(judgement)],
    )


def unjudged_note(unjudged: int, why: str) -> DroppedSentence:
    """The audit list's line for sentences kept without a verdict: nothing was dropped."""
    return DroppedSentence(
        section=NOTE_SECTION,
        text=masked(f"verification incomplete: {unjudged} sentences kept without a verdict"),
        reasons=[masked(f"verifier_failed: {bounded(why, REASON_CHARS)}")],
    )


def apply_verdicts(
    analysis: Analysis,
    sentences: Sequence[Sentence],
    judged: dict[int, Judgement],
    note: DroppedSentence | None = None,
) -> Analysis:
    """`analysis` with every sentence judged other than entailed moved to the audit list
    (unjudged ones stay), and `note` appended to the audit list when the pass was incomplete."""
    refused = {(s.section, s.index): s for s in sentences if not judged.get(s.id, _KEEP).entailed}
    update: dict[str, Any] = {}
    if ("headline", 0) in refused:
        update["headline"] = None
    for section in SECTIONS:
        items = getattr(analysis, section)
        if any((section, i) in refused for i in range(len(items))):
            update[section] = [it for i, it in enumerate(items) if (section, i) not in refused]
    dropped = [_dropped(s, judged[s.id]) for s in refused.values()]
    if not dropped and note is None:
        return analysis
    notes = [note] if note is not None else []
    return analysis.model_copy(update={**update, "dropped": [*analysis.dropped, *dropped, *notes]})
