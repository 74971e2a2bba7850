"""The checker: a sentence a model wrote is kept only if every claim in it stands in the week's
facts and evidence.

A sentence (and a key change's theme label) is kept only if
- every PR number in it is a PR of the week and one of the PRs the item rests on, and the item
  rests only on PRs of the week (a review note only on PRs with a reviewer's comment);
- every figure in it is one the facts hold (figure_rule.py);
- every path, module or identifier it quotes exists in those PRs (their facts, whole body or
  changed lines) or names a module of the week;
- every other claim is grounded (grounding.py: entities, actions, defaults, failures;
  sentence_claims.py: relations, comparisons, absence and universal claims, authorship and
  reviews) in the evidence index (evidence.py), read with one glossary (glossary.toml);
- a word of danger (风险, 回归, 破坏, 严重, regression, breaking, …) has a flagged risk or a
  reviewer's comment on one of those PRs behind it, unless the PR is said to fix it;
- it makes no claim of exclusivity (唯一, the only, sole, …): "the week's only breaking
  change" can't be read off the facts of the PRs it rests on, so it is never taken on trust;
- it holds no mention, link, domain, markup, instruction, request for a token or secret
  (injection.py);
- no name it takes from a PR's description was renamed before merge, and no name it tells as
  added is defined on a removed line (merged_names.py); no change is told the wrong way round
  and no pin is placed in a file the PR does not pin it in (transitions.py);
- it is in the report's language.
What fails is dropped with its reasons (`rule: detail`), kept in the digest as an audit list,
with any secret masked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from service.core.analyst import (
    attested,
    bucket_names,
    change_pairs,
    claims,
    counts,
    figure_rule,
    file_values,
    grounding,
    issue_refs,
    merged_names,
    quote_places,
    quoted,
    reverted,
    risk_claims,
    sentence_claims,
    structure,
    time_order,
    transitions,
)
from service.core.analyst.evidence import PeriodEvidence, PREvidence, text_actions
from service.core.analyst.facts import PeriodFacts, PRFacts
from service.core.analyst.glossary import glossary
from service.core.analyst.injection import (
    injection_reasons,
    masked,
    safety_reasons,
    without_code_markup,
)
from service.core.analyst.quotes import Quote, QuoteFinder, find_quotes, norm, quote_reasons
from service.core.analyst.schema import LIMITS, Draft
from service.core.models import Analysis, AnalysisItem, DroppedSentence, TokenUsage
from service.core.trends import known_login

MAX_CHARS = {"headline": 120, "theme": 40}
MAX_SENTENCE = 400
# sections whose items must name the PRs they rest on
NEED_PRS = frozenset({"key_changes", "pr_points", "recommendations", "review_notes"})
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA_HANGUL = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uac00-\ud7af]")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
# a zh sentence may carry English names from the facts; unknown English is at most this many
# letters per Chinese character
ZH_LATIN_PER_CJK = 3
_ALWAYS_KNOWN = frozenset({"pr", "prs"})

_DANGER = re.compile(
    r"风险|回归|破坏|严重|不兼容|隐患|危险|漏洞"
    r"|\b(?:risk(?:s|y|ier)?|regress(?:ion|ions|ed|es)?|break(?:s|ing)?|broke|broken"
    r"|severe(?:ly)?|serious(?:ly)?|critical|incompatib\w*|dangerous|unsafe|vulnerab\w*)\b",
    re.IGNORECASE,
)
# a recommendation to test is not a claim of danger
_NOT_DANGER = re.compile(
    r"回归测试|\bregression[- ]test\w*|\bnon-breaking\b|\bbackward[- ]compatib\w*", re.I
)

# danger words a fix may be said to fix (not "risk" or "severe")
_FIXED_DANGER = re.compile(r"broke|broken|breaks?|regress\w*|崩溃|破坏", re.IGNORECASE)

# claims about the rest of the week that one PR's facts can't back
_EXCLUSIVE = re.compile(
    r"唯一|独一|仅此一|前所未有|\bthe only\b|['’]s only\b|\bonly (?:one|PR)\b|\bsole(?:ly)?\b"
    r"|\bthe single\b|\bfirst[- ]ever\b|\bnever before\b",
    re.IGNORECASE,
)


@dataclass
class Checker:
    """Precomputed views of the week's facts (figures and words per PR), so that checking the
    sentences of a 2,000-PR week stays fast."""

    facts: PeriodFacts
    _numbers: dict[int, set[str]] = field(default_factory=dict)
    _ints: dict[int, list[int]] = field(default_factory=dict)
    _words: dict[int, str] = field(default_factory=dict)
    _stated: dict[tuple[int, str], set[str]] = field(default_factory=dict)
    week_numbers: set[str] = field(default_factory=set)
    week_ints: list[int] = field(default_factory=list)
    pr_counts: set[str] = field(default_factory=set)
    week_words: str = ""
    roots: frozenset[str] = frozenset()
    any_risk: bool = False
    evidence: PeriodEvidence = field(default_factory=PeriodEvidence)
    total_ints: list[int] = field(default_factory=list)
    date_ints: list[int] = field(default_factory=list)
    _week_text: str | None = None
    _quotes: QuoteFinder | None = None

    def __post_init__(self) -> None:
        f = self.facts
        values: list[int] = [*f.totals.values(), len(f.prs)]
        self.total_ints = list(values)
        year, week = f.period.split("-W") if "-W" in f.period else (f.period, "0")
        dates = [int(year), int(week)] if year.isdigit() and week.isdigit() else []
        for day in (f.first_day, f.last_day):
            dates += [int(part) for part in day.split("-") if part.isdigit()]
        self.date_ints = dates
        values += dates
        words = [f.repo, f.period]
        counts = [f.totals.get("prs", 0), f.totals.get("breaking_prs", 0), len(f.prs)]
        for buckets in f.trends.values():
            for b in buckets:
                counts.append(b.count)
                if b.previous is not None:
                    counts += [b.previous, abs(b.count - b.previous)]
                words.append(b.key)
        counts += [len(prs) for _kind, _severity, prs in f.risks]
        values += counts
        self.pr_counts = {str(v) for v in counts}
        self.week_ints = values
        self.week_numbers = {str(v) for v in values}
        self.roots = frozenset(p.split("/", 1)[0] for pr in f.prs for p in pr.paths if "/" in p)
        self.any_risk = bool(f.totals.get("risk_groups"))
        self.evidence = f.evidence or _facts_evidence(f)
        self.week_words = "\n".join([*words, *_authors(self.evidence)]).lower()

    @property
    def quotes(self) -> QuoteFinder:
        """Looks up the quotes of a sentence's evidence in the week's PR data."""
        if self._quotes is None:
            self._quotes = QuoteFinder(self.facts, self.evidence)
        return self._quotes

    def named_totals(self, text: str) -> set[str]:
        """The week's (and, when the sentence names it, the earlier week's) totals of what
        `text` names (risks, contributors, files …)."""
        out = quoted.named_totals(text, self.facts.totals)
        before = self.facts.earlier
        if before and (before.period in text or glossary().word("previous_week").search(text)):
            out |= quoted.named_totals(text, before.totals)
        return out

    def named_counts(self, text: str) -> list[int]:
        """The counts (this week's and the earlier week's) of every trend bucket `text` names
        ("rollout", "新功能类", "reverted")."""
        words = glossary()
        out: list[int] = []
        for kind, buckets in self.facts.trends.items():
            for b in buckets:
                if words.names_bucket(kind, b.key, text):
                    out += [b.count] if b.previous is None else [b.count, b.previous]
        return out

    @property
    def week_text(self) -> str:
        """Every PR's title, modules, category, type and paths (for "no X this week")."""
        if self._week_text is None:
            parts = [
                "\n".join([p.title, *p.modules, p.category, p.change_type, *p.paths])
                for p in self.facts.prs
            ]
            self._week_text = "\n".join([self.week_words, *parts]).lower()
        return self._week_text

    def cited_data(self, numbers: Sequence[int]) -> tuple[str, str]:
        """Everything the cited PRs hold (whole body, reviews, paths, both sides of the diff,
        the patches' unchanged lines) and what they say (title, body, reviews), as quotes are
        compared."""
        found = [e for e in (self.evidence.pr(n) for n in numbers) if e is not None]
        said = "\n".join(t for e in found for t in (e.text, *e.body))
        return "\n".join(norm(e.names) for e in found), said

    def file_lines(self, text: str, numbers: Sequence[int]) -> set[str]:
        """The line counts `text` states of a file of the PRs `numbers` it names
        ("新增 163 行的 env_metadata.py"): that file's added (or removed) lines."""
        sizes = {
            change.path: (change.additions, change.deletions)
            for n in numbers
            if (pr := self.evidence.collected.get(n)) is not None
            for change in pr.files
        }
        cited = [e for e in (self.evidence.pr(n) for n in numbers) if e is not None]
        return file_values.line_counts(text, cited, sizes) if sizes else set()

    def pr_text(self, pr: PRFacts) -> str:
        evidence = [e for r in pr.risks for e in r.evidence]
        return "\n".join([pr.title, pr.excerpt, *pr.review_notes, *evidence])

    def numbers(self, pr: PRFacts) -> set[str]:
        if pr.number not in self._numbers:
            ints = [pr.additions, pr.deletions, pr.additions + pr.deletions, pr.files]
            ints += [pr.files_removed, len(pr.modules), pr.number]
            found = claims.numbers_in(self.pr_text(pr))
            found |= {str(v) for v in ints} | claims.normalised(f"{pr.score:g}")
            self._numbers[pr.number] = found
            self._ints[pr.number] = ints + [int(v) for v in found if v.isdigit()]
        return self._numbers[pr.number]

    def stated(self, pr: PRFacts, kind: str) -> set[str]:
        """The multipliers or percentages the PR's text states."""
        key = (pr.number, kind)
        if key not in self._stated:
            self._stated[key] = claims.values_of_kind(self.pr_text(pr), kind)
        return self._stated[key]

    def ints(self, pr: PRFacts) -> list[int]:
        """The PR's integer facts (for `7.7k`-style rounded figures)."""
        self.numbers(pr)
        return self._ints[pr.number]

    def words(self, pr: PRFacts) -> str:
        if pr.number not in self._words:
            parts = [self.pr_text(pr), *pr.modules, *pr.paths, pr.category, pr.change_type]
            parts += [name for r in pr.risks for name in (r.kind, r.rule)]  # as the facts name them
            self._words[pr.number] = "\n".join(parts).lower()
        return self._words[pr.number]


