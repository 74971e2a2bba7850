"""build_trends: buckets with their PRs, change from the previous week, contributors."""

from __future__ import annotations

from datetime import UTC, datetime

from service.core.digest import build_digest
from service.core.models import CollectedPeriod, PullRequest, ScoredPR
from service.core.profile import RepoProfile
from service.core.trends import build_contributors, build_trends
from tests.conftest import NOW, load_week

WHEN = datetime(2026, 1, 20, tzinfo=UTC)


def _scored(number: int, modules: list[str], change_type: str, category: str) -> ScoredPR:
    return ScoredPR(
        number=number,
        title=f"PR {number}",
        url="",
        merged_at=WHEN,
        modules=modules,
        change_type=change_type,
        category=category,
    )


def _pr(number: int, author: str | None, **extra: object) -> PullRequest:
    return PullRequest(
        number=number,
        title=f"PR {number}",
        author=author,
        created_at=WHEN,
        merged_at=WHEN,
        **extra,
    )


def test_buckets_count_prs_per_key_with_their_numbers() -> None:
    scored = [
        _scored(3, ["rollout", "vllm"], "feat", "features"),
        _scored(1, ["rollout"], "fix", "fixes"),
        _scored(2, ["vllm"], "fix", "fixes"),
    ]
    trends = build_trends(scored, [_pr(n, "a") for n in (1, 2, 3)], previous=None)
    assert [(b.key, b.count, b.prs) for b in trends.modules] == [
        ("rollout", 2, [1, 3]),
        ("vllm", 2, [2, 3]),
    ]
    assert [(b.key, b.count) for b in trends.types] == [("fix", 2), ("feat", 1)]
    assert [(b.key, b.prs) for b in trends.categories] == [("fixes", [1, 2]), ("features", [3])]
    assert all(b.previous is None for b in trends.modules)
    assert trends.labels == []  # GitHub gave no labels
    assert trends.previous_period is None


def test_labels_counted_only_when_known() -> None:
    scored = [_scored(1, ["ci"], "ci", "infra"), _scored(2, ["ci"], "ci", "infra")]
    prs = [_pr(1, "a", labels=["ci", "npu"]), _pr(2, "b", labels=["ci"])]
    trends = build_trends(scored, prs, previous=None)
    assert [(b.key, b.count, b.prs) for b in trends.labels] == [("ci", 2, [1, 2]), ("npu", 1, [1])]


def test_change_from_previous_real_week(verl_profile: RepoProfile) -> None:
    w47, w48 = load_week("2025-W47"), load_week("2025-W48")
    previous = build_digest(w47, verl_profile, language="zh", now=NOW)
    current = build_digest(w48, verl_profile, language="zh", now=NOW, previous=previous)
    trends = current.trends
    assert trends.previous_period == "2025-W47"
    before = {b.key: b.count for b in previous.trends.modules}
    for bucket in trends.modules:
        assert bucket.previous == before.get(bucket.key, 0)
        assert bucket.count == len(bucket.prs)
    recipe = next(b for b in trends.modules if b.key == "recipe")
    assert (recipe.count, recipe.previous, recipe.delta) == (7, 10, -3)
    refactor = next(b for b in trends.categories if b.key == "refactor")
    assert (refactor.count, refactor.previous) == (2, 0)  # 4211, 4352; none in W47
    reverts = next(b for b in trends.types if b.key == "revert")
    assert (reverts.prs, reverts.previous) == ([4258, 4259, 4260], 1)


def test_every_pr_of_a_real_week_is_behind_each_dimension(verl_profile: RepoProfile) -> None:
    week: CollectedPeriod = load_week("2026-W03")
    digest = build_digest(week, verl_profile, language="en", now=NOW)
    numbers = {pr.number for pr in week.prs}
    for buckets in (digest.trends.types, digest.trends.categories):
        assert sorted(n for b in buckets for n in b.prs) == sorted(numbers)
    assert {n for b in digest.trends.modules for n in b.prs} == numbers


def test_contributors_with_their_prs_most_active_first() -> None:
    prs = [_pr(5, "bob"), _pr(2, "alice"), _pr(3, "bob"), _pr(4, None)]
    people = build_contributors(prs)
    assert [(c.login, c.prs) for c in people] == [("bob", [3, 5]), ("alice", [2])]
    assert not any(c.first_time for c in people)


def test_authors_behind_a_placeholder_login_are_shown_by_their_names() -> None:
    """GitHub's `ghost` and git history's `unknown` name no one: each author behind one is
    keyed and shown by the display name (as data read from git history already was), never as
    `@unknown` nor merged into one contributor."""
    prs = [
        _pr(1, "unknown", author_name="ℍ𝕠𝕝𝕝𝕠𝕨 𝕄𝕒𝕟"),
        _pr(2, "unknown", author_name="ℍ𝕠𝕝𝕝𝕠𝕨 𝕄𝕒𝕟"),
        _pr(3, "ghost", author_name="Someone Else"),
        _pr(4, "unknown"),  # no name either: no one the data can name
    ]
    people = build_contributors(prs)
    assert [(c.login, c.prs) for c in people] == [("ℍ𝕠𝕝𝕝𝕠𝕨 𝕄𝕒𝕟", [1, 2]), ("Someone Else", [3])]


def test_first_time_from_github_association() -> None:
    prs = [
        _pr(1, "new", author_association="FIRST_TIME_CONTRIBUTOR"),
        _pr(2, "newer", author_association="FIRST_TIMER"),
        _pr(3, "old", author_association="MEMBER"),
    ]
    first = {c.login: c.first_time for c in build_contributors(prs, earlier_authors=set())}
    assert first == {"new": True, "newer": True, "old": False}  # GitHub's word wins


def test_first_time_from_earlier_authors_when_github_does_not_say() -> None:
    prs = [_pr(1, "known"), _pr(2, "stranger")]
    first = {c.login: c.first_time for c in build_contributors(prs, earlier_authors={"known"})}
    assert first == {"known": False, "stranger": True}


def test_real_week_contributors(verl_profile: RepoProfile) -> None:
    week = load_week("2025-W48")
    digest = build_digest(week, verl_profile, language="zh", now=NOW)
    people = {c.login: c.prs for c in digest.trends.contributors}
    assert people["Chi-Zhang"] == [4258, 4260, 4269, 4279, 4322, 4352]
    assert digest.trends.contributors[0].login == "Chi-Zhang"  # the most PRs of the week
    assert sum(len(p) for p in people.values()) == len(week.prs)
    assert digest.stats.contributors == len(people)
