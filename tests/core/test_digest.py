"""build_digest on the real weeks: order, numbers that add up (distinct files, one count per
PR's risk, contributors by login, unknown facts), JSON round-trip, and older stored digests."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.core.digest import build_digest, upgrade_digest
from service.core.mentions import leaf_risks
from service.core.models import (
    DIGEST_SCHEMA_VERSION,
    CheckState,
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
from tests.conftest import DATA, NOW, load_week

WEEKS = ("2025-W47", "2025-W48", "2026-W03", "2026-W04")
WEEKS_DIR = DATA / "weeks"
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
    # a PR that only changes comments and docstrings comes after every other
    keys = [(p.comment_only, -p.score, p.number) for p in digest.prs]
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
    raw = json.loads((WEEKS_DIR / f"{label}.json").read_text(encoding="utf-8"))["pulls"]
    assert stats.changed_files == len({f["filename"] for pr in raw for f in pr["files"]})
    assert stats.contributors == len({p.author for p in week.prs if p.author})
    severities = Counter(r.severity for r in leaf_risks(digest.risks))
    assert (stats.risks_high, stats.risks_medium, stats.risks_low) == (
        severities[Severity.HIGH],
        severities[Severity.MEDIUM],
        severities[Severity.LOW],
    )
    for pr in digest.prs:
        assert pr.risk_count == sum(1 for r in leaf_risks(digest.risks) if pr.number in r.prs)


def test_changed_files_count_each_file_once(built: dict[str, Digest]) -> None:
    # the sample week: 174 files summed over its PRs, 127 distinct paths
    week = load_week("2026-W04")
    assert sum(p.changed_files for p in week.prs) == 174
    assert built["2026-W04"].stats.changed_files == 127


def test_a_pr_without_its_file_list_adds_its_own_count(verl_profile: RepoProfile) -> None:
    week = load_week("2026-W04")
    listless = [week.prs[0].model_copy(update={"files": [], "changed_files": 9}), *week.prs[1:]]
    shared = {f.path for p in week.prs[1:] for f in p.files}
    digest = build_digest(
        week.model_copy(update={"prs": listless}), verl_profile, language="en", now=NOW
    )
    assert digest.stats.changed_files == len(shared) + 9


def test_git_history_tells_no_reviews_checks_labels_or_first_timers(
    built: dict[str, Digest],
) -> None:
    for digest in built.values():
        assert digest.unknown == ["reviews", "checks", "labels", "first_time"]
        assert digest.stats.first_time_contributors is None
        assert all(c.first_time is None for c in digest.trends.contributors)


def test_what_github_tells_is_not_unknown(verl_profile: RepoProfile) -> None:
    week = load_week("2026-W04")
    told = [
        pr.model_copy(
            update={
                "reviews": [],
                "labels": [],
                "check_state": CheckState.SUCCESS,
                "author_association": "FIRST_TIME_CONTRIBUTOR" if i == 0 else "MEMBER",
            }
        )
        for i, pr in enumerate(week.prs)
    ]
    digest = build_digest(
        week.model_copy(update={"prs": told}), verl_profile, language="en", now=NOW
    )
    assert digest.unknown == []
    assert digest.stats.first_time_contributors == 1
    first = [c.login for c in digest.trends.contributors if c.first_time]
    assert first == [told[0].author]


def test_contributors_are_keyed_by_login_with_their_name_beside(built: dict[str, Digest]) -> None:
    people = {c.login: c for c in built["2025-W48"].trends.contributors}
    assert people["yyDing1"].name == "Yuyang Ding"
    assert people["yyDing1"].prs == [4251, 4273, 4282, 4310]
    # git history knows no login for this author ("unknown"): the display name is the key
    assert people["ℍ𝕠𝕝𝕝𝕠𝕨 𝕄𝕒𝕟"].name == "ℍ𝕠𝕝𝕝𝕠𝕨 𝕄𝕒𝕟"
    assert people["ℍ𝕠𝕝𝕝𝕠𝕨 𝕄𝕒𝕟"].prs == [4063, 4291]
    assert "unknown" not in people
    scored = built["2025-W48"].pr(4352)
    assert scored is not None
    assert (scored.author, scored.author_name) == ("Chi-Zhang", "Chi Zhang")


def test_metadata_is_copied_from_the_week(verl_profile: RepoProfile) -> None:
    missing = [MissingItem(number=None, what="search page 2", reason="rate limited")]
    week = load_week("2026-W04").model_copy(
        update={"completeness": Completeness(complete=False, missing=missing)}
    )
    url = "https://github.com/volcengine/verl/discussions/1"
    digest = build_digest(week, verl_profile, language="en", now=NOW, discussion_url=url)
    assert (digest.repo, digest.period, digest.timezone) == (
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
    searched: dict[str, list[str]] = {
        "recipe/retool": [],
        "recipe/langgraph_agent": [],
        "verl/workers/roles": [],
    }
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
    assert digest.trends.previous_period == "2026-W03"
    assert all(b.previous is not None for b in digest.trends.modules)


def test_generic_profile_builds_a_digest() -> None:
    digest = build_digest(load_week("2026-W04"), load_profile("other/repo"), language="en", now=NOW)
    assert len(digest.prs) == 22
    assert Digest.model_validate_json(digest.model_dump_json()) == digest


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


# --- digests stored by older code -------------------------------------------------------------


def _as_stored_by_version_1(digest: Digest) -> Digest:
    """What schema 1 stored: summed file counts, no gist when the body said nothing but the
    title's words, contributors without names, first-time False, and its own narrative keys."""
    old = digest.model_dump(mode="json")
    old["schema_version"] = 1
    old["stats"]["changed_files"] = sum(p["changed_files"] for p in old["prs"])
    old["stats"]["first_time_contributors"] = 0
    old["unknown"] = []
    for pr in old["prs"]:
        pr["gist"] = pr["gist"] or pr["title"]
        pr["files_gist"] = None
        pr["author_name"] = None
    for person in old["trends"]["contributors"]:
        person["name"] = None
        person["first_time"] = False
    old["narrative"] = {
        "summary": [{"key": "narrative.summary.top_pr", "params": {"number": 1}, "prs": [1]}],
        "key_changes": [
            {"category": "fixes", "items": [{"key": "narrative.change.more", "params": {}}]}
        ],
        "trends": [],
        "recommendations": [],
    }
    return Digest.model_validate(old)