def _authors(evidence: PeriodEvidence) -> list[str]:
    """The logins and display names of the week's authors: names a sentence may give
    (`yyDing1`, "Cheung Ka Wai"); what each wrote is the author counts' to check."""
    out = []
    for scored in evidence.scored.values():
        out += [known_login(scored.author) or "", scored.author_name or ""]
    return [name for name in dict.fromkeys(out) if name]


_HYPHENATED = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+")


def _facts_evidence(facts: PeriodFacts) -> PeriodEvidence:
    """Evidence from the facts alone, for facts built without a digest (no diff, no
    relations, no earlier week)."""
    evidence = PeriodEvidence()
    for pr in facts.prs:
        notes = [*pr.review_notes, *(e for r in pr.risks for e in r.evidence)]
        text = "\n".join([pr.title, pr.excerpt, *notes, *pr.modules]).lower()
        evidence._cache[pr.number] = PREvidence(
            number=pr.number,
            text=text,
            headline=" ".join([pr.title, *pr.modules]).lower(),
            paths="\n".join(pr.paths).lower(),
            actions=frozenset(text_actions(text)),
            said_actions=frozenset(text_actions(text)),
            risks=frozenset(r.kind for r in pr.risks),
            breaking=pr.breaking,
            reviewed=pr.reviewed,
        )
    return evidence


