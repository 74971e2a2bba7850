"""The digest's narrative as catalog statements (key, params, PRs): executive summary, key
changes by category, trends and follow-up recommendations. No words here: every sentence is a
key of templates/strings/{zh,en}/narrative.toml."""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta

from service.core.models import (
    Digest,
    KeyChangeGroup,
    Narrative,
    Risk,
    RiskKind,
    ScoredPR,
    Severity,
    Statement,
    TrendBucket,
)
from service.core.titles import parse_title

Params = dict[str, str | int | float | list[int] | list[str]]
PREFIX = "narrative"
# how categories rank when their most important PRs score the same
CATEGORY_ORDER = (
    "migration",
    "refactor",
    "features",
    "performance",
    "fixes",
    "reverts",
    "hardware",
    "infra",
    "docs",
    "chores",
    "other",
)
NOT_THEMES = frozenset({"other", "chores"})
THEMES = 3
THEME_PRS = 3
# a PR is stated on its own line in key changes from this score on (else listed under "more")
NOTABLE_SCORE = 4.5
# a group whose best PR is below NOTABLE_SCORE still states it when it reaches this
GROUP_LEAD_SCORE = 3.0
MAX_NOTABLE_PER_GROUP = 4
# PR lists in sentences stop after this many numbers
MAX_LISTED = 8
TOP_MODULES = 5
TOP_SUMMARY_MODULES = 3
TOP_CONTRIBUTORS = 5
MAX_PATHS = 4
# core-path regression tests are advised for PRs this important with this many core points
REGRESSION_SCORE = 5.0
REGRESSION_CORE_POINTS = 0.5
REGRESSION_PRS = 5
REMOVED_FILES_NOTABLE = 5
# the migration detector's rule when files of the repository still name a removed path
MIGRATION_REFERENCES_REMAIN = "references_remain"
SEVERITY_RANK = {Severity.HIGH: 0, Severity.MEDIUM: 1, Severity.LOW: 2}
KIND_ORDER = tuple(RiskKind)


def key(*parts: str) -> str:
    """A narrative catalog key: `narrative.<part>.<part>`."""
    return ".".join((PREFIX, *parts))


def prs_text(numbers: list[int], limit: int = MAX_LISTED) -> str:
    """`#6200, #6162`; past `limit` numbers: `#1, #2, …(+3)`."""
    shown = ", ".join(f"#{n}" for n in numbers[:limit])
    rest = len(numbers) - limit
    return f"{shown}, …(+{rest})" if rest > 0 else shown


def signed(value: int) -> str:
    """`+2`, `-1`, `±0`."""
    return f"{value:+d}" if value else "±0"


def _lines(prs: list[ScoredPR]) -> int:
    return sum(p.additions + p.deletions for p in prs)


def _by_category(digest: Digest) -> dict[str, list[ScoredPR]]:
    groups: dict[str, list[ScoredPR]] = defaultdict(list)
    for pr in digest.prs:  # already most important first
        groups[pr.category].append(pr)
    return groups


def _ordered_categories(groups: dict[str, list[ScoredPR]]) -> list[str]:
    """Groups with the most important PR first; ties in CATEGORY_ORDER, then by name."""

    def rank(category: str) -> tuple[float, int, str]:
        position = (
            CATEGORY_ORDER.index(category) if category in CATEGORY_ORDER else len(CATEGORY_ORDER)
        )
        return (-max(p.score for p in groups[category]), position, category)

    return sorted(groups, key=rank)


def _risk_kinds(risks: list[Risk]) -> list[tuple[RiskKind, list[Risk]]]:
    """Risks by kind, the most severe kind first (then the most frequent, then kind order)."""
    by_kind: dict[RiskKind, list[Risk]] = defaultdict(list)
    for risk in risks:
        by_kind[risk.kind].append(risk)
    return sorted(
        by_kind.items(),
        key=lambda item: (
            min(SEVERITY_RANK[r.severity] for r in item[1]),
            -len(item[1]),
            KIND_ORDER.index(item[0]),
        ),
    )


def _risk_prs(risks: list[Risk], digest: Digest) -> list[int]:
    """PR numbers named by `risks`, most important PR first."""
    rank = {p.number: i for i, p in enumerate(digest.prs)}
    numbers = {n for r in risks for n in r.prs}
    return sorted(numbers, key=lambda n: (rank.get(n, len(rank)), n))


