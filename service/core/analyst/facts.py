"""The facts a model is told about a week, bounded, and the same facts the checker holds its
sentences against: per PR its title, a cleaned excerpt of the body, review notes, modules, size,
score and risks with evidence; the week's totals, trends and risks.

`facts_json` is the data section of the prompt. PR text is data: it is a JSON string inside a
delimited block, and `<` / `>` are written as `\\u003c` / `\\u003e`, so no PR text can close the
block or open a tag. A 2,000-PR week stays bounded: the top `FULL_PRS` in full, the next
`LINE_PRS` one line each, the rest only counted.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from service.core.analyst.evidence import WeekEvidence, build_evidence
from service.core.models import (
    Digest,
    PullRequest,
    ReviewState,
    Risk,
    ScoredPR,
    TrendBucket,
)

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
ELLIPSIS = "…"

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


@dataclass(frozen=True)
class WeekFacts:
    """The week: totals, trends, risks and every PR's facts, most important PR first."""

    repo: str
    week: str
    language: str
    first_day: str
    last_day: str
    totals: dict[str, int]
    trends: dict[str, tuple[Bucket, ...]]
    risks: tuple[tuple[str, str, tuple[int, ...]], ...]
    prs: tuple[PRFacts, ...]
    by_number: dict[int, PRFacts] = field(default_factory=dict)
    # what the checker grounds claims in beyond these facts (diff sides, relations, earlier week)
    evidence: WeekEvidence | None = field(default=None, compare=False, repr=False)

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


def clean_text(text: str) -> str:
    """PR text as plain prose: no comments, code blocks, images, links, URLs, tags, template
    hints or checklist; emphasis and headings unmarked; whitespace collapsed."""
    checklist = _CHECKLIST_SECTION.search(text)
    if checklist:
        text = text[: checklist.start()]
    text = _FENCE.sub(" ", _COMMENT.sub(" ", text))
    text = _LINK.sub(r"\1", _IMAGE.sub(" ", text))
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


def _review_notes(pr: PullRequest | None) -> tuple[tuple[str, ...], bool]:
    if pr is None:
        return (), False
    notes = []
    for thread in pr.unresolved_threads[:REVIEW_NOTES]:
        body = bounded(clean_text(thread.body), REVIEW_CHARS)
        if body:
            notes.append(f"{thread.path}: {body}" if thread.path else body)
    changes = any(r.state == ReviewState.CHANGES_REQUESTED for r in pr.reviews or [])
    return tuple(notes), changes


def _paths(pr: PullRequest | None) -> tuple[str, ...]:
    """The PR's files, the most changed first (the prompt shows the first few)."""
    if pr is None:
        return ()
    ranked = sorted(pr.files, key=lambda f: (-(f.additions + f.deletions), f.path))
    return tuple(f.path for f in ranked)


def pr_facts(scored: ScoredPR, pr: PullRequest | None, risks: Sequence[Risk]) -> PRFacts:
    """The facts of one PR from its scored entry, its collected data and its own risks."""
    notes, changes = _review_notes(pr)
    body = clean_text(pr.body) if pr is not None else ""
    return PRFacts(
        number=scored.number,
        title=scored.title,
        excerpt=bounded(body, EXCERPT_CHARS),
        review_notes=notes,
        changes_requested=changes,
        modules=tuple(scored.modules),
        category=scored.category,
        change_type=scored.change_type,
        breaking=scored.breaking,
        additions=scored.additions,
        deletions=scored.deletions,
        files=scored.changed_files,
        files_removed=scored.files_removed,
        score=scored.score,
        risks=_risk_facts(risks[:RISKS_SHOWN]),
        paths=_paths(pr),
    )


def _buckets(buckets: Sequence[TrendBucket]) -> tuple[Bucket, ...]:
    return tuple(
        Bucket(b.key, b.count, b.previous, tuple(b.prs[:BUCKET_PRS]))
        for b in buckets[:TREND_BUCKETS]
    )