@dataclass(frozen=True)
class Claim:
    """A text and what it rests on, with the facts of those PRs gathered once."""

    text: str
    prs: tuple[int, ...]
    facts: tuple[PRFacts, ...]
    section: str
    quotes: tuple[Quote, ...] = ()  # the evidence the model gave, looked up


def _earlier_related(claim: Claim, checker: Checker) -> set[int]:
    """PRs of an earlier week the digest relates a cited PR of the week to ("#4259 reverts
    #4233", #4233 merged the week before): a sentence may name them, and its relation words
    are checked against those relations."""
    week = checker.facts.by_number
    cited = {n for n in claim.prs if n in week}
    return {
        r.earlier for r in checker.evidence.relations if r.later in cited and r.earlier not in week
    }


def _pr_rule(claim: Claim, checker: Checker) -> list[str]:
    week = checker.facts.by_number
    earlier = _earlier_related(claim, checker)
    cited = [e for e in (checker.evidence.pr(n) for n in claim.prs) if e is not None]
    closed = issue_refs.closed_by(cited)  # "…, fixing #6278": the PR says "Fixes #6278"
    reasons = [f"pr_not_in_week: #{n}" for n in claim.prs if n not in week and n not in earlier]
    for number in claims.pr_refs(claim.text):
        if number in earlier or (number in closed and number not in week):
            continue
        if number not in week:
            reasons.append(f"pr_not_in_week: #{number}")
        elif number not in claim.prs:
            reasons.append(f"pr_not_cited: #{number}")
    if not claim.prs and claim.section in NEED_PRS:
        reasons.append("no_prs: the item names no PR it rests on")
    if claim.section == "review_notes":  # what reviewers raised rests on what they wrote
        told = _review_told(claim.quotes)
        reasons += [
            f"no_review: #{pr.number}"
            for pr in claim.facts
            if not pr.reviewed and pr.number not in told
        ]
    return list(dict.fromkeys(reasons))