# --- executive summary ------------------------------------------------------------------


def _overview(digest: Digest) -> Statement:
    stats = digest.stats
    last_day = (digest.end - timedelta(days=1)).date()
    return Statement(
        key=key("summary", "overview"),
        params={
            "count": stats.prs,
            "prs": stats.prs,
            "additions": stats.additions,
            "deletions": stats.deletions,
            "files": stats.changed_files,
            "contributors": stats.contributors,
            "week": digest.week,
            "repo": digest.repo,
            "first_day": digest.start.date().isoformat(),
            "last_day": last_day.isoformat(),
        },
    )


def _weight(prs: list[ScoredPR]) -> float:
    """A theme weighs what its notable PRs score together."""
    return sum(p.score for p in prs if p.score >= NOTABLE_SCORE)


def _themes(digest: Digest) -> list[Statement]:
    groups = _by_category(digest)
    ranked = sorted(
        (c for c in groups if c not in NOT_THEMES),
        key=lambda c: (-_weight(groups[c]), -sum(p.score for p in groups[c]), c),
    )[:THEMES]
    if not ranked:
        return []
    out = [Statement(key=key("summary", "themes"), params={"count": len(ranked)})]
    for category in ranked:
        prs = groups[category]
        top = [p.number for p in prs[:THEME_PRS]]
        params: Params = {
            "count": len(prs),
            "lines": _lines(prs),
            "prs_text": prs_text(top),
            "all_prs_text": prs_text([p.number for p in prs]),
        }
        out.append(
            Statement(key=key("theme", category), params=params, prs=[p.number for p in prs])
        )
    return out


def _flagged(digest: Digest) -> list[Statement]:
    out: list[Statement] = []
    breaking = [p.number for p in digest.prs if p.breaking]
    if breaking:
        params = {"count": len(breaking), "prs_text": prs_text(breaking)}
        out.append(Statement(key=key("summary", "breaking"), params=params, prs=breaking))
    reverts = [p.number for p in digest.prs if p.change_type == "revert"]
    if reverts:
        params = {"count": len(reverts), "prs_text": prs_text(reverts)}
        out.append(Statement(key=key("summary", "reverts"), params=params, prs=reverts))
    first = [c.login for c in digest.trends.contributors if c.first_time]
    if first:
        params = {"count": len(first), "logins_text": ", ".join(first)}
        out.append(Statement(key=key("summary", "first_timers"), params=params))
    return out


def _risk_headline(digest: Digest) -> list[Statement]:
    stats = digest.stats
    if not digest.risks:
        return [Statement(key=key("summary", "no_risks"))]
    counts = {
        "count": len(digest.risks),
        "total": len(digest.risks),
        "high": stats.risks_high,
        "medium": stats.risks_medium,
        "low": stats.risks_low,
    }
    out = [Statement(key=key("summary", "risks"), params=counts)]
    kind, risks = _risk_kinds(digest.risks)[0]
    numbers = _risk_prs(risks, digest)
    params = {"count": len(risks), "prs_text": prs_text(numbers)}
    out.append(Statement(key=key("summary", "risk_top", kind.value), params=params, prs=numbers))
    return out


def _incomplete(digest: Digest) -> list[Statement]:
    if digest.completeness.complete and not digest.completeness.missing:
        return []
    missing = digest.completeness.missing
    numbers = sorted({m.number for m in missing if m.number is not None})
    params = {
        "count": len(missing),
        "prs_text": prs_text(numbers),
        "pages": sum(1 for m in missing if m.number is None),
    }
    return [Statement(key=key("summary", "incomplete"), params=params, prs=numbers)]


def build_summary(digest: Digest) -> list[Statement]:
    """Counts and lines, the week's themes, flagged PRs, the risk headline, data gaps."""
    if not digest.prs:
        return [_overview(digest), Statement(key=key("summary", "empty")), *_incomplete(digest)]
    top = digest.prs[0]
    highest = Statement(
        key=key("summary", "top_pr"),
        params={"number": top.number, "score": top.score, "gist": top.gist, "title": top.title},
        prs=[top.number],
    )
    modules = digest.trends.modules[:TOP_SUMMARY_MODULES]
    busiest = [
        Statement(
            key=key("summary", "modules"),
            params={"count": len(modules), "modules_text": _counts_text(modules)},
        )
    ]
    return [
        _overview(digest),
        *_themes(digest),
        *(busiest if modules else []),
        highest,
        *_flagged(digest),
        *_risk_headline(digest),
        *_incomplete(digest),
    ]


