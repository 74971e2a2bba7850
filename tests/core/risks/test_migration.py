"""Large removals and migrations, with what is known about leftover references."""

from __future__ import annotations

from service.core.models import CollectedWeek, FileStatus, Severity
from service.core.profile import RepoProfile
from service.core.risks import migration
from service.core.risks.base import Context
from tests.core.risks.helpers import LABELS, change, make_pr, real_pr, week_context


def test_real_recipe_move_4283_is_unverified_without_references(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    pr = real_pr(weeks, "2025-W48", 4283)
    (risk,) = migration.DETECTOR.detect([pr], Context(profile=verl_profile))
    assert (risk.rule, risk.severity, risk.verified) == ("unverified", Severity.HIGH, False)
    assert risk.params["files"] == 21
    assert risk.params["lines"] == 2473
    assert risk.params["targets"] == "recipe/langgraph_agent/, recipe/retool/"
    assert [e.path for e in risk.evidence] == ["recipe/langgraph_agent/", "recipe/retool/"]


def test_removal_targets_are_the_removed_directories(
    weeks: dict[str, CollectedWeek],
) -> None:
    assert migration.removal_targets(real_pr(weeks, "2025-W48", 4283)) == [
        "recipe/langgraph_agent",
        "recipe/retool",
    ]
    # renamed-away files count: verl/workers/roles/ is gone entirely in #4352
    assert migration.removal_targets(real_pr(weeks, "2025-W48", 4352)) == ["verl/workers/roles"]


def test_verified_references_remaining_are_evidence(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    pr = real_pr(weeks, "2025-W48", 4283)
    references = {
        "recipe/retool": ["docs/sglang_multiturn/multiturn.rst"],
        "recipe/langgraph_agent": [],
    }
    context = Context(profile=verl_profile, references=references)
    (risk,) = migration.DETECTOR.detect([pr], context)
    assert (risk.rule, risk.verified, risk.params["references"]) == ("references_remain", True, 1)
    assert risk.evidence[0].path == "docs/sglang_multiturn/multiturn.rst"
    assert risk.evidence[0].snippet == "recipe/retool"


def test_verified_clean_migration(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    pr = real_pr(weeks, "2025-W48", 4352)
    searched = {"verl/workers/roles": []}
    (risk,) = migration.DETECTOR.detect([pr], Context(profile=verl_profile, references=searched))
    assert (risk.rule, risk.severity, risk.verified) == ("no_references", Severity.LOW, True)


def test_search_targets_are_what_the_detector_reads(weeks: dict[str, CollectedWeek]) -> None:
    targets = migration.search_targets(weeks["2025-W48"].prs, limit=5)
    assert targets == ["recipe/langgraph_agent", "recipe/retool", "verl/workers/roles"]
    assert migration.search_targets(weeks["2025-W48"].prs, limit=1) == ["recipe/langgraph_agent"]


def test_references_may_name_the_module(verl_profile: RepoProfile) -> None:
    pr = make_pr(
        9,
        "[misc] refactor: drop old package",
        [
            change(f"verl/old/{name}.py", "@@ -1,1 +0,0 @@\n-x = 1", FileStatus.REMOVED)
            for name in ("__init__", "a", "b")
        ],
    )
    context = Context(profile=verl_profile, references={"verl.old": ["verl/new/user.py"]})
    (risk,) = migration.DETECTOR.detect([pr], context)
    assert (risk.rule, risk.severity) == ("references_remain", Severity.HIGH)


def test_small_removals_are_not_migrations(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    # #4146 deletes one workflow; #4258 one test file; #5033 one utils module
    for label, number in (("2025-W47", 4146), ("2025-W48", 4258), ("2026-W04", 5033)):
        pr = real_pr(weeks, label, number)
        assert migration.DETECTOR.detect([pr], Context(profile=verl_profile)) == []


def test_some_files_of_a_directory_are_not_a_directory_removal(verl_profile: RepoProfile) -> None:
    # four files of verl/utils deleted, but its __init__.py stays: the directory lives on
    files = [change(f"verl/utils/f{i}.py", None, FileStatus.REMOVED, deletions=5) for i in range(4)]
    pr = make_pr(11, "[misc] chore: drop helpers", files)
    assert migration.removed_directories(pr) == []
    assert migration.DETECTOR.detect([pr], Context(profile=verl_profile)) == []


def test_partly_removed_directory_is_not_a_directory_removal(verl_profile: RepoProfile) -> None:
    names = ("__init__", "f1", "f2", "f3")
    files = [change(f"recipe/a/{n}.py", None, FileStatus.REMOVED, deletions=5) for n in names]
    files.append(change("recipe/a/kept.py", "@@ -1,1 +1,1 @@\n-a\n+b"))
    pr = make_pr(10, "[recipe] chore: trim", files)
    assert migration.removed_directories(pr) == []
    assert migration.DETECTOR.detect([pr], Context(profile=verl_profile)) == []


def test_real_weeks_flag_these_prs(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    flagged = [
        (label, r.prs[0], r.severity.value)
        for label in LABELS
        for r in migration.DETECTOR.detect(
            weeks[label].prs, week_context(weeks, label, verl_profile)
        )
    ]
    assert flagged == [("2025-W48", 4283, "high"), ("2025-W48", 4352, "medium")]
