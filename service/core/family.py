"""One digest over a family of repositories (core/scope.py): each repository's week is
analysed as its own (its profile, its previous week), then merged into one Digest whose PRs
are keyed per repository (`scope.pr_key`), with the family's trends, stories and narrative,
each repository's figures, top PRs and key changes, and the ties found between them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from service.core.digest import breaking_numbers
from service.core.mentions import is_pr_param, leaf_risks
from service.core.models import (
    Completeness,
    Crossing,
    Digest,
    KeyChangeGroup,
    MissingItem,
    PullRequest,
    Relation,
    RepoPart,
    RepoPR,
    RepoTotals,
    Risk,
    Severity,
    Statement,
    Stats,
)
from service.core.narrative import build_narrative
from service.core.ranking import pr_rank
from service.core.scope import pr_key, ref_label, split_key
from service.core.stories import build_stories
from service.core.trends import authors, build_trends

TOP_PRS = 5
# a statement parameter holding the PR whose point the sentence tells (render/speaking)
POINT_PARAM = "point"
SEVERITY_ORDER = {Severity.HIGH: 0, Severity.MEDIUM: 1, Severity.LOW: 2}


def keyed_prs(prs: Sequence[PullRequest], index: int) -> list[PullRequest]:
    """The repository's PRs under their family keys."""
    return [p.model_copy(update={"number": pr_key(index, p.number)}) for p in prs]


def _key(index: int, value: int | None) -> int | None:
    return None if value is None else pr_key(index, value)


def _keyed_risk(risk: Risk, index: int) -> Risk:
    params = {
        k: pr_key(index, v) if isinstance(v, int) and is_pr_param(k) else v
        for k, v in risk.params.items()
    }
    return risk.model_copy(
        update={
            "prs": [pr_key(index, n) for n in risk.prs],
            "evidence": [e.model_copy(update={"pr": _key(index, e.pr)}) for e in risk.evidence],
            "members": [_keyed_risk(m, index) for m in risk.members],
            "params": params,
        }
    )


def _keyed_statement(item: Statement, index: int) -> Statement:
    params: dict[str, object] = {}
    for name, value in item.params.items():
        if isinstance(value, list) and value and all(isinstance(v, int) for v in value):
            value = [pr_key(index, int(v)) for v in value]
        elif isinstance(value, int) and (is_pr_param(name) or name == POINT_PARAM):
            value = pr_key(index, value)
        params[name] = value
    prs = [pr_key(index, n) for n in item.prs]
    return Statement.model_validate({"key": item.key, "params": params, "prs": prs})


def _keyed_relation(r: Relation, index: int) -> Relation:
    return r.model_copy(update={"pr": pr_key(index, r.pr), "other": pr_key(index, r.other)})


def keyed_digest(part: Digest, index: int, repo: str) -> Digest:
    """A repository's own digest with its PRs, risks, relations and key changes keyed for
    the family, and its PRs saying which repository they are of."""
    out = part.model_copy(deep=True)
    out.prs = [
        p.model_copy(update={"number": pr_key(index, p.number), "repo": repo}) for p in out.prs
    ]
    out.risks = [_keyed_risk(r, index) for r in out.risks]
    out.relations = [_keyed_relation(r, index) for r in out.relations]
    out.narrative.key_changes = [
        KeyChangeGroup(category=g.category, items=[_keyed_statement(s, index) for s in g.items])
        for g in out.narrative.key_changes
    ]
    out.completeness = Completeness(
        complete=part.completeness.complete,
        missing=[
            MissingItem(number=_key(index, m.number), what=m.what, reason=m.reason)
            for m in part.completeness.missing
        ],
    )
    return out


def _part(keyed: Digest, repos: Sequence[str], index: int) -> RepoPart:
    stats = keyed.stats
    return RepoPart(
        repo=repos[index],
        totals=RepoTotals(
            prs=stats.prs,
            additions=stats.additions,
            deletions=stats.deletions,
            files=stats.changed_files,
            contributors=stats.contributors,
            risks=len(leaf_risks(keyed.risks)),
        ),
        top=[
            RepoPR(
                number=split_key(p.number)[1],
                key=p.number,
                ref=ref_label(repos, p.number),
                title=p.title,
                url=p.url,
            )
            for p in keyed.prs[:TOP_PRS]
        ],
        quiet=not keyed.prs,
        key_changes=keyed.narrative.key_changes,
        moved_from=keyed.moved_from,
    )


def _stats(parts: Sequence[Digest], prs: Sequence[PullRequest]) -> Stats:
    total = Stats()
    for part in parts:
        s = part.stats
        total.prs += s.prs
        total.additions += s.additions
        total.deletions += s.deletions
        total.changed_files += s.changed_files
        total.risks_high += s.risks_high
        total.risks_medium += s.risks_medium
        total.risks_low += s.risks_low
    # as a repository's own digest counts them (core/digest.py), over the whole family
    total.contributors, total.unknown_authors = authors((p.author, p.author_name) for p in prs)
    return total


def merge_family(
    key: str,
    repos: Sequence[str],
    parts: Sequence[Digest],
    prs: Sequence[Sequence[PullRequest]],
    *,
    now: datetime,
    previous: Digest | None = None,
    crossings: Sequence[Crossing] = (),
    cross_relations: Sequence[Relation] = (),
    discussion_url: str = "",
) -> Digest:
    """The family's digest from each repository's own (`parts`, built from its `prs`, in the
    order of `repos`); `previous` is the family's digest of the period before; its discussion
    link searches every repository (the primary's own, when none is given)."""
    keyed = [keyed_digest(part, i, repos[i]) for i, part in enumerate(parts)]
    every = [p for i, week in enumerate(prs) for p in keyed_prs(week, i)]
    scored = sorted((p for d in keyed for p in d.prs), key=pr_rank)
    risks = sorted((r for d in keyed for r in d.risks), key=lambda r: SEVERITY_ORDER[r.severity])
    primary = parts[0]
    trends = build_trends(scored, every, previous=previous)
    stats = _stats(parts, every)
    if any(c.first_time is not None for c in trends.contributors):
        stats.first_time_contributors = sum(1 for c in trends.contributors if c.first_time)
    else:
        stats.first_time_contributors = None
    digest = Digest(
        repo=key,
        period=primary.period,
        timezone=primary.timezone,
        start=primary.start,
        end=primary.end,
        language=primary.language,
        generated_at=now,
        source=primary.source,
        stats=stats,
        prs=scored,
        risks=risks,
        trends=trends,
        relations=[*(r for d in keyed for r in d.relations), *cross_relations],
        completeness=Completeness(
            complete=all(d.completeness.complete for d in keyed),
            missing=[m for d in keyed for m in d.completeness.missing],
        ),
        discussion_url=discussion_url or primary.discussion_url,
        unknown=list(dict.fromkeys(u for d in keyed for u in d.unknown)),
        moved_from=[m for d in keyed for m in d.moved_from],
        repos=[_part(d, repos, i) for i, d in enumerate(keyed)],
        crossings=list(crossings),
    )
    digest.stories = build_stories(
        digest.prs, digest.relations, breaking_numbers(digest.prs, digest.risks)
    )
    digest.narrative = build_narrative(digest)
    return digest
