"""score_pr: deterministic factors summing to a 0-10 score; real-week ranking at both ends."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.core.classify import classify_pr
from service.core.models import FileChange, FileStatus, PullRequest, Review, ReviewState
from service.core.profile import RepoProfile
from service.core.score import score_pr
from service.render.environment import translator
from tests.conftest import load_week

WHEN = datetime(2026, 1, 20, tzinfo=UTC)


def _ranking(label: str, profile: RepoProfile) -> list[int]:
    """PR numbers of a real week, most important first (ties by number)."""
    scored = []
    for pr in load_week(label).prs:
        score, _ = score_pr(pr, classify_pr(pr, profile), profile)
        scored.append((-score, pr.number))
    return [number for _, number in sorted(scored)]


def _score(pr: PullRequest, profile: RepoProfile, **kw: bool) -> tuple[float, dict[str, float]]:
    score, factors = score_pr(pr, classify_pr(pr, profile), profile, **kw)
    return score, {f.name: f.points for f in factors}


def _pr(title: str, files: list[FileChange], **extra: object) -> PullRequest:
    return PullRequest(
        number=7,
        title=title,
        created_at=WHEN,
        merged_at=WHEN,
        additions=sum(f.additions for f in files),
        deletions=sum(f.deletions for f in files),
        changed_files=len(files),
        files=files,
        **extra,
    )


@pytest.mark.parametrize(
    ("week", "number", "top"),
    [
        ("2025-W48", 4283, 3),  # migration: moves recipes to verl-recipe, 21 files removed
        ("2025-W48", 4352, 3),  # engine folder restructure, files removed, core
        ("2025-W48", 3918, 5),  # VLA recipe: 7,336 lines
        ("2026-W04", 4280, 1),  # [BREAKING] vLLM colocated rollout
        ("2026-W04", 4665, 2),  # TensorRT-LLM rollout engine: 1,694 lines
        ("2025-W47", 4106, 1),  # [BREAKING] rollout server mode by default
    ],
)
def test_migrations_large_and_breaking_prs_rank_at_the_top(
    verl_profile: RepoProfile, week: str, number: int, top: int
) -> None:
    assert number in _ranking(week, verl_profile)[:top]


@pytest.mark.parametrize(
    ("week", "number"),
    [
        ("2026-W03", 4900),  # "correct typo in script comment", 1 line
        ("2026-W03", 4884),  # "update verl meetup", 1 line of README
        ("2025-W47", 4161),  # "add pytorch conference materials", 1 line of README
        ("2025-W48", 4321),  # "Update ascend quickstart doc", 1 line
    ],
)
def test_one_line_doc_and_typo_fixes_rank_at_the_bottom(
    verl_profile: RepoProfile, week: str, number: int
) -> None:
    assert number in _ranking(week, verl_profile)[-3:]


def test_every_real_pr_scores_within_range_and_factors_sum(verl_profile: RepoProfile) -> None:
    for label in ("2025-W47", "2025-W48", "2026-W03", "2026-W04"):
        for pr in load_week(label).prs:
            score, factors = score_pr(pr, classify_pr(pr, verl_profile), verl_profile)
            assert 0 <= score <= 10
            assert math.isclose(sum(f.points for f in factors), score, abs_tol=1e-9)
            assert all(round(f.points, 1) == f.points for f in factors)


def test_score_is_deterministic(verl_profile: RepoProfile) -> None:
    pr = next(p for p in load_week("2026-W04").prs if p.number == 4280)
    c = classify_pr(pr, verl_profile)
    assert score_pr(pr, c, verl_profile) == score_pr(pr, c, verl_profile)


def test_size_is_log_scaled(verl_profile: RepoProfile) -> None:
    small = _pr("[misc] feat: x", [FileChange(path="a.txt", additions=9)])
    large = _pr("[misc] feat: x", [FileChange(path="a.txt", additions=999)])
    _, f_small = _score(small, verl_profile)
    _, f_large = _score(large, verl_profile)
    assert f_small["size"] == 1.5  # 10 lines: one decade
    assert f_large["size"] == 4.5  # 1000 lines: three decades


def test_breaking_adds_points(verl_profile: RepoProfile) -> None:
    files = [FileChange(path="a.txt", additions=5)]
    plain, _ = _score(_pr("[misc] feat: x", files), verl_profile)
    breaking, factors = _score(_pr("[BREAKING][misc] feat: x", files), verl_profile)
    assert factors["breaking"] == 2.0
    assert breaking == pytest.approx(plain + 2.0)


def test_core_points_follow_the_share_of_core_lines(verl_profile: RepoProfile) -> None:
    all_core = _pr("[trainer] fix: x", [FileChange(path="verl/trainer/ppo/a.py", additions=300)])
    half = _pr(
        "[trainer] fix: x",
        [
            FileChange(path="verl/trainer/ppo/a.py", additions=300),
            FileChange(path="docs/a.md", additions=300),
        ],
    )
    none = _pr("[trainer] fix: x", [FileChange(path="docs/a.md", additions=300)])
    assert _score(all_core, verl_profile)[1]["core"] == 1.5
    assert _score(half, verl_profile)[1]["core"] == 0.8
    assert "core" not in _score(none, verl_profile)[1]


def test_removed_files_discussion_reviews_and_revert(verl_profile: RepoProfile) -> None:
    files = [
        FileChange(path=f"recipe/x/{i}.py", status=FileStatus.REMOVED, deletions=10)
        for i in range(3)
    ]
    reviews = [Review(state=ReviewState.APPROVED), Review(state=ReviewState.COMMENTED)]
    pr = _pr("[recipe] chore: drop x", files, comments=8, review_comments=1, reviews=reviews)
    _, factors = _score(pr, verl_profile, revert_involved=True)
    assert factors["files_removed"] == 1.2
    assert factors["discussion"] == 0.5  # 9 comments: half a point per decade
    assert factors["reviews"] == 0.4
    assert factors["reverted"] == 1.0


def test_unknown_discussion_adds_no_factor(verl_profile: RepoProfile) -> None:
    _, factors = _score(_pr("[misc] feat: x", [FileChange(path="a", additions=1)]), verl_profile)
    assert "discussion" not in factors
    assert "reviews" not in factors


def test_clamping_is_a_factor(verl_profile: RepoProfile) -> None:
    files = [FileChange(path="verl/trainer/ppo/a.py", additions=20_000)]
    files += [
        FileChange(path=f"verl/trainer/old/{i}.py", status=FileStatus.REMOVED) for i in range(40)
    ]
    pr = _pr("[BREAKING][trainer] feat: everything", files, comments=500, review_comments=500)
    score, factors = score_pr(pr, classify_pr(pr, verl_profile), verl_profile, revert_involved=True)
    assert score == 10.0
    assert factors[-1].name == "clamp"
    assert factors[-1].points < 0
    assert sum(f.points for f in factors) == pytest.approx(10.0)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_factor_has_a_catalog_sentence(verl_profile: RepoProfile, lang: str) -> None:
    t = translator(lang).t
    files = [FileChange(path="verl/trainer/a.py", additions=20_000, status=FileStatus.REMOVED)]
    pr = _pr(
        "[BREAKING][trainer] feat: x",
        files,
        comments=3,
        reviews=[Review(state=ReviewState.APPROVED)],
    )
    revert = _pr('Revert "[trainer] feat: x"', files)
    _, factors = score_pr(pr, classify_pr(pr, verl_profile), verl_profile, revert_involved=True)
    _, more = score_pr(revert, classify_pr(revert, verl_profile), verl_profile)
    names = set()
    for factor in factors + more:
        assert t(f"factor.{factor.name}", **factor.params)
        names.add(factor.name)
    assert names >= {"size", "breaking", "core", "module", "type", "files_removed", "discussion"}
    assert names >= {"reviews", "reverted", "revert", "clamp"}


_files = st.lists(
    st.builds(
        FileChange,
        path=st.text(min_size=1, max_size=40),
        status=st.sampled_from(list(FileStatus)),
        additions=st.integers(0, 10**6),
        deletions=st.integers(0, 10**6),
    ),
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(
    title=st.text(),
    body=st.text(),
    files=_files,
    comments=st.none() | st.integers(0, 10**5),
    revert=st.booleans(),
)
def test_any_pr_scores_in_range_with_factors_summing(
    verl_profile: RepoProfile,
    title: str,
    body: str,
    files: list[FileChange],
    comments: int | None,
    revert: bool,
) -> None:
    pr = _pr(title, files, body=body, comments=comments)
    score, factors = score_pr(
        pr, classify_pr(pr, verl_profile), verl_profile, revert_involved=revert
    )
    assert 0.0 <= score <= 10.0
    assert math.isclose(sum(f.points for f in factors), score, abs_tol=1e-9)
