"""Importance 0-10 of a PR as a list of factors whose points sum to the score (deterministic)."""

from __future__ import annotations

import math
from collections.abc import Callable

from service.core.classify import OTHER, Classification
from service.core.models import Factor, FileStatus, PullRequest
from service.core.profile import RepoProfile

SCORE_MIN = 0.0
SCORE_MAX = 10.0
# size: 1.5 points per decade of changed lines (10 → 1.5, 100 → 3.0, 1000 → 4.5), capped
SIZE_PER_DECADE = 1.5
SIZE_MAX = 6.0
BREAKING_POINTS = 2.0
# core: share of changed lines in core paths, damped for tiny changes (full weight at 200 lines)
CORE_MAX = 1.5
CORE_FULL_LINES = 200
MODULE_MAX = 1.0
TYPE_MAX = 1.0
# removed files: points per doubling of the count (1 → 0.6, 3 → 1.2, 7 → 1.8), capped
REMOVED_PER_DOUBLING = 0.6
REMOVED_MAX = 2.5
# discussion: half a point per decade of comments; reviews: a quarter point per doubling
DISCUSSION_PER_DECADE = 0.5
DISCUSSION_MAX = 1.0
REVIEWS_PER_DOUBLING = 0.25
REVIEWS_MAX = 0.5
REVERT_POINTS = 1.0
PERCENT = 100
DECIMALS = 1

FactorRule = Callable[[PullRequest, Classification, RepoProfile, bool], Factor | None]


def _points(value: float) -> float:
    return round(value, DECIMALS) + 0.0


def _size(pr: PullRequest, c: Classification, profile: RepoProfile, rv: bool) -> Factor:
    lines = pr.additions + pr.deletions
    points = _points(min(SIZE_MAX, SIZE_PER_DECADE * math.log10(1 + lines)))
    return Factor(
        name="size",
        points=points,
        reason=f"{lines} changed lines (+{pr.additions}/-{pr.deletions}), log-scaled",
        params={"lines": lines, "additions": pr.additions, "deletions": pr.deletions},
    )


def _breaking(pr: PullRequest, c: Classification, profile: RepoProfile, rv: bool) -> Factor | None:
    if not c.breaking:
        return None
    return Factor(name="breaking", points=BREAKING_POINTS, reason="marked as a breaking change")


def _core(pr: PullRequest, c: Classification, profile: RepoProfile, rv: bool) -> Factor | None:
    lines = sum(f.additions + f.deletions for f in pr.files)
    core_lines = sum(f.additions + f.deletions for f in pr.files if profile.is_core(f.path))
    core_files = sum(1 for f in pr.files if profile.is_core(f.path))
    if core_files == 0:
        return None
    share = core_lines / lines if lines else 1.0
    damping = min(1.0, math.log10(1 + core_lines) / math.log10(1 + CORE_FULL_LINES))
    share_pct = round(share * PERCENT)
    points = _points(CORE_MAX * share * damping)
    if points <= 0:
        return None
    return Factor(
        name="core",
        points=points,
        reason=f"{core_lines} of {lines} changed lines ({share_pct}%) in {core_files} core files",
        params={
            "core_lines": core_lines,
            "lines": lines,
            "share_pct": share_pct,
            "files": core_files,
        },
    )


def _module(pr: PullRequest, c: Classification, profile: RepoProfile, rv: bool) -> Factor:
    modules = c.modules or ["misc"]
    top = max(modules, key=profile.module_weight)
    weight = profile.module_weight(top)
    return Factor(
        name="module",
        points=_points(MODULE_MAX * weight),
        reason=f"heaviest module {top} weighs {weight:g}",
        params={"module": top, "weight": weight},
    )


def _type(pr: PullRequest, c: Classification, profile: RepoProfile, rv: bool) -> Factor:
    weight = profile.type_weights.get(c.change_type, profile.type_weights.get(OTHER, 0.0))
    return Factor(
        name="type",
        points=_points(TYPE_MAX * weight),
        reason=f"change type {c.change_type} weighs {weight:g}",
        params={"type": c.change_type, "weight": weight},
    )


def _removed(pr: PullRequest, c: Classification, profile: RepoProfile, rv: bool) -> Factor | None:
    removed = sum(1 for f in pr.files if f.status == FileStatus.REMOVED)
    if removed == 0:
        return None
    return Factor(
        name="files_removed",
        points=_points(min(REMOVED_MAX, REMOVED_PER_DOUBLING * math.log2(1 + removed))),
        reason=f"{removed} files removed",
        params={"removed": removed},
    )


def _discussion(
    pr: PullRequest, c: Classification, profile: RepoProfile, rv: bool
) -> Factor | None:
    if pr.comments is None and pr.review_comments is None:
        return None
    comments = (pr.comments or 0) + (pr.review_comments or 0)
    points = _points(min(DISCUSSION_MAX, DISCUSSION_PER_DECADE * math.log10(1 + comments)))
    if points <= 0:
        return None
    return Factor(
        name="discussion",
        points=points,
        reason=f"{comments} comments and review comments",
        params={"comments": comments},
    )


def _reviews(pr: PullRequest, c: Classification, profile: RepoProfile, rv: bool) -> Factor | None:
    if not pr.reviews:
        return None
    count = len(pr.reviews)
    return Factor(
        name="reviews",
        points=_points(min(REVIEWS_MAX, REVIEWS_PER_DOUBLING * math.log2(1 + count))),
        reason=f"{count} reviews",
        params={"reviews": count},
    )


def _revert(pr: PullRequest, c: Classification, profile: RepoProfile, rv: bool) -> Factor | None:
    if c.is_revert:
        return Factor(name="revert", points=REVERT_POINTS, reason="reverts an earlier change")
    if rv:
        return Factor(name="reverted", points=REVERT_POINTS, reason="reverted by a later PR")
    return None


RULES: tuple[FactorRule, ...] = (
    _size,
    _breaking,
    _core,
    _module,
    _type,
    _removed,
    _discussion,
    _reviews,
    _revert,
)


def score_pr(
    pr: PullRequest, c: Classification, profile: RepoProfile, *, revert_involved: bool = False
) -> tuple[float, list[Factor]]:
    """The PR's importance in [0, 10] and the factors (points rounded to 0.1) that sum to it."""
    factors = [f for f in (rule(pr, c, profile, revert_involved) for rule in RULES) if f]
    total = _points(sum(f.points for f in factors))
    clamped = min(SCORE_MAX, max(SCORE_MIN, total))
    if clamped != total:
        factors.append(
            Factor(
                name="clamp",
                points=_points(clamped - total),
                reason=f"sum {total:g} clamped to the 0-10 scale",
                params={"total": total},
            )
        )
    return _points(sum(f.points for f in factors)), factors
