"""build_digest: classify, score, detect risks, trends and narrative for one collected week."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from service.core.classify import Classification, classify_pr
from service.core.discussion import discussion
from service.core.gists import files_gist, gist_of
from service.core.mentions import leaf_risks
from service.core.models import (
    DIGEST_SCHEMA_VERSION,
    CollectedPeriod,
    Contributor,
    Digest,
    FileStatus,
    PullRequest,
    Risk,
    RiskKind,
    ScoredPR,
    Severity,
    Statement,
    Stats,
)
from service.core.narrative import build_narrative
from service.core.periods import previous_period
from service.core.points import comment_only, pr_facts
from service.core.profile import RepoProfile
from service.core.ranking import pr_rank
from service.core.relations import find_relations
from service.core.risks import config_changes, ranked, risk_context, risks_by_pr
from service.core.risks.base import Context
from service.core.score import score_pr
from service.core.stories import build_stories
from service.core.trends import authors, build_contributors, build_trends
from service.core.unknown import unknown_facts
from service.core.weeks import window_containing

_REVERTS_REF = re.compile(r"\breverts\s+(?:[\w.-]+/[\w.-]+)?#(\d+)", re.IGNORECASE)


def _reverted_numbers(prs: list[PullRequest], classes: dict[int, Classification]) -> set[int]:
    """PRs of the week that a revert of the week undoes (by body reference or quoted title)."""
    titles = {pr.title.strip(): pr.number for pr in prs}
    out: set[int] = set()
    for pr in prs:
        c = classes[pr.number]
        if not c.is_revert:
            continue
        out.update(int(n) for n in _REVERTS_REF.findall(pr.body or ""))
        if c.reverted_title and c.reverted_title.strip() in titles:
            out.add(titles[c.reverted_title.strip()])
    return out


@dataclass(frozen=True)
class _Read:
    """What the scoring takes from a PR's parsed patches, read while the detectors hold them."""

    facts: list[Statement]
    comment_only: bool


def _read(pr: PullRequest, c: Classification, profile: RepoProfile, context: Context) -> _Read:
    """The PR's points and whether it changes comments only, on the patches (and setting
    changes) its detectors worked out."""
    parsed, settings = context.parsed, config_changes.of_pr(pr, context)
    facts = pr_facts(pr, profile, c.change_type, c.modules, parsed, settings)
    return _Read(facts, comment_only(pr, parsed))


def _scored(
    pr: PullRequest,
    c: Classification,
    profile: RepoProfile,
    *,
    reverted: bool,
    risks: int,
    read: _Read,
) -> ScoredPR:
    score, factors = score_pr(pr, c, profile, revert_involved=reverted or c.is_revert)
    return ScoredPR(
        number=pr.number,
        title=pr.title,
        url=pr.url,
        author=pr.author,
        author_name=pr.author_name,
        merged_at=pr.merged_at,
        modules=c.modules,
        change_type=c.change_type,
        breaking=c.breaking,
        category=c.category,
        gist=gist_of(pr),
        files_gist=files_gist(pr),
        facts=read.facts,
        comment_only=read.comment_only,
        additions=pr.additions,
        deletions=pr.deletions,
        changed_files=pr.changed_files or len(pr.files),
        files_removed=sum(1 for f in pr.files if f.status == FileStatus.REMOVED),
        paths=list(dict.fromkeys(p for f in pr.files for p in (f.path, f.previous_path) if p)),
        score=score,
        factors=factors,
        risk_count=risks,
        discussion=discussion(pr),
    )


def changed_paths(prs: list[PullRequest]) -> int:
    """Distinct files the week changed (a file two PRs touch counts once); a PR that came
    without its file list adds its own count."""
    paths = {f.path for pr in prs for f in pr.files}
    return len(paths) + sum(pr.changed_files for pr in prs if not pr.files)


def _stats(prs: list[PullRequest], scored: list[ScoredPR], risks: list[Risk]) -> Stats:
    severities = Counter(r.severity for r in leaf_risks(risks))
    contributors, unknown = authors((p.author, p.author_name) for p in prs)
    return Stats(
        prs=len(scored),
        additions=sum(p.additions for p in scored),
        deletions=sum(p.deletions for p in scored),
        changed_files=changed_paths(prs),
        contributors=contributors,
        unknown_authors=unknown,
        risks_high=severities[Severity.HIGH],
        risks_medium=severities[Severity.MEDIUM],
        risks_low=severities[Severity.LOW],
    )


def flag_breaking(prs: Sequence[ScoredPR], risks: Sequence[Risk]) -> None:
    """Each PR's `breaking` flag is whether a breaking risk names it (declared in the title or
    a label, or found in the diff), so the flag and the risks never disagree; the score was
    given by the declaration alone."""
    found = {n for r in leaf_risks(list(risks)) if r.kind == RiskKind.BREAKING for n in r.prs}
    for pr in prs:
        pr.breaking = pr.number in found


def breaking_numbers(prs: Sequence[ScoredPR], risks: Sequence[Risk]) -> set[int]:
    """PRs that break users: declared `[BREAKING]`, or named by a breaking or migration risk."""
    kinds = (RiskKind.BREAKING, RiskKind.MIGRATION)
    found = {n for r in leaf_risks(list(risks)) if r.kind in kinds for n in r.prs}
    return found | {p.number for p in prs if p.breaking}


