"""The facts a model is told about a week, bounded, and the same facts the checker holds its
sentences against: per PR its title, the body's own summary lines (the PR template left out,
secrets masked, links and mentions removed), a cleaned excerpt of the body, review notes and
approvals, failing checks, modules, size, score, risks with evidence, the config keys its
changed lines change (old → new) and its relations to other PRs (reverts, follow-up fixes);
the week's totals, the previous stored week's totals, trends and risks.

`facts_json` is the data section of the prompt. PR text is data: it is a JSON string inside a
delimited block, and `<` / `>` are written as `\\u003c` / `\\u003e`, so no PR text can close the
block or open a tag. A 2,000-PR week stays bounded: the top `FULL_PRS` in full, the next
`LINE_PRS` one line each, the rest only counted; and the data section stays within
`DATA_BUDGET` characters: when a big week's PRs say much, the PRs after the first
`DETAILED_PRS` are told with fewer summary lines and config keys, then fewer one-line PRs are
listed (`trimmed_payload`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from service.core.analyst.body import (
    github_references,
    scrub,
    speaks_to_the_model,
    summary_lines,
)
from service.core.analyst.config_changes import ConfigChange, config_changes
from service.core.analyst.evidence import PeriodEvidence, build_evidence
from service.core.analyst.family_refs import named_payload, qualified
from service.core.analyst.telling_lines import LINES_KEPT, telling_lines
from service.core.mentions import leaf_risks, risk_groups
from service.core.models import (
    Digest,
    PullRequest,
    RelationKind,
    ReviewState,
    Risk,
    RiskKind,
    ScoredPR,
    TrendBucket,
)
from service.core.models import Relation as DigestRelation
from service.core.narrative import STEP_KEY
from service.core.scope import pr_ref, split_key
from service.core.trends import authors

EXCERPT_CHARS = 1000
REVIEW_NOTES = 3
REVIEW_CHARS = 300
FULL_PRS = 20
LINE_PRS = 200
PATHS_SHOWN = 8
RISKS_SHOWN = 4
EVIDENCE_SHOWN = 2
SNIPPET_CHARS = 100
LINE_TITLE_CHARS = 90
TREND_BUCKETS = 12
BUCKET_PRS = 8
WEEK_RISKS = 15
CONFIG_SHOWN = 6
SUMMARY_SHOWN = 4
# changed lines shown: LINES_KEPT for the top DETAILED_PRS, at most LINES_AFTER for the others
LINES_AFTER = 3
SUMMARY_LINE_CHARS = 240
# the body lines the checker reads (the excerpt); the prompt shows the first SUMMARY_SHOWN
EXCERPT_LINES = 40
CHECKS_SHOWN = 3
RELATIONS_SHOWN = 4
# the prompt's data section at most (characters): about 17,000 tokens of data, under the
# 80,000-character prompt limit of issue 11 with the instructions and the schema around it
# (a recorded verl week needs 18,000-23,000)
DATA_BUDGET = 60_000
# the most important PRs keep every detail however big the week is
DETAILED_PRS = 8
# the detail the other fully listed PRs keep, step by step, until the data fits
# (summary lines, config keys, paths)
TRIM_STEPS = ((3, 3, 8), (2, 2, 8), (1, 1, 8), (0, 0, 8), (0, 0, 3))
ELLIPSIS = "…"
PAIR = 2  # a follow-up risk names [later, earlier]
# a relation a follow-up rule found, from each side: (later PR's word, earlier PR's word)
RELATION_WORDS = {
    "revert": ("reverts", "reverted_by"),
    "fix_reference": ("fixes", "fixed_by"),
    "fix_same_code": ("reworks", "reworked_by"),
    # the digest's relation (core/relations.py): a PR of the week rewrites lines another added
    "supersedes": ("supersedes", "superseded_by"),
}

_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_FENCE = re.compile(r"```.*?(?:```|$)", re.DOTALL)
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_URL = re.compile(r"\b(?:https?|ftp|javascript|vbscript|data|file|mailto):\S*|\bwww\.\S+", re.I)
_TAG = re.compile(r"<[^<>]{0,400}>")
_CHECKLIST_ITEM = re.compile(r"^\s*[-*]\s*\[[ xX]\].*$", re.MULTILINE)
_HEADING = re.compile(r"^\s*#{1,6}\s+", re.MULTILINE)
# verl's PR template ends with a checklist the author ticks: nothing about the change
_CHECKLIST_SECTION = re.compile(r"^\s*#{1,6}\s*checklist\b.*", re.IGNORECASE | re.MULTILINE)
_TEMPLATE_HEADING = re.compile(r"\bwhat does this pr do\?\s*", re.IGNORECASE)
_EMPHASIS = re.compile(r"(\*\*|__|~~)(.*?)\1", re.DOTALL)
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class RiskFact:
    kind: str
    rule: str
    severity: str
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class Relation:
    """What the digest found between this PR and `other`: `kind` is one of RELATION_WORDS'
    words (this PR `reverts` #other, is `reverted_by` #other, `fixes` #other …)."""

    kind: str
    other: int


@dataclass(frozen=True)
class EarlierPeriod:
    """The previous stored week: its label and totals (for "more than last week")."""

    period: str
    totals: dict[str, int]


@dataclass(frozen=True)
class PRFacts:
    """What is known about one PR of the week (the checker reads every field)."""

    number: int
    title: str
    excerpt: str = ""
    review_notes: tuple[str, ...] = ()
    changes_requested: bool = False
    modules: tuple[str, ...] = ()
    category: str = "other"
    change_type: str = "other"
    breaking: bool = False
    additions: int = 0
    deletions: int = 0
    files: int = 0
    files_removed: int = 0
    score: float = 0.0
    risks: tuple[RiskFact, ...] = ()
    paths: tuple[str, ...] = ()
    summary: tuple[str, ...] = ()
    config: tuple[ConfigChange, ...] = ()
    relations: tuple[Relation, ...] = ()
    approvals: int | None = None  # None: GitHub did not say (the git-history sample)
    failing_checks: tuple[str, ...] = ()
    lines: tuple[str, ...] = ()  # its most telling changed lines, `+path: line` / `-path: line`
    # unresolved review threads beyond the notes told (the prompt says how many more)
    more_review_notes: int = 0
    # in a family digest, how the PR is referred to (`verl-omni#25`); "" for one repository
    ref: str = ""

    @property
    def flagged(self) -> bool:
        """A detector raised a risk on this PR."""
        return bool(self.risks)

    @property
    def reviewed(self) -> bool:
        """A reviewer raised something: a thread left open at merge, or changes requested."""
        return bool(self.review_notes) or self.changes_requested


@dataclass(frozen=True)
class Bucket:
    key: str
    count: int
    previous: int | None
    prs: tuple[int, ...]
    more_prs: int = 0  # the bucket's PRs beyond `prs` (the first BUCKET_PRS)


@dataclass(frozen=True)
class PeriodFacts:
    """The week: totals, trends, risks and every PR's facts, most important PR first."""

    repo: str
    period: str
    language: str
    first_day: str
    last_day: str
    totals: dict[str, int]
    trends: dict[str, tuple[Bucket, ...]]
    # every risk group of the week: (kind, severity, its PRs); the prompt shows the first
    # WEEK_RISKS, each with its first BUCKET_PRS PRs
    risks: tuple[tuple[str, str, tuple[int, ...]], ...]
    prs: tuple[PRFacts, ...]
    by_number: dict[int, PRFacts] = field(default_factory=dict)
    # what the checker grounds claims in beyond these facts (diff sides, relations, earlier week)
    evidence: PeriodEvidence | None = field(default=None, compare=False, repr=False)
    earlier: EarlierPeriod | None = None
    # the findings (a PR's own risk) in each group of `risks`, in its order
    risk_findings: tuple[int, ...] = ()
    # trend buckets beyond the first TREND_BUCKETS, by trend
    more_buckets: dict[str, int] = field(default_factory=dict)
    # a family's repositories, the first the primary (core/scope.py); empty for one repository
    repos: tuple[str, ...] = ()
    # the PRs whose upgrade steps (what users must do) the report's summary opens with, written
    # by rules: the model is told not to restate them
    steps: tuple[int, ...] = ()

    def pr(self, number: int) -> PRFacts | None:
        return self.by_number.get(number)


def _unquoted(text: str) -> str:
    """`text` without block quotes: a `>` line and its lazy continuation lines (the PR
    template's hints are quotes)."""
    kept: list[str] = []
    quoted = False
    for line in text.splitlines():
        stripped = line.strip()
        quoted = bool(stripped) and (quoted or stripped.startswith(">"))
        if not quoted:
            kept.append(line)
    return "\n".join(kept)


def clean_text(text: str, repos: Collection[str] = ()) -> str:
    """PR text as plain prose: no comments, code blocks, images, links, URLs, tags, template
    hints or checklist (a link to a PR or an issue told as its reference, `#N`, `issue #N`,
    `owner/name#N` when not one of `repos`); emphasis and headings unmarked; whitespace
    collapsed."""
    checklist = _CHECKLIST_SECTION.search(text)
    if checklist:
        text = text[: checklist.start()]
    text = _FENCE.sub(" ", _COMMENT.sub(" ", text))
    text = _LINK.sub(r"\1", github_references(_IMAGE.sub(" ", text), repos))
    text = _TAG.sub(" ", _URL.sub(" ", text))
    text = _HEADING.sub("", _unquoted(_CHECKLIST_ITEM.sub(" ", text)))
    text = _TEMPLATE_HEADING.sub("", _EMPHASIS.sub(r"\2", text))
    return _SPACE.sub(" ", text).strip()


def bounded(text: str, limit: int) -> str:
    """At most `limit` characters, cut at a word boundary and ending with `…` when cut."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:(") + ELLIPSIS


def _risk_facts(risks: Sequence[Risk]) -> tuple[RiskFact, ...]:
    out = []
    for risk in risks:
        evidence = tuple(
            f"{e.path or ''}{':' + str(e.line) if e.line is not None else ''} "
            f"{bounded(e.snippet, SNIPPET_CHARS)}".strip()
            for e in risk.evidence[:EVIDENCE_SHOWN]
        )
        out.append(RiskFact(risk.kind.value, risk.rule, risk.severity.value, evidence))
    return tuple(out)


def _risks_by_pr(risks: Sequence[Risk]) -> dict[int, list[Risk]]:
    """Each PR's own risks; a roll-up contributes its member risks (each names one PR)."""
    out: dict[int, list[Risk]] = {}
    for risk in risks:
        for own in risk.members or [risk]:
            for number in dict.fromkeys(own.prs):
                out.setdefault(number, []).append(own)
    return out


def _review_notes(
    pr: PullRequest | None, repos: Collection[str] = ()
) -> tuple[tuple[str, ...], bool]:
    if pr is None:
        return (), False
    notes = []
    for thread in pr.unresolved_threads[:REVIEW_NOTES]:
        body = bounded(scrub(clean_text(thread.body, repos)), REVIEW_CHARS)
        if body and not speaks_to_the_model(body):
            notes.append(f"{thread.path}: {body}" if thread.path else body)
    changes = any(r.state == ReviewState.CHANGES_REQUESTED for r in pr.reviews or [])
    return tuple(notes), changes


def _more_review_notes(pr: PullRequest | None) -> int:
    """Unresolved threads beyond the first REVIEW_NOTES (those are read for the notes)."""
    return max(len(pr.unresolved_threads) - REVIEW_NOTES, 0) if pr is not None else 0


def _paths(pr: PullRequest | None) -> tuple[str, ...]:
    """The PR's files, the most changed first (the prompt shows the first few)."""
    if pr is None:
        return ()
    ranked = sorted(pr.files, key=lambda f: (-(f.additions + f.deletions), f.path))
    return tuple(f.path for f in ranked)


def _approvals(pr: PullRequest | None) -> int | None:
    """Distinct approving reviewers; each approval by no one the data can name counts apart."""
    if pr is None or pr.reviews is None:
        return None
    approved = [r for r in pr.reviews if r.state == ReviewState.APPROVED]
    known, unknown = authors((r.author, None) for r in approved)
    return known + unknown


def _relations(risks: Sequence[Risk]) -> dict[int, list[Relation]]:
    """Each PR's relations to other PRs, from the follow-up risks (`prs` is [later, earlier])."""
    out: dict[int, list[Relation]] = {}
    for risk in risks:
        for own in risk.members or [risk]:
            words = RELATION_WORDS.get(own.rule)
            if own.kind != RiskKind.FOLLOWUP or words is None or len(own.prs) < PAIR:
                continue
            later, earlier = own.prs[0], own.prs[1]
            out.setdefault(later, []).append(Relation(words[0], earlier))
            out.setdefault(earlier, []).append(Relation(words[1], later))
    return {n: list(dict.fromkeys(found)) for n, found in out.items()}


def _superseded(relations: Sequence[DigestRelation]) -> dict[int, list[Relation]]:
    """Each PR's `supersedes` / `superseded_by` relations among the digest's."""
    later_word, earlier_word = RELATION_WORDS["supersedes"]
    out: dict[int, list[Relation]] = {}
    for r in relations:
        if r.kind == RelationKind.SUPERSEDES:
            out.setdefault(r.pr, []).append(Relation(later_word, r.other))
            out.setdefault(r.other, []).append(Relation(earlier_word, r.pr))
    return out


def pr_facts(
    scored: ScoredPR,
    pr: PullRequest | None,
    risks: Sequence[Risk],
    relations: Sequence[Relation] = (),
    repos: Collection[str] = (),
    *,
    listed: bool = True,
) -> PRFacts:
    """The facts of one PR from its scored entry, its collected data, its own risks and the
    relations the digest found; `repos` are the names of the PR's repository (a link to
    one of its PRs is told `#N`); its telling changed lines only when it is `listed` in full."""
    notes, changes = _review_notes(pr, repos)
    lines = summary_lines(pr.body, EXCERPT_LINES, repos) if pr is not None else ()
    return PRFacts(
        number=scored.number,
        title=scored.title,
        excerpt=bounded(" ".join(lines), EXCERPT_CHARS),
        review_notes=notes,
        changes_requested=changes,
        modules=tuple(scored.modules),
        category=scored.category,
        change_type=scored.change_type,
        breaking=scored.breaking or any(r.kind == RiskKind.BREAKING for r in risks),
        additions=scored.additions,
        deletions=scored.deletions,
        files=scored.changed_files,
        files_removed=scored.files_removed,
        score=scored.score,
        risks=_risk_facts(_breaking_first(risks)),
        paths=_paths(pr),
        summary=lines,
        config=config_changes(pr),
        relations=tuple(relations),
        approvals=_approvals(pr),
        failing_checks=tuple(scrub(c.name) for c in pr.failing_checks) if pr else (),
        lines=telling_lines(pr) if listed else (),
        more_review_notes=_more_review_notes(pr),
        ref=pr_ref(scored.number, scored.repo) if split_key(scored.number)[0] else "",
    )


def _of_repo(facts: PRFacts, repo: str) -> PRFacts:
    """A family's PR of another repository than the primary: a bare `#N` in its own text is
    its repository's PR N (`verl-omni#N`), as GitHub reads it there."""
    if not facts.ref:
        return facts
    return dataclasses.replace(
        facts,
        title=qualified(facts.title, repo),
        excerpt=qualified(facts.excerpt, repo),
        summary=tuple(qualified(line, repo) for line in facts.summary),
        review_notes=tuple(qualified(note, repo) for note in facts.review_notes),
    )


def _breaking_first(risks: Sequence[Risk]) -> list[Risk]:
    """The PR's risks, a breaking one first (the prompt shows the first RISKS_SHOWN: never
    without the breaking risk that its `breaking` flag stands for), else in the given order."""
    return sorted(risks, key=lambda r: r.kind != RiskKind.BREAKING)


def _buckets(buckets: Sequence[TrendBucket]) -> tuple[Bucket, ...]:
    return tuple(
        Bucket(
            b.key, b.count, b.previous, tuple(b.prs[:BUCKET_PRS]), max(len(b.prs) - BUCKET_PRS, 0)
        )
        for b in buckets[:TREND_BUCKETS]
    )


def _totals(digest: Digest) -> dict[str, int]:
    """The week's figures, each named for what it counts: `risk_groups` are the report's risk
    items (the `risks` list: one kind at one severity), `risk_findings` each PR's own risk
    (what the groups hold; by severity in `risk_findings_high` …)."""
    stats = digest.stats
    findings = Counter(r.severity.value for r in leaf_risks(digest.risks))
    totals = {
        "prs": stats.prs,
        "additions": stats.additions,
        "deletions": stats.deletions,
        "changed_files": stats.changed_files,
        "contributors": stats.contributors,
        "risk_groups": len(risk_groups(digest.risks)),
        "risk_findings": findings.total(),
        "risk_findings_high": findings["high"],
        "risk_findings_medium": findings["medium"],
        "risk_findings_low": findings["low"],
        "breaking_prs": len(breaking_prs(digest)),
    }
    if stats.unknown_authors:
        totals["prs_by_unknown_authors"] = stats.unknown_authors
    if stats.first_time_contributors is not None:
        totals["first_time_contributors"] = stats.first_time_contributors
    return totals


def breaking_prs(digest: Digest) -> set[int]:
    """The PRs flagged breaking or named by a breaking risk (the same PRs in a digest built
    now; a stored one may predate `flag_breaking`)."""
    found = {n for r in leaf_risks(digest.risks) if r.kind == RiskKind.BREAKING for n in r.prs}
    return found | {p.number for p in digest.prs if p.breaking}


def _earlier(digest: Digest) -> EarlierPeriod | None:
    before, week = digest.trends.previous_stats, digest.trends.previous_period
    if before is None or week is None:
        return None
    totals = {
        "prs": before.prs,
        "additions": before.additions,
        "deletions": before.deletions,
        "changed_files": before.changed_files,
        "contributors": before.contributors,
        "risk_findings": before.risks_high + before.risks_medium + before.risks_low,
        "risk_findings_high": before.risks_high,
        "risk_findings_medium": before.risks_medium,
        "risk_findings_low": before.risks_low,
    }
    return EarlierPeriod(week, totals)


def own_names(digest: Digest) -> tuple[str, ...]:
    """The names of the digest's repository: a link to one of its PRs is told `#N`."""
    return (digest.repo, *digest.moved_from)


def build_facts(
    digest: Digest, prs: Sequence[PullRequest], language: str | None = None
) -> PeriodFacts:
    """The facts of `digest`'s week, to be written about in `language` (default: the digest's);
    `prs` are the collected PRs (bodies and reviews)."""
    collected = {pr.number: pr for pr in prs}
    own_risks = _risks_by_pr(digest.risks)
    relations = _relations(digest.risks)
    for number, found in _superseded(digest.relations).items():
        relations[number] = list(dict.fromkeys([*relations.get(number, []), *found]))
    repos = own_names(digest)
    facts = tuple(
        _of_repo(
            pr_facts(
                p,
                collected.get(p.number),
                own_risks.get(p.number, []),
                relations.get(p.number, []),
                (p.repo,) if split_key(p.number)[0] else repos,
                listed=i < FULL_PRS,
            ),
            p.repo,
        )
        for i, p in enumerate(digest.prs)
    )
    trends = digest.trends
    groups = risk_groups(digest.risks)
    kinds = {
        "modules": trends.modules,
        "categories": trends.categories,
        "types": trends.types,
        "labels": trends.labels,
    }
    return PeriodFacts(
        repo=digest.repo,
        period=digest.period,
        language=language or digest.language,
        first_day=digest.start.date().isoformat(),
        last_day=date.fromordinal(digest.end.date().toordinal() - 1).isoformat(),
        totals=_totals(digest),
        trends={name: _buckets(buckets) for name, buckets in kinds.items()},
        risks=tuple((g.kind.value, g.severity.value, tuple(g.prs)) for g in groups),
        risk_findings=tuple(len(g.risks) for g in groups),
        more_buckets={
            name: len(buckets) - TREND_BUCKETS
            for name, buckets in kinds.items()
            if len(buckets) > TREND_BUCKETS
        },
        prs=facts,
        by_number={f.number: f for f in facts},
        evidence=build_evidence(digest, prs),
        earlier=_earlier(digest),
        repos=tuple(digest.repo_names),
        steps=_step_prs(digest),
    )


def _step_prs(digest: Digest) -> tuple[int, ...]:
    told = (st for st in digest.narrative.summary if st.key.startswith(STEP_KEY))
    return tuple(dict.fromkeys(n for st in told for n in st.prs))


# --- the prompt's data section ----------------------------------------------------------------


def _full(
    pr: PRFacts, detail: tuple[int, int, int] | None = None, changed: int = LINES_KEPT
) -> dict[str, Any]:
    """One PR in full; `detail` (summary lines, config keys, paths) shown when trimmed, else
    all; at most `changed` of its changed lines; each list cut says how many more it has
    (`more_paths`, `more_summary` …)."""
    lines, keys, paths = (
        detail if detail is not None else (SUMMARY_SHOWN, CONFIG_SHOWN, PATHS_SHOWN)
    )
    out: dict[str, Any] = {
        "number": pr.number,
        **({"ref": pr.ref} if pr.ref else {}),
        "title": pr.title,
        "category": pr.category,
        "type": pr.change_type,
        "breaking": pr.breaking,
        "modules": list(pr.modules),
        "additions": pr.additions,
        "deletions": pr.deletions,
        "files": pr.files,
        "files_removed": pr.files_removed,
        "score": pr.score,
        "paths": list(pr.paths[:paths]),
        "summary": [bounded(line, SUMMARY_LINE_CHARS) for line in pr.summary[:lines]],
    }
    if len(pr.paths) > paths:
        out["more_paths"] = len(pr.paths) - paths
    if pr.config and keys:
        out["config_changes"] = [c.line() for c in pr.config[:keys]]
        if len(pr.config) > keys:
            out["more_config_changes"] = len(pr.config) - keys
    if pr.lines and changed:
        out["lines"] = list(pr.lines[:changed])
    if pr.relations:
        out["relations"] = [f"{r.kind} #{r.other}" for r in pr.relations[:RELATIONS_SHOWN]]
    out.update(_review(pr))
    if pr.risks:
        out["risks"] = [
            {"kind": r.kind, "severity": r.severity, "evidence": list(r.evidence)}
            for r in pr.risks[:RISKS_SHOWN]
        ]
    return out | _more(pr, lines)


def _more(pr: PRFacts, lines: int) -> dict[str, int]:
    """How many more of each list the PR has than `_full` shows (only the lists cut)."""
    cut = {
        "more_summary": len(pr.summary) - lines,
        "more_relations": len(pr.relations) - RELATIONS_SHOWN,
        "more_risks": len(pr.risks) - RISKS_SHOWN,
        "more_failing_checks": len(pr.failing_checks) - CHECKS_SHOWN,
        "more_review_notes": pr.more_review_notes,
    }
    return {key: more for key, more in cut.items() if more > 0}


def pr_payload(pr: PRFacts) -> dict[str, Any]:
    """One PR in full, as the prompt's data tells it (what the verifier is given too)."""
    return _full(pr)


def _review(pr: PRFacts) -> dict[str, Any]:
    """What reviewers and checks said, when GitHub told (nothing for the git-history sample)."""
    out: dict[str, Any] = {}
    if pr.approvals is not None:
        out["approvals"] = pr.approvals
    if pr.review_notes or pr.changes_requested:
        out["review_notes"] = list(pr.review_notes)
        out["changes_requested"] = pr.changes_requested
    if pr.failing_checks:
        out["failing_checks"] = list(pr.failing_checks[:CHECKS_SHOWN])
    return out


def _line(pr: PRFacts) -> str:
    modules = ",".join(pr.modules) or "-"
    title = bounded(pr.title, LINE_TITLE_CHARS)
    return (
        f"#{pr.number}{_ref_note(pr)} | {title} | {pr.category} | {modules} | "
        f"+{pr.additions}/-{pr.deletions} | {pr.files} files | score {pr.score}"
    )


def _ref_note(pr: PRFacts) -> str:
    """` (verl-omni#25)` beside a family's PR key; nothing for one repository's PR."""
    return f" ({pr.ref})" if pr.ref else ""


def _bucket_json(buckets: tuple[Bucket, ...]) -> list[dict[str, Any]]:
    out = []
    for b in buckets:
        shown = {"key": b.key, "count": b.count, "previous": b.previous, "prs": list(b.prs)}
        out.append(shown | ({"more_prs": b.more_prs} if b.more_prs else {}))
    return out


def _trends_json(facts: PeriodFacts) -> dict[str, Any]:
    """Each trend's buckets (the first TREND_BUCKETS), and how many more each trend has."""
    out: dict[str, Any] = {name: _bucket_json(b) for name, b in facts.trends.items() if b}
    return out | {f"more_{name}": more for name, more in facts.more_buckets.items()}


def _risks_json(facts: PeriodFacts) -> dict[str, Any]:
    """The week's risk groups (the first WEEK_RISKS, each with its first BUCKET_PRS PRs and
    its number of findings), and how many more groups there are."""
    shown = []
    findings = facts.risk_findings or tuple(1 for _ in facts.risks)
    for (kind, severity, prs), count in zip(facts.risks[:WEEK_RISKS], findings, strict=False):
        group: dict[str, Any] = {"kind": kind, "severity": severity, "findings": count}
        group["prs"] = list(prs[:BUCKET_PRS])
        if len(prs) > BUCKET_PRS:
            group["more_prs"] = len(prs) - BUCKET_PRS
        shown.append(group)
    out: dict[str, Any] = {"risks": shown}
    if len(facts.risks) > WEEK_RISKS:
        out["more_risks"] = len(facts.risks) - WEEK_RISKS
    return out


def _changed_lines(detail: tuple[int, int, int] | None, *, top: bool) -> int:
    """How many changed lines a fully listed PR shows: LINES_KEPT for a top PR until the last
    trimming steps (no summary line nor config key left: then none), at most LINES_AFTER and
    the config keys for the others."""
    if top:
        return 0 if detail is not None and not any(detail[:2]) else LINES_KEPT
    return LINES_AFTER if detail is None else min(LINES_AFTER, detail[1])


def facts_payload(facts: PeriodFacts, detail: tuple[int, int, int] | None = None) -> dict[str, Any]:
    """The data the model is given, as a JSON-able dict (bounded however large the week);
    `detail` (summary lines, config keys, paths) for the fully listed PRs after the first
    DETAILED_PRS (None: all of it)."""
    full = facts.prs[:FULL_PRS]
    lines = facts.prs[FULL_PRS : FULL_PRS + LINE_PRS]
    payload: dict[str, Any] = {
        "repo": facts.repo,
        "week": facts.period,
        "first_day": facts.first_day,
        "last_day": facts.last_day,
        "totals": facts.totals,
    }
    if facts.earlier is not None:
        payload["previous_week"] = {"week": facts.earlier.period, **facts.earlier.totals}
    payload |= {
        "trends": _trends_json(facts),
        **_risks_json(facts),
        "prs": [
            _full(p, None, _changed_lines(detail, top=True))
            if i < DETAILED_PRS
            else _full(p, detail, _changed_lines(detail, top=False))
            for i, p in enumerate(full)
        ],
        "more_prs": [_line(p) for p in lines],
    }
    if facts.steps:
        payload["summary_steps"] = {"prs": list(facts.steps)}
    unlisted = len(facts.prs) - len(full) - len(lines)
    if unlisted > 0:
        payload["prs_not_listed"] = unlisted
    if facts.repos:  # a family's: every PR named by its reference, not its key
        named: dict[str, Any] = named_payload(payload, facts.repos)
        return {"repo": facts.repo, "repos": list(facts.repos), **named}
    return payload


def _encoded(payload: dict[str, Any]) -> str:
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e")


def trimmed_payload(facts: PeriodFacts, budget: int = DATA_BUDGET) -> dict[str, Any]:
    """`facts_payload` in full when its JSON fits `budget` characters, else with the PRs after
    the first DETAILED_PRS told with fewer summary lines, config keys and paths, step by step;
    then, if it still does not fit, with the last one-line PRs only counted."""
    payload = facts_payload(facts)
    for step in TRIM_STEPS:
        if len(_encoded(payload)) <= budget:
            return payload
        payload = facts_payload(facts, step)
    lines: list[str] = payload["more_prs"]
    excess = len(_encoded(payload)) - budget
    while excess > 0 and lines:
        excess -= len(json.dumps(lines.pop(), ensure_ascii=False)) + 1
        payload["prs_not_listed"] = payload.get("prs_not_listed", 0) + 1
    return payload


def facts_json(facts: PeriodFacts, budget: int = DATA_BUDGET) -> str:
    """The prompt's data section: compact JSON in which no `<` or `>` survives as such, within
    `budget` characters when trimming the detail of the less important PRs can make it."""
    return _encoded(trimmed_payload(facts, budget))


def content_hash(data: str) -> str:
    """The cache key of an answer's input: sha256 of the prompt's data section."""
    return hashlib.sha256(data.encode("utf-8")).hexdigest()
