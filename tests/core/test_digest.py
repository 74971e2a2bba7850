"""build_digest on the real weeks: order, stats, risks, JSON round-trip; gist_of on real bodies."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.core.digest import GIST_MAX_CHARS, build_digest, gist_of
from service.core.models import (
    DIGEST_SCHEMA_VERSION,
    Completeness,
    Digest,
    FileChange,
    FileStatus,
    MissingItem,
    PullRequest,
    RiskKind,
    Severity,
)
from service.core.profile import RepoProfile, load_profile
from service.render.environment import translator
from tests.conftest import NOW, load_week

WEEKS = ("2025-W47", "2025-W48", "2026-W03", "2026-W04")
WHEN = datetime(2026, 1, 20, tzinfo=UTC)


def _real(week: str, number: int) -> PullRequest:
    return next(p for p in load_week(week).prs if p.number == number)


@pytest.fixture(scope="module")
def built(verl_profile: RepoProfile) -> dict[str, Digest]:
    """The zh digest of each real week, built once for the tests that only read it."""
    return {
        label: build_digest(load_week(label), verl_profile, language="zh", now=NOW)
        for label in WEEKS
    }


@pytest.mark.parametrize("label", WEEKS)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_digest_round_trips_through_json(verl_profile: RepoProfile, label: str, lang: str) -> None:
    digest = build_digest(load_week(label), verl_profile, language=lang, now=NOW)
    assert Digest.model_validate_json(digest.model_dump_json()) == digest
    assert digest.schema_version == DIGEST_SCHEMA_VERSION
    assert digest.language == lang


@pytest.mark.parametrize("label", WEEKS)
def test_prs_sorted_by_score_then_number(built: dict[str, Digest], label: str) -> None:
    digest = built[label]
    keys = [(-p.score, p.number) for p in digest.prs]
    assert keys == sorted(keys)
    assert {p.number for p in digest.prs} == {p.number for p in load_week(label).prs}


@pytest.mark.parametrize("label", WEEKS)
def test_stats_and_risk_counts_match_the_data(built: dict[str, Digest], label: str) -> None:
    week = load_week(label)
    digest = built[label]
    stats = digest.stats
    assert stats.prs == len(week.prs)
    assert stats.additions == sum(p.additions for p in week.prs)
    assert stats.deletions == sum(p.deletions for p in week.prs)
    assert stats.changed_files == sum(p.changed_files for p in week.prs)
    assert stats.contributors == len({p.author for p in week.prs if p.author})
    severities = Counter(r.severity for r in digest.risks)
    assert (stats.risks_high, stats.risks_medium, stats.risks_low) == (
        severities[Severity.HIGH],
        severities[Severity.MEDIUM],
        severities[Severity.LOW],
    )
    for pr in digest.prs:
        assert pr.risk_count == sum(1 for r in digest.risks if pr.number in r.prs)


def test_metadata_is_copied_from_the_week(verl_profile: RepoProfile) -> None:
    missing = [MissingItem(number=None, what="search page 2", reason="rate limited")]
    week = load_week("2026-W04").model_copy(
        update={"completeness": Completeness(complete=False, missing=missing)}
    )
    url = "https://github.com/volcengine/verl/discussions/1"
    digest = build_digest(week, verl_profile, language="en", now=NOW, discussion_url=url)
    assert (digest.repo, digest.week, digest.timezone) == (
        "volcengine/verl",
        "2026-W04",
        "Asia/Shanghai",
    )
    assert (digest.start, digest.end) == (week.window.start, week.window.end)
    assert digest.generated_at == NOW
    assert digest.source == "sample"
    assert digest.completeness == week.completeness
    assert digest.discussion_url == url
    plain = build_digest(load_week("2026-W04"), verl_profile, language="en", now=NOW)
    assert plain.discussion_url == ""  # the renderer decides what to link


def test_scored_pr_carries_classification_and_factors(built: dict[str, Digest]) -> None:
    digest = built["2025-W48"]
    pr = digest.pr(4283)
    assert pr is not None
    assert (pr.category, pr.change_type, pr.modules) == ("migration", "feat", ["recipe"])
    assert (pr.files_removed, pr.changed_files, pr.deletions) == (21, 22, 2475)
    assert pr.url == "https://github.com/volcengine/verl/pull/4283"
    assert pr.score == pytest.approx(sum(f.points for f in pr.factors))
    assert {f.name for f in pr.factors} >= {"size", "module", "type", "files_removed"}


def test_reverts_of_the_same_week_score_both_sides(built: dict[str, Digest]) -> None:
    digest = built["2026-W03"]
    revert, reverted = digest.pr(4937), digest.pr(4929)
    assert revert is not None
    assert reverted is not None
    assert "revert" in {f.name for f in revert.factors}
    assert "reverted" in {f.name for f in reverted.factors}


def test_earlier_week_reaches_the_followup_detector(
    verl_profile: RepoProfile, built: dict[str, Digest]
) -> None:
    w47, w48 = load_week("2025-W47"), load_week("2025-W48")
    alone = built["2025-W48"]
    linked = build_digest(w48, verl_profile, language="zh", now=NOW, earlier=w47.prs)

    def followups(d: Digest) -> set[tuple[int, ...]]:
        return {tuple(sorted(r.prs)) for r in d.risks if r.kind == RiskKind.FOLLOWUP}

    # #4260 reverts #4226 and #4259 reverts #4233, both merged the week before
    assert {(4226, 4260), (4233, 4259)} <= followups(linked)
    assert not {(4226, 4260), (4233, 4259)} & followups(alone)


def test_checked_references_reach_the_migration_detector(
    verl_profile: RepoProfile, built: dict[str, Digest]
) -> None:
    searched = {"recipe/retool": [], "recipe/langgraph_agent": [], "verl/workers/roles": []}
    week = load_week("2025-W48").model_copy(
        update={"references_checked": True, "remaining_references": searched}
    )
    digest = build_digest(week, verl_profile, language="en", now=NOW)
    migrations = [r for r in digest.risks if r.kind == RiskKind.MIGRATION]
    assert migrations
    assert all(r.verified for r in migrations)
    unchecked = built["2025-W48"]
    assert not any(r.verified for r in unchecked.risks if r.kind == RiskKind.MIGRATION)


def test_previous_digest_feeds_trend_deltas(
    verl_profile: RepoProfile, built: dict[str, Digest]
) -> None:
    previous = built["2026-W03"]
    digest = build_digest(
        load_week("2026-W04"), verl_profile, language="zh", now=NOW, previous=previous
    )
    assert digest.trends.previous_week == "2026-W03"
    assert all(b.previous is not None for b in digest.trends.modules)


def test_generic_profile_builds_a_digest() -> None:
    digest = build_digest(load_week("2026-W04"), load_profile("other/repo"), language="en", now=NOW)
    assert len(digest.prs) == 22
    assert Digest.model_validate_json(digest.model_dump_json()) == digest


# --- gist_of ----------------------------------------------------------------------------


def test_gist_skips_the_template_hint() -> None:
    # the section opens with "> Add **concise** overview …" and its continuation lines
    gist = gist_of(_real("2025-W48", 4063))
    assert gist.startswith("This PR aims to add LoRA/PEFT support by integrating Megatron-Bridge")
    assert "concise" not in gist


def test_gist_drops_images_and_html() -> None:
    gist = gist_of(_real("2026-W04", 4944))
    assert gist.startswith("fix user_trainer_do_validate=True run megatron+VLLM process error")
    assert "<img" not in gist
    assert "http" not in gist


def test_gist_skips_a_bold_heading_line() -> None:
    gist = gist_of(_real("2026-W04", 4320))
    assert gist.startswith("This PR enhances the verl profiling system")


def test_gist_falls_back_to_the_title_description() -> None:
    assert gist_of(_real("2026-W03", 4884)) == "update verl meetup"  # body: "As title"
    assert (
        gist_of(_real("2026-W04", 4936)) == "Using MTP in RL Training and Inference"
    )  # no section
    assert gist_of(_real("2026-W03", 4870)) == (
        "properly handle optimizer offloading for HybridDeviceOptimizer"  # empty body
    )


def test_gist_keeps_the_first_sentence_of_a_long_paragraph() -> None:
    gist = gist_of(_real("2025-W48", 4230))
    assert gist.startswith("Initialize asyncio condition/lock via _init_async_objects")


def test_gist_prefers_the_sentence_that_says_what_this_pr_does() -> None:
    # 4665's paragraph opens with context ("TensorRT-LLM has recently added …")
    assert gist_of(_real("2026-W04", 4665)) == (
        "This PR introduces TensorRT-LLM as a new rollout engine for VeRL"
    )


def test_a_terse_note_gives_way_to_the_title() -> None:
    # 5033's section says only "test with Qwen3-30B-A3B-Instruct."
    assert gist_of(_real("2026-W04", 5033)) == (
        "support model resharding between veomni and rollout engine"
    )


@settings(max_examples=300, deadline=None)
@given(title=st.text(), body=st.text())
def test_gist_of_any_body_is_one_short_line(title: str, body: str) -> None:
    pr = PullRequest(number=1, title=title, body=body, created_at=WHEN, merged_at=WHEN)
    gist = gist_of(pr)
    assert "\n" not in gist
    assert len(gist) <= GIST_MAX_CHARS


@settings(max_examples=100, deadline=None)
@given(body=st.text().map(lambda s: "### What does this PR do?\n\n" + s + "\n\n### Checklist\n- x"))
def test_gist_of_any_section_is_one_short_line(body: str) -> None:
    pr = PullRequest(number=1, title="[x] fix: y", body=body, created_at=WHEN, merged_at=WHEN)
    gist = gist_of(pr)
    assert "\n" not in gist
    assert len(gist) <= GIST_MAX_CHARS
    assert gist


_weird_files = st.lists(
    st.builds(
        FileChange,
        path=st.sampled_from(
            ["verl/trainer/a.py", "docs/x.md", "scripts/run.sh", "examples/a/b.sh", "recipe/x/y.py"]
        )
        | st.text(min_size=1, max_size=30),
        status=st.sampled_from(list(FileStatus)),
        additions=st.integers(0, 5000),
        deletions=st.integers(0, 5000),
        patch=st.none() | st.text(max_size=300).map(lambda s: "@@ -1,1 +1,2 @@\n+" + s),
    ),
    max_size=4,
)


@settings(max_examples=40, deadline=None)
@given(
    prs=st.lists(
        st.tuples(
            st.text(max_size=80),
            st.text(max_size=200),
            _weird_files,
            st.none() | st.text(max_size=12),
        ),
        max_size=5,
    )
)
def test_any_week_builds_a_round_tripping_digest(
    verl_profile: RepoProfile, prs: list[tuple[str, str, list[FileChange], str | None]]
) -> None:
    pulls = [
        PullRequest(
            number=100 + i,
            title=title,
            body=body,
            author=author,
            created_at=WHEN,
            merged_at=WHEN,
            additions=sum(f.additions for f in files),
            deletions=sum(f.deletions for f in files),
            files=files,
        )
        for i, (title, body, files, author) in enumerate(prs)
    ]
    week = load_week("2026-W04").model_copy(update={"prs": pulls})
    digest = build_digest(week, verl_profile, language="en", now=NOW)
    assert Digest.model_validate_json(digest.model_dump_json()) == digest
    assert sorted(p.number for p in digest.prs) == [p.number for p in pulls]
    t = translator("en").t
    n = digest.narrative
    for statement in [*n.summary, *(s for g in n.key_changes for s in g.items), *n.trends]:
        assert t(statement.key, **statement.params)
    for statement in n.recommendations:
        assert t(statement.key, **statement.params)