# "a reviewer objected to …", "addresses review feedback": a review the PR's body tells
_REVIEW_TOLD = re.compile(r"\breview(?:er|ers|ed|s)?\b|评审|审阅|审查|审核", re.IGNORECASE)


def _review_told(quotes: Sequence[Quote]) -> set[int]:
    """The PRs whose own words, quoted with the note, tell what a reviewer raised."""
    return {q.pr for q in quotes if q.found and q.side == "text" and _REVIEW_TOLD.search(q.text)}


def _known_word(token: str, blob: str) -> bool:
    lowered = token.lower().rstrip("/")
    known = lowered in blob or lowered.replace(".", "/") in blob
    return known or claims.setting_said(token, blob)


def _identifier_rule(claim: Claim, checker: Checker) -> list[str]:
    blob = "\n".join([checker.week_words, *(checker.words(pr) for pr in claim.facts)])
    blob += "\n" + quoted.risk_names(claim.facts)
    unknown = [t for t in claims.identifiers(claim.text, checker.roots) if not _known_word(t, blob)]
    if unknown and claim.facts:  # a name from the PR's whole body or its changed lines
        cited = [checker.evidence.pr(pr.number) for pr in claim.facts]
        diff = "\n".join(e.names for e in cited if e is not None)
        unknown = [t for t in unknown if not _known_word(t, diff)]
    return [f"identifier: {token}" for token in unknown]


def _danger_rule(claim: Claim, checker: Checker) -> list[str]:
    text = _NOT_DANGER.sub(" ", claim.text)
    found = _DANGER.search(text)
    if found is None:
        return []
    cited = [e for e in (checker.evidence.pr(n) for n in claim.prs) if e is not None]
    if grounding.fixes_it(text, cited, glossary()) and _FIXED_DANGER.fullmatch(found.group(0)):
        return []  # "fixes …, which broke reproducibility": the PR fixes the failure
    if claim.facts:
        backed = any(pr.flagged or pr.reviewed for pr in claim.facts)
    else:
        backed = checker.any_risk and not claim.prs
    return [] if backed else [f"unbacked_risk: {found.group(0)}"]


def _exclusive_rule(claim: Claim, _checker: Checker) -> list[str]:
    found = _EXCLUSIVE.search(claim.text)
    return [f"unverifiable_claim: {found.group(0)}"] if found else []


def _grounding_rule(claim: Claim, checker: Checker) -> list[str]:
    """Every claim of the sentence grounded in the evidence (see grounding.py)."""
    earlier = _earlier_related(claim, checker)
    cited_prs = [e for e in (checker.evidence.pr(n) for n in claim.prs) if e is not None]
    named = set(claims.pr_refs(claim.text)) - earlier - issue_refs.closed_by(cited_prs)
    outside = [n for n in claim.prs if n not in checker.facts.by_number and n not in earlier]
    if outside or named - set(claim.prs):
        return []  # the PR rule drops it already
    words = glossary()
    evidence = checker.evidence
    reasons = []
    cited = list(claim.prs)
    counted = bucket_names.counted_keys(claim.text, checker.facts.trends)
    for segment in grounding.segments(claim.text, cited, evidence):
        reasons += [
            r
            for r in grounding.entity_reasons(segment, words, checker.week_text)
            if r.removeprefix("entity: ").lower() not in counted
        ]
        reasons += grounding.action_reasons(segment, words, evidence)
        reasons += grounding.default_reasons(segment, words)
        reasons += grounding.failure_reasons(segment, evidence)
    prs = [e for e in (evidence.pr(n) for n in cited) if e is not None]
    reasons += sentence_claims.relation_reasons(claim.text, cited, evidence)
    reasons += grounding.befallen_reasons(claim.text, evidence)
    before = checker.facts.earlier
    reasons += sentence_claims.comparison_reasons(
        claim.text, evidence, checker.facts.totals, before.totals if before else None
    )
    said = "\n".join(e.text for e in prs).lower()
    leads = counts.leads_its_kind(claim.text, checker.facts.trends)
    reasons += sentence_claims.absence_reasons(
        claim.text, checker.week_text, cited, said, leads, prs
    )
    reasons += sentence_claims.people_reasons(claim.text, prs)
    reasons += sentence_claims.speed_reasons(claim.text, prs)
    return list(dict.fromkeys(reasons))


