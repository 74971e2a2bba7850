"""Work of the week on files the week deleted: edits that vanish with the file, and doc links
that lead nowhere. Real cases: volcengine/verl 2025-W48 (tests/data/weeks) and PRs of
verl-project/verl 2026-W20 trimmed to the files concerned (tests/data/risk_cases)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from service.core.models import CollectedPeriod, PullRequest, Risk, RiskKind
from service.core.profile import RepoProfile
from service.core.risks import dangling, detect_risks
from service.core.risks.base import Context
from service.pipeline.recorded import load_recorded

CASES = Path(__file__).parents[2] / "data" / "risk_cases"
NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


def week_2026_w20() -> list[PullRequest]:
    return list(load_recorded(CASES / "verl-2026-W20-deleted-files.json", NOW).prs)


def run(prs: list[PullRequest], profile: RepoProfile) -> list[Risk]:
    return dangling.DETECTOR.detect(prs, Context(profile=profile, week=tuple(prs)))


def summary(risks: list[Risk]) -> list[tuple[str, list[int], str, str | int | float]]:
    return [(r.rule, r.prs, r.severity, r.params["path"]) for r in risks]


def test_edits_to_files_a_later_pr_deletes_2025_w48(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #4211 reworks verl/workers/roles/{actor,critic}.py on Nov 24; #4352 deletes both on
    # Nov 29. #4269 edits the langgraph example #4283 moves to another repository next day.
    # One risk per deleting PR, the editing PRs after it.
    risks = run(list(weeks["2025-W48"].prs), verl_profile)
    assert summary(risks) == [
        (
            "edits_deleted_file",
            [4283, 4269],
            "medium",
            "recipe/langgraph_agent/example/create_dataset.py",
        ),
        ("edits_deleted_file", [4352, 4211], "medium", "verl/workers/roles/actor.py"),
    ]
    roles = risks[1]
    assert (roles.params["count"], roles.params["editors"]) == (2, "#4211")
    assert [(e.path, e.pr) for e in roles.evidence] == [
        ("verl/workers/roles/actor.py", 4211),
        ("verl/workers/roles/critic.py", 4211),
    ]


def test_a_revert_deleting_what_it_reverts_is_not_counted(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #4251 adds tests/single_controller/test_split_resource_pool.py, #4258 reverts it: the
    # file was only added, and the revert deletes it on purpose
    risks = run(list(weeks["2025-W48"].prs), verl_profile)
    assert not [r for r in risks if 4251 in r.prs or 4258 in r.prs]


def test_doc_links_to_files_deleted_or_moved_the_same_week(verl_profile: RepoProfile) -> None:
    risks = run(week_2026_w20(), verl_profile)
    links = [(r.prs, r.params["target"]) for r in risks if r.rule == "links_deleted_file"]
    assert links == [
        # a new guide links (with Markdown's escaped `\_`) to a page #6353 moves
        (
            [6330, 6353],
            "docs/ascend_tutorial/examples/ascend_performance_analysis_guide.md",
        ),
        # the OPD docs name a test the revert #6360 deletes
        ([6358, 6360], "tests/workers/test_distillation_topk_symmetry_on_cpu.py"),
    ]
    edits = [r.prs for r in risks if r.rule == "edits_deleted_file"]
    assert edits == [[6337, 6291]]
    catalog_ready = detect_risks(week_2026_w20(), verl_profile)
    assert {r.kind for r in catalog_ready} >= {RiskKind.DANGLING}


def test_named_paths_reads_links_relative_links_and_bare_paths() -> None:
    line = (
        "see [guide](../perf/x.md#top), [pinned](https://github.com/o/r/blob/c98cb8cc/docs/y.md),"
        " [main](https://github.com/o/r/blob/main/docs/a\\_b.md) and `scripts/run.sh`"
    )
    found = dangling.named_paths(line, "docs/start/install.md")
    assert {"docs/perf/x.md", "docs/a_b.md", "scripts/run.sh"} <= found
    assert "docs/y.md" not in found  # pinned to a commit: the link still works


def test_a_path_is_no_longer_gone_once_a_later_pr_adds_it_back(
    weeks: dict[str, CollectedPeriod],
) -> None:
    # #4259 deletes tests/experimental/reward/test_agent_reward_loop_colocate.py, #4282 adds it
    gone = dangling.gone_paths(weeks["2025-W48"].prs)
    assert "tests/experimental/reward/test_agent_reward_loop_colocate.py" not in gone
    assert gone["verl/workers/roles/actor.py"].by.number == 4352