def test_a_digest_of_schema_1_is_read_anew_from_its_pr_snapshots(
    built: dict[str, Digest],
) -> None:
    current = built["2026-W04"]
    old = _as_stored_by_version_1(current)
    upgraded = upgrade_digest(old, load_week("2026-W04").prs)
    assert upgraded.schema_version == DIGEST_SCHEMA_VERSION
    assert upgraded.stats.changed_files == 127
    assert upgraded.stats.first_time_contributors is None
    assert upgraded.unknown == current.unknown
    assert upgraded.trends.contributors == current.trends.contributors
    assert [(p.gist, p.files_gist, p.author_name) for p in upgraded.prs] == [
        (p.gist, p.files_gist, p.author_name) for p in current.prs
    ]
    assert upgraded.narrative == current.narrative
    assert upgrade_digest(upgraded, []) is upgraded  # current digests pass through


def test_without_snapshots_an_old_digest_still_gets_todays_narrative(
    built: dict[str, Digest],
) -> None:
    old = _as_stored_by_version_1(built["2026-W04"])
    upgraded = upgrade_digest(old, [])
    assert upgraded.schema_version == DIGEST_SCHEMA_VERSION
    keys = {s.key for s in upgraded.narrative.summary}
    assert "narrative.summary.top_pr" not in keys
    assert "narrative.summary.overview" in keys
    t = translator("zh").t
    for statement in upgraded.narrative.summary:
        assert t(statement.key, **statement.params)