def _point(claim: Claim) -> int | None:
    """The PR a PR point is about (its first PR): its words need not name it."""
    return claim.prs[0] if claim.section == "pr_points" and claim.prs else None


def _merged_rule(claim: Claim, checker: Checker) -> list[str]:
    """Names told as merged that the merged change contradicts (merged_names.py): a name only
    in a stale description, new scripts of a PR that adds no file, a parameter that replaces
    another told as added, an existing mode or definition told as added, a name told as added
    that only the description holds, a name told as
    introduced by a PR that does not add it, a package told as still working that a PR took
    away. Quotes of the description
    do not settle these: the merged lines are the later word."""
    evidence = checker.evidence
    reasons = merged_names.renamed_reasons(claim.text, claim.prs, evidence)
    reasons += merged_names.new_file_reasons(claim.text, claim.prs, evidence)
    reasons += merged_names.replaced_parameter_reasons(claim.text, claim.prs, evidence)
    reasons += merged_names.existing_mode_reasons(claim.text, claim.prs, evidence)
    reasons += merged_names.introduced_by_reasons(claim.text, evidence)
    reasons += merged_names.gone_module_reasons(claim.text, claim.prs, evidence)
    point = _point(claim)
    reasons += merged_names.described_only_reasons(claim.text, claim.prs, evidence, point)
    return reasons + merged_names.existing_reasons(claim.text, claim.prs, evidence, point)


def _transition_rule(claim: Claim, checker: Checker) -> list[str]:
    """A change told the wrong way round, an old version told as the new one, a pin placed in
    a file the PR does not pin it in (transitions.py), PRs told in the wrong order of time
    (time_order.py), a change told without its revert or a revert without its re-landing
    (reverted.py)."""
    reasons = transitions.reversed_reasons(claim.text, claim.prs, checker.evidence)
    reasons += transitions.upgrade_reasons(claim.text, claim.prs, checker.evidence)
    reasons += time_order.order_reasons(claim.text, checker.evidence)
    reasons += reverted.reverted_reasons(claim.text, claim.prs, checker.evidence)
    return reasons + transitions.pin_file_reasons(claim.text, claim.prs, checker.evidence)


def _attested_rule(claim: Claim, checker: Checker) -> list[str]:
    """A verdict, a test run or a promise of no migration the cited PRs do not tell
    (attested.py); quotes do not settle it: the data's word against it is what counts."""
    cited = [e for e in (checker.evidence.pr(n) for n in claim.prs) if e is not None]
    return attested.attested_reasons(claim.text, cited)


def _safety_rule(claim: Claim, checker: Checker) -> list[str]:
    cited = [e for e in (checker.evidence.pr(n) for n in claim.prs) if e is not None]
    reasons = [r for r in safety_reasons(claim.text) if not r.startswith("markup: ")]
    # markup the cited patches hold as code (`recipe/**`) is copied code, not formatting
    reasons += [
        r
        for r in safety_reasons(without_code_markup(claim.text, cited))
        if r.startswith("markup: ")
    ]
    reasons += injection_reasons(claim.text, cited)
    return list(dict.fromkeys(reasons))


def _unknown_latin(text: str, blob: str) -> int:
    text = claims.without_code(text)
    # "TRT-LLM" is the data's `trtllm`: a hyphenated name is known when its parts joined are
    text = _HYPHENATED.sub(
        lambda m: " " if m.group(0).replace("-", "").lower() in blob else m.group(0), text
    )
    return sum(
        len(word)
        for word in _LATIN_WORD.findall(text)
        if word.lower() not in _ALWAYS_KNOWN and word.lower() not in blob
    )