def _totals(digest: Digest) -> dict[str, int]:
    stats = digest.stats
    totals = {
        "prs": stats.prs,
        "additions": stats.additions,
        "deletions": stats.deletions,
        "changed_files": stats.changed_files,
        "contributors": stats.contributors,
        "risks": len(digest.risks),
        "risks_high": stats.risks_high,
        "risks_medium": stats.risks_medium,
        "risks_low": stats.risks_low,
        "breaking_prs": sum(1 for p in digest.prs if p.breaking),
    }
    if stats.first_time_contributors is not None:
        totals["first_time_contributors"] = stats.first_time_contributors
    return totals


def build_facts(
    digest: Digest, prs: Sequence[PullRequest], language: str | None = None
) -> WeekFacts:
    """The facts of `digest`'s week, to be written about in `language` (default: the digest's);
    `prs` are the collected PRs (bodies and reviews)."""
    collected = {pr.number: pr for pr in prs}
    own_risks = _risks_by_pr(digest.risks)
    facts = tuple(
        pr_facts(p, collected.get(p.number), own_risks.get(p.number, [])) for p in digest.prs
    )
    trends = digest.trends
    return WeekFacts(
        repo=digest.repo,
        week=digest.week,
        language=language or digest.language,
        first_day=digest.start.date().isoformat(),
        last_day=date.fromordinal(digest.end.date().toordinal() - 1).isoformat(),
        totals=_totals(digest),
        trends={
            "modules": _buckets(trends.modules),
            "categories": _buckets(trends.categories),
            "types": _buckets(trends.types),
            "labels": _buckets(trends.labels),
        },
        risks=tuple(
            (r.kind.value, r.severity.value, tuple(r.prs[:BUCKET_PRS]))
            for r in digest.risks[:WEEK_RISKS]
        ),
        prs=facts,
        by_number={f.number: f for f in facts},
        evidence=build_evidence(digest, prs),
    )


# --- the prompt's data section ----------------------------------------------------------------


def _full(pr: PRFacts) -> dict[str, Any]:
    out: dict[str, Any] = {
        "number": pr.number,
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
        "paths": list(pr.paths[:PATHS_SHOWN]),
        "body_excerpt": pr.excerpt,
    }
    if len(pr.paths) > PATHS_SHOWN:
        out["more_paths"] = len(pr.paths) - PATHS_SHOWN
    if pr.review_notes or pr.changes_requested:
        out["review_notes"] = list(pr.review_notes)
        out["changes_requested"] = pr.changes_requested
    if pr.risks:
        out["risks"] = [
            {"kind": r.kind, "severity": r.severity, "evidence": list(r.evidence)} for r in pr.risks
        ]
    return out


def _line(pr: PRFacts) -> str:
    modules = ",".join(pr.modules) or "-"
    title = bounded(pr.title, LINE_TITLE_CHARS)
    return (
        f"#{pr.number} | {title} | {pr.category} | {modules} | "
        f"+{pr.additions}/-{pr.deletions} | {pr.files} files | score {pr.score}"
    )


def _bucket_json(buckets: tuple[Bucket, ...]) -> list[dict[str, Any]]:
    return [
        {"key": b.key, "count": b.count, "previous": b.previous, "prs": list(b.prs)}
        for b in buckets
    ]


def facts_payload(facts: WeekFacts) -> dict[str, Any]:
    """The data the model is given, as a JSON-able dict (bounded however large the week)."""
    full = facts.prs[:FULL_PRS]
    lines = facts.prs[FULL_PRS : FULL_PRS + LINE_PRS]
    payload: dict[str, Any] = {
        "repo": facts.repo,
        "week": facts.week,
        "first_day": facts.first_day,
        "last_day": facts.last_day,
        "totals": facts.totals,
        "trends": {name: _bucket_json(b) for name, b in facts.trends.items() if b},
        "risks": [{"kind": k, "severity": s, "prs": list(p)} for k, s, p in facts.risks],
        "prs": [_full(p) for p in full],
        "more_prs": [_line(p) for p in lines],
    }
    unlisted = len(facts.prs) - len(full) - len(lines)
    if unlisted > 0:
        payload["prs_not_listed"] = unlisted
    return payload


def facts_json(facts: WeekFacts) -> str:
    """The prompt's data section: compact JSON in which no `<` or `>` survives as such."""
    text = json.dumps(facts_payload(facts), ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e")


def content_hash(data: str) -> str:
    """The cache key of an answer's input: sha256 of the prompt's data section."""
    return hashlib.sha256(data.encode("utf-8")).hexdigest()