# --- key changes ------------------------------------------------------------------------


def _revert_params(pr: ScoredPR, digest: Digest) -> tuple[str, dict[str, str | int]]:
    parsed = parse_title(pr.title)
    reverted_title = parsed.reverted_title or ""
    target = next((p for p in digest.prs if p.title.strip() == reverted_title.strip()), None)
    if target is not None:
        return "pr_revert_of", {"reverted": target.number, "reverted_title": reverted_title}
    return "pr_revert", {"reverted_title": reverted_title}


def pr_statement(pr: ScoredPR, digest: Digest) -> Statement:
    """One key-change line for a notable PR: gist, modules, size, files (and what is special)."""
    params: Params = {
        "number": pr.number,
        "title": pr.title,
        "gist": pr.gist,
        "modules_text": ", ".join(pr.modules),
        "files": pr.changed_files,
        "additions": pr.additions,
        "deletions": pr.deletions,
        "lines": pr.additions + pr.deletions,
        "removed": pr.files_removed,
        "score": pr.score,
        "count": pr.changed_files,  # picks the catalog's one-file sentence
    }
    variant = "pr"
    if pr.change_type == "revert":
        variant, extra = _revert_params(pr, digest)
        params.update(extra)
    elif pr.files_removed >= REMOVED_FILES_NOTABLE:
        variant = "pr_removal"
    elif pr.breaking:
        variant = "pr_breaking"
    return Statement(key=key("change", variant), params=params, prs=[pr.number])


def _group(category: str, prs: list[ScoredPR], digest: Digest) -> KeyChangeGroup:
    notable = [p for p in prs if p.score >= NOTABLE_SCORE][:MAX_NOTABLE_PER_GROUP]
    if not notable and prs[0].score >= GROUP_LEAD_SCORE:
        notable = [prs[0]]
    items = [pr_statement(p, digest) for p in notable]
    rest = [p.number for p in prs if p not in notable]
    if rest:
        more_key = "more" if notable else "listed"
        params = {"count": len(rest), "prs_text": prs_text(rest, limit=len(rest))}
        items.append(Statement(key=key("change", more_key), params=params, prs=rest))
    return KeyChangeGroup(category=category, items=items)


def build_key_changes(digest: Digest) -> list[KeyChangeGroup]:
    """Every PR of the week under its category: notable ones stated, the rest listed."""
    groups = _by_category(digest)
    return [_group(c, groups[c], digest) for c in _ordered_categories(groups)]


# --- trends -----------------------------------------------------------------------------


def _bucket_params(bucket: TrendBucket) -> Params:
    params: Params = {
        "count": bucket.count,
        "prs_text": prs_text(bucket.prs),
    }
    if bucket.previous is not None:
        params["previous"] = bucket.previous
        params["delta_signed"] = signed(bucket.count - bucket.previous)
    return params


def _module_trends(digest: Digest) -> list[Statement]:
    out = []
    for bucket in digest.trends.modules[:TOP_MODULES]:
        params = _bucket_params(bucket)
        params["module"] = bucket.key
        name = "module" if bucket.previous is None else "module_vs"
        out.append(Statement(key=key("trend", name), params=params, prs=bucket.prs))
    return out


def _category_trends(digest: Digest) -> list[Statement]:
    out = []
    for bucket in digest.trends.categories:
        name = "category" if bucket.previous is None else "category_vs"
        statement = Statement(
            key=key("trend", name, bucket.key), params=_bucket_params(bucket), prs=bucket.prs
        )
        out.append(statement)
    return out


def _counts_text(buckets: list[TrendBucket]) -> str:
    return ", ".join(f"{b.key} {b.count}" for b in buckets)