def add_stories(
    digest: Digest, prs: Sequence[PullRequest], earlier: Mapping[str, Sequence[PullRequest]]
) -> None:
    """The digest's relations (to this week's and `earlier` weeks' PRs) and its stories."""
    digest.relations = find_relations(digest.repo, prs, earlier)
    digest.stories = build_stories(
        digest.prs, digest.relations, breaking_numbers(digest.prs, digest.risks)
    )


def _first_timers(people: list[Contributor]) -> int | None:
    if all(c.first_time is None for c in people):
        return None
    return sum(1 for c in people if c.first_time)


def build_digest(
    week: CollectedPeriod,
    profile: RepoProfile,
    *,
    language: str,
    now: datetime,
    previous: Digest | None = None,
    earlier: list[PullRequest] | None = None,
    discussion_url: str = "",
    earlier_weeks: Mapping[str, Sequence[PullRequest]] | None = None,
) -> Digest:
    """The digest of `week`: scored PRs (most important first), risks, trends, relations and
    stories, and narrative. `earlier` are the previous week's PRs (for follow-up risks and
    relations); `earlier_weeks` (week label → PRs) may hold more stored weeks for relations."""
    prs = week.prs
    classes = {pr.number: classify_pr(pr, profile) for pr in prs}
    references = week.remaining_references if week.references_checked else None
    # PR by PR, the detectors then the scoring's reading of the same parsed patches, which
    # are let go before the next PR's are parsed: a big week's are never all held at once
    context = risk_context(prs, profile, earlier=earlier or [], references=references)
    found: list[Risk] = []
    read: list[_Read] = []
    for pr, risks_of_pr in risks_by_pr(prs, context):
        found += risks_of_pr
        read.append(_read(pr, classes[pr.number], profile, context))
    del context
    risks = ranked(found)
    per_pr = Counter(n for risk in leaf_risks(risks) for n in set(risk.prs))
    reverted = _reverted_numbers(prs, classes)
    scored = [
        _scored(
            pr,
            classes[pr.number],
            profile,
            reverted=pr.number in reverted,
            risks=per_pr[pr.number],
            read=read_of_pr,
        )
        for pr, read_of_pr in zip(prs, read, strict=True)
    ]
    scored.sort(key=pr_rank)
    flag_breaking(scored, risks)
    trends = build_trends(scored, prs, previous=previous)
    stats = _stats(prs, scored, risks)
    stats.first_time_contributors = _first_timers(trends.contributors)
    digest = Digest(
        repo=week.repo,
        period=week.window.label,
        timezone=week.window.timezone,
        start=week.window.start,
        end=week.window.end,
        language=language,
        generated_at=now,
        source=week.source,
        stats=stats,
        prs=scored,
        risks=risks,
        trends=trends,
        completeness=week.completeness,
        discussion_url=discussion_url,
        unknown=unknown_facts(prs),
        moved_from=week.moved_from,
    )
    history = dict(earlier_weeks or {})
    if earlier:
        history.setdefault(previous_period(week.window).label, earlier)
    add_stories(digest, prs, with_older(history, week))
    digest.narrative = build_narrative(digest)
    return digest


def with_older(
    history: Mapping[str, Sequence[PullRequest]], week: CollectedPeriod
) -> dict[str, list[PullRequest]]:
    """`history` and the older PRs the week names (`week.older`), each under the week it was
    merged in, so relations link "#4280 broke this" to #4280 by number and title."""
    out = {label: list(prs) for label, prs in history.items()}
    seen = {p.number for prs in out.values() for p in prs} | {p.number for p in week.prs}
    for pr in week.older:
        if pr.number not in seen:
            label = window_containing(pr.merged_at, week.window.timezone).label
            out.setdefault(label, []).append(pr)
    return out


def upgrade_digest(
    digest: Digest,
    prs: list[PullRequest],
    earlier: Mapping[str, Sequence[PullRequest]] | None = None,
) -> Digest:
    """A digest stored by an older schema, brought to this one without the profile: what the
    week's PR snapshots (`prs`, may be empty) and the digest itself tell is derived again
    (gists, names, distinct files, contributors, unknown facts, relations to `earlier` weeks'
    PRs and stories, the narrative); scores and risks stay as they were built."""
    if digest.schema_version >= DIGEST_SCHEMA_VERSION:
        return digest
    out = digest.model_copy(deep=True)
    out.schema_version = DIGEST_SCHEMA_VERSION
    snapshots = {pr.number: pr for pr in prs}
    week = [snapshots[p.number] for p in out.prs if p.number in snapshots]
    if len(week) == len(out.prs):
        for scored in out.prs:
            pr = snapshots[scored.number]
            scored.gist, scored.files_gist = gist_of(pr), files_gist(pr)
            scored.author_name = pr.author_name
        out.trends.contributors = build_contributors(week)
        out.stats.changed_files = changed_paths(week)
        out.stats.first_time_contributors = _first_timers(out.trends.contributors)
        out.unknown = unknown_facts(week)
        add_stories(out, week, earlier or {})
    flag_breaking(out.prs, out.risks)
    out.narrative = build_narrative(out)
    return out