def _language_rule(claim: Claim, checker: Checker) -> list[str]:
    language = checker.facts.language
    if _KANA_HANGUL.search(claim.text):
        return [f"language: not {language}"]
    blob = "\n".join([checker.week_words, *(checker.words(pr) for pr in claim.facts)])
    blob += "\n" + "\n".join(q.text.lower() for q in claim.quotes if q.found)
    if language == "zh":
        cjk = len(_CJK.findall(claim.text))
        unknown = _unknown_latin(claim.text, blob)
        if claim.section == "theme" and unknown == 0:
            return []  # a theme may be a name from the facts alone ("Megatron")
        if cjk == 0 or unknown > ZH_LATIN_PER_CJK * cjk:
            return ["language: not zh"]
        return []
    foreign = [run for run in _CJK_RUN.findall(claim.text) if run.lower() not in blob]
    return [f"language: not {language}"] if foreign else []


RULES: tuple[Callable[[Claim, Checker], list[str]], ...] = (
    _pr_rule,
    figure_rule.figure_reasons,
    _identifier_rule,
    _danger_rule,
    _exclusive_rule,
    _grounding_rule,
    _merged_rule,
    _transition_rule,
    _attested_rule,
    _safety_rule,
    _language_rule,
)


# the word rules a found quote or a matched value claim may settle (the safety, PR, language,
# danger, exclusivity and relation rules always stand)
_SETTLED_RULES = (figure_rule.figure_reasons, _identifier_rule, _grounding_rule)


def _claim_reasons(claim: Claim, checker: Checker) -> list[str]:
    """The reasons of every rule, the word rules' settled by the sentence's quotes (when it
    has evidence) and by the value claims the parsed config changes decide."""
    values = structure.value_claims(claim.text, claim.facts, checker.evidence, _point(claim))
    usable = quote_places.grounding_quotes(claim.text, claim.quotes)
    found = quoted.quoted(usable) if claim.quotes else None
    reasons: list[str] = []
    for rule in RULES:
        own = rule(claim, checker)
        reasons += quoted.settled(own, found, values) if rule in _SETTLED_RULES else own
    reasons += [c.reason for c in values if not c.ok]
    reasons += counts.author_count_reasons(
        claim.text, claim.prs, checker.evidence, checker.facts.repos
    )
    # a count of files the figure rule already drops is not told twice
    figured = {r.removeprefix("figure: ") for r in reasons if r.startswith("figure: ")}
    reasons += [
        r
        for r in counts.file_count_reasons(claim.text, claim.prs, checker.evidence)
        if r.split(":", 1)[0].removeprefix("count ") not in figured
    ]
    reasons += counts.level_sum_reasons(claim.text)
    reasons += risk_claims.count_reasons(claim.text, claim.facts)
    reasons += risk_claims.line_reasons(claim.text, claim.facts)
    reasons += counts.bucket_order_reasons(claim.text, checker.facts.trends)
    cited_prs = [e for e in (checker.evidence.pr(n) for n in claim.prs) if e is not None]
    reasons += change_pairs.change_reasons(claim.text, cited_prs)
    reasons += file_values.file_value_reasons(claim.text, cited_prs)
    reasons += file_values.added_to_reasons(claim.text, cited_prs)
    reasons += file_values.untouched_file_reasons(claim.text, cited_prs)
    reasons += file_values.assigned_reasons(claim.text, cited_prs)
    reasons += file_values.unchanged_key_reasons(claim.text, cited_prs)
    reasons += counts.bucket_count_reasons(
        claim.text, checker.facts.trends, checker.evidence.previous
    )
    if found is not None:
        reasons += quote_reasons(claim.quotes)
        reasons += quote_places.heading_reasons(claim.quotes, checker.evidence)
        reasons += quote_places.row_reasons(claim.text, claim.quotes)
        week = checker.week_ints + [int(v) for v in checker.named_totals(claim.text)]
        week += [int(v) for v in checker.file_lines(claim.text, claim.prs)]
        data, said = checker.cited_data(claim.prs)
        cited = [e for e in (checker.evidence.pr(n) for n in claim.prs) if e is not None]
        reasons += quoted.covering_reasons(
            claim.text, found, claim.facts, checker.week_words, week, data, said, cited
        )
        reasons += quoted.side_reasons(claim.text, found, values)
        reasons += quoted.diff_side_reasons(claim.text, cited, found)
    return list(dict.fromkeys(reasons))