def _people_trends(digest: Digest) -> list[Statement]:
    people = digest.trends.contributors
    if not people:
        return []
    top = people[:TOP_CONTRIBUTORS]
    params: Params = {
        "count": len(people),
        "top_text": ", ".join(f"{c.login} ({len(c.prs)})" for c in top),
    }
    return [Statement(key=key("trend", "contributors"), params=params)]


def build_trend_statements(digest: Digest) -> list[Statement]:
    """Top modules and every category with counts (and change from last week); types; people."""
    trends = digest.trends
    out: list[Statement] = []
    params: Params
    if trends.previous_week:
        params = {"previous_week": trends.previous_week}
        out.append(Statement(key=key("trend", "compared_with"), params=params))
    out += [*_module_trends(digest), *_category_trends(digest)]
    if trends.types:
        params = {"types_text": _counts_text(trends.types), "count": len(trends.types)}
        out.append(Statement(key=key("trend", "types"), params=params))
    if trends.labels:
        params = {"labels_text": _counts_text(trends.labels), "count": len(trends.labels)}
        out.append(Statement(key=key("trend", "labels"), params=params))
    return out + _people_trends(digest)


# --- recommendations --------------------------------------------------------------------


def _risk_recommendation(kind: RiskKind, risks: list[Risk], digest: Digest) -> Statement:
    numbers = _risk_prs(risks, digest)
    paths = sorted({e.path for r in risks for e in r.evidence if e.path})
    params: Params = {
        "count": len(numbers),
        "prs_text": prs_text(numbers),
        "paths_text": ", ".join(paths[:MAX_PATHS]) + (", …" if len(paths) > MAX_PATHS else ""),
    }
    return Statement(key=key("recommend", _recommend_name(kind, risks)), params=params, prs=numbers)


def _recommend_name(kind: RiskKind, risks: list[Risk]) -> str:
    """The risk kind, and for migrations what is known about references to removed paths."""
    if kind != RiskKind.MIGRATION:
        return kind.value
    if any(r.rule == MIGRATION_REFERENCES_REMAIN for r in risks):
        return kind.value
    if all(r.verified for r in risks):
        return "migration_clean"
    return "migration_unverified"


def _core_regression(digest: Digest) -> list[Statement]:
    numbers = [
        p.number
        for p in digest.prs
        if p.score >= REGRESSION_SCORE
        and any(f.name == "core" and f.points >= REGRESSION_CORE_POINTS for f in p.factors)
    ][:REGRESSION_PRS]
    if not numbers:
        return []
    params = {"count": len(numbers), "prs_text": prs_text(numbers)}
    return [Statement(key=key("recommend", "regression_core"), params=params, prs=numbers)]


def _week_recommendations(digest: Digest, covered: set[RiskKind]) -> list[Statement]:
    out = _core_regression(digest)
    removed = [p.number for p in digest.prs if p.files_removed >= REMOVED_FILES_NOTABLE]
    if removed and RiskKind.MIGRATION not in covered:
        params = {"count": len(removed), "prs_text": prs_text(removed)}
        out.append(Statement(key=key("recommend", "removed_paths"), params=params, prs=removed))
    reverts = [p.number for p in digest.prs if p.change_type == "revert"]
    if reverts and RiskKind.FOLLOWUP not in covered:
        params = {"count": len(reverts), "prs_text": prs_text(reverts)}
        out.append(Statement(key=key("recommend", "reverts"), params=params, prs=reverts))
    if not digest.completeness.complete or digest.completeness.missing:
        params = {"count": len(digest.completeness.missing)}
        out.append(Statement(key=key("recommend", "incomplete"), params=params))
    return out


def build_recommendations(digest: Digest) -> list[Statement]:
    """One follow-up per risk kind (naming its PRs), then what the week itself calls for."""
    kinds = _risk_kinds(digest.risks)
    out = [_risk_recommendation(kind, risks, digest) for kind, risks in kinds]
    out += _week_recommendations(digest, {kind for kind, _ in kinds})
    if not out:
        out.append(Statement(key=key("recommend", "none")))
    return out


def build_narrative(digest: Digest) -> Narrative:
    """The narrative of a digest whose prs, risks, trends and stats are filled."""
    return Narrative(
        summary=build_summary(digest),
        key_changes=build_key_changes(digest),
        trends=build_trend_statements(digest),
        recommendations=build_recommendations(digest),
    )