def check_text(
    text: str,
    prs: Sequence[int],
    section: str,
    checker: Checker,
    evidence: Sequence[tuple[int, str]] = (),
) -> list[str]:
    """Every rule `text` breaks when it rests on `prs` with the quotes of `evidence` (empty:
    the text is kept)."""
    limit = MAX_CHARS.get(section, MAX_SENTENCE)
    reasons = [f"too_long: {len(text)} > {limit}"] if len(text) > limit else []
    found = tuple(f for f in (checker.facts.pr(n) for n in prs) if f is not None)
    quotes = tuple(find_quotes(checker.quotes, evidence, prs))
    return reasons + _claim_reasons(Claim(text, tuple(prs), found, section, quotes), checker)


def grounds(draft: Draft, checker: Checker) -> list[str]:
    """What grounded a kept sentence: its quotes as found, and the value claims the parsed
    config changes matched."""
    quotes = find_quotes(checker.quotes, draft.evidence, draft.prs)
    out = [q.shown() for q in quotes if q.found]
    facts = tuple(f for f in (checker.facts.pr(n) for n in draft.prs) if f is not None)
    point = draft.prs[0] if draft.section == "pr_points" and draft.prs else None
    values = structure.value_claims(draft.text, facts, checker.evidence, point)
    return out + [f"value of {c.key}: {c.grounds}" for c in values if c.ok]


def _check_draft(draft: Draft, checker: Checker) -> list[str]:
    reasons = check_text(draft.text, draft.prs, draft.section, checker, draft.evidence)
    if draft.section == "key_changes" and draft.theme:
        theme = check_text(draft.theme, draft.prs, "theme", checker, draft.evidence)
        reasons += [f"theme {reason}" for reason in theme if not reason.startswith("quote of")]
    return reasons


@dataclass
class _Sorted:
    kept: dict[str, list[AnalysisItem]] = field(default_factory=dict)
    dropped: list[DroppedSentence] = field(default_factory=list)
    seen_points: set[int] = field(default_factory=set)

    def drop(self, draft: Draft, reasons: list[str]) -> None:
        text = f"{draft.theme}: {draft.text}" if draft.theme else draft.text
        text = masked(text)  # a secret the model copied is never printed, not even here
        self.dropped.append(
            DroppedSentence(
                section=draft.section,
                text=text,
                prs=list(draft.prs),
                reasons=[masked(reason) for reason in reasons],
            )
        )


def _reasons(draft: Draft, sorted_: _Sorted, checker: Checker) -> list[str]:
    if len(sorted_.kept.get(draft.section, [])) >= LIMITS[draft.section]:
        return [f"over_limit: at most {LIMITS[draft.section]} in {draft.section}"]
    if draft.section == "pr_points" and draft.prs and draft.prs[0] in sorted_.seen_points:
        return [f"duplicate: a second point for #{draft.prs[0]}"]
    return _check_draft(draft, checker)


def check_answer(
    drafts: Sequence[Draft],
    facts: PeriodFacts,
    *,
    model: str,
    prompt_version: str,
    usage: TokenUsage | None = None,
    outcomes: list[str] | None = None,
) -> Analysis:
    """The checked analysis: the drafts that stand in `facts`, per section, and the audit list
    of the ones dropped with their reasons. `outcomes`, when given, gets one word per draft in
    order (`kept`, `dropped`, `empty`): what analyst-check prints, from this one pass."""
    checker = Checker(facts)
    out = _Sorted()
    said = outcomes.append if outcomes is not None else lambda _outcome: None
    for draft in drafts:
        text = " ".join(draft.text.split()) if "\n" not in draft.text else draft.text.strip()
        draft = replace(draft, text=text, theme=draft.theme.strip())
        if not draft.text:
            said("empty")
            continue  # an empty item claims nothing (a model with no headline leaves it empty)
        reasons = _reasons(draft, out, checker)
        said("dropped" if reasons else "kept")
        if reasons:
            out.drop(draft, reasons)
            continue
        if draft.section == "pr_points":
            out.seen_points.add(draft.prs[0])
        item = AnalysisItem(text=draft.text, prs=list(draft.prs), theme=draft.theme)
        out.kept.setdefault(draft.section, []).append(item)
    headline = out.kept.pop("headline", [None])[0]
    return Analysis(
        model=model,
        prompt_version=prompt_version,
        language=facts.language,
        headline=headline,
        dropped=out.dropped,
        usage=usage or TokenUsage(),
        **out.kept,
    )
