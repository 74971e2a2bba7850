"""Reverts and follow-up fixes of PRs merged the same or the previous week."""

from __future__ import annotations

from datetime import timedelta

from service.core.models import CollectedPeriod, Risk, Severity
from service.core.profile import RepoProfile
from service.core.risks import followups
from service.core.risks.base import Context
from tests.core.risks.helpers import LABELS, MERGED, change, make_pr, week_context


def week_risks(weeks: dict[str, CollectedPeriod], label: str, profile: RepoProfile) -> list[Risk]:
    return followups.DETECTOR.detect(weeks[label].prs, week_context(weeks, label, profile))


def test_same_week_revert_4234_of_4221(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    reverts = [r for r in week_risks(weeks, "2025-W47", verl_profile) if r.rule == "revert"]
    (risk,) = reverts
    assert risk.prs == [4234, 4221]
    assert risk.severity == Severity.MEDIUM
    assert risk.params["earlier_title"] == "[megatron] fix: BF16 mode should use PAO as well"
    assert [e.snippet for e in risk.evidence[:2]] == [
        'Revert "[megatron] fix: BF16 mode should use PAO as well"',
        "[megatron] fix: BF16 mode should use PAO as well",
    ]


def test_reverts_reach_into_the_previous_week(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    reverts = [r.prs for r in week_risks(weeks, "2025-W48", verl_profile) if r.rule == "revert"]
    # #4251 is of the same week; #4233 and #4226 were merged in 2025-W47
    assert reverts == [[4258, 4251], [4259, 4233], [4260, 4226]]


def test_revert_without_the_previous_week_finds_only_same_week(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    context = Context(profile=verl_profile, week=tuple(weeks["2025-W48"].prs))
    found = followups.DETECTOR.detect(weeks["2025-W48"].prs, context)
    assert [r.prs for r in found if r.rule == "revert"] == [[4258, 4251]]


def test_fix_naming_an_earlier_pr_4267(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # "As #4254 planned, ..." in the body of the [ci] fix #4267
    found = [r for r in week_risks(weeks, "2025-W48", verl_profile) if r.rule == "fix_reference"]
    assert [(r.prs, r.severity) for r in found] == [([4267, 4254], Severity.LOW)]


def test_feature_naming_an_earlier_pr_is_not_a_followup_fix(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #4222 (feat) says "This is a follow-up to #3519" (same week): an extension, not a fix
    assert all(4222 not in r.prs for r in week_risks(weeks, "2025-W47", verl_profile))


def test_fix_reworking_lines_an_earlier_pr_added(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    found = [r for r in week_risks(weeks, "2025-W48", verl_profile) if r.rule == "fix_same_code"]
    assert [r.prs for r in found] == [[4265, 4254], [4293, 4224]]
    first = found[0]
    line = first.evidence[2]
    assert (line.path, line.line, line.side, line.pr) == (
        "docker/ascend/Dockerfile.ascend_8.3.rc1_a2",
        46,
        "removed",
        4265,
    )
    assert line.snippet == "pip uninstall -y triton triton-ascend \\"
    assert [(e.snippet, e.pr) for e in first.evidence[:2]] == [
        ("[ci] fix: Fix error in ascend dockerfile", 4265),
        ("[ci] fix: Fix triton-ascend unavailable error in Ascend dockerfile", 4254),
    ]


def test_rewritten_lines_are_cited_by_their_old_numbers(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #4976 rewrites two adjacent lines #4956 added: 66 and 67 of the old file, not 66 twice
    (risk,) = week_risks(weeks, "2026-W04", verl_profile)
    lines = [(e.path, e.line, e.side) for e in risk.evidence[2:4]]
    assert lines == [
        ("verl/experimental/agent_loop/single_turn_agent_loop.py", 66, "removed"),
        ("verl/experimental/agent_loop/single_turn_agent_loop.py", 67, "removed"),
    ]


def test_readme_fix_of_a_new_recipe_4183_is_not_a_code_followup(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # "[recipe] fix: readme in recipe/r1_ascend" rewrites README prose #3427 added: not code
    assert all(4183 not in r.prs for r in week_risks(weeks, "2025-W47", verl_profile))


def test_markdown_rules_blank_and_punctuation_lines_are_not_shared_code(
    verl_profile: RepoProfile,
) -> None:
    """Synthetic: table rules and bracket lines in a code file and a Markdown table."""
    added = (
        "@@ -0,0 +1,4 @@\n+| name | value | notes |\n+|------|-------|-------|\n"
        "+            ]),\n+# ---------------------------\n"
    )
    removed = (
        "@@ -1,4 +1,0 @@\n-| name | value | notes |\n-|------|-------|-------|\n"
        "-            ]),\n-# ---------------------------\n"
    )
    for path in ("verl/trainer/ppo/table.py", "docs/table.md"):
        earlier = make_pr(
            1, "[trainer] feat: a", [change(path, added)], merged_at=MERGED - timedelta(days=1)
        )
        later = make_pr(2, "[trainer] fix: b", [change(path, removed)])
        context = Context(profile=verl_profile, week=(earlier, later))
        assert followups.DETECTOR.detect([later], context) == [], path


def test_strongest_link_comes_first(verl_profile: RepoProfile) -> None:
    """Synthetic: one fix reworks lines of two earlier PRs, three of one and two of the other."""
    path = "verl/trainer/ppo/ray_trainer.py"
    lines = [f"    value_{n} = compute_something(alpha_{n})" for n in range(5)]

    def added(part: list[str]) -> str:
        return f"@@ -0,0 +1,{len(part)} @@\n" + "\n".join("+" + line for line in part)

    older = make_pr(
        1,
        "[trainer] feat: a",
        [change(path, added(lines[:3]))],
        merged_at=MERGED - timedelta(days=2),
    )
    newer = make_pr(
        2,
        "[trainer] feat: b",
        [change(path, added(lines[3:]))],
        merged_at=MERGED - timedelta(days=1),
    )
    fix = make_pr(
        3,
        "[trainer] fix: c",
        [change(path, "@@ -1,5 +1,0 @@\n" + "\n".join("-" + x for x in lines))],
    )
    context = Context(profile=verl_profile, week=(older, newer, fix))
    found = followups.DETECTOR.detect([fix], context)
    assert [r.prs for r in found] == [[3, 1], [3, 2]]
    named = fix.model_copy(update={"body": "follows #2"})
    found = followups.DETECTOR.detect([named], context)
    assert [(r.rule, r.prs) for r in found] == [
        ("fix_reference", [3, 2]),
        ("fix_same_code", [3, 1]),
    ]


def test_same_file_alone_is_not_a_followup(verl_profile: RepoProfile) -> None:
    base = (
        "@@ -1,1 +1,3 @@\n ctx\n+    value = compute_something(alpha)\n"
        "+    other = compute_more(beta)"
    )
    earlier = make_pr(
        1,
        "[trainer] feat: a",
        [change("verl/trainer/ppo/ray_trainer.py", base)],
        merged_at=MERGED - timedelta(days=1),
    )
    unrelated = "@@ -90,1 +92,1 @@\n-    logger.info(f'step {step} done')\n+    logger.debug('x')"
    later = make_pr(2, "[trainer] fix: b", [change("verl/trainer/ppo/ray_trainer.py", unrelated)])
    context = Context(profile=verl_profile, week=(earlier, later))
    assert followups.DETECTOR.detect([earlier, later], context) == []


def test_fix_after_the_window_is_not_linked(verl_profile: RepoProfile) -> None:
    added = (
        "@@ -1,0 +1,2 @@\n+    value = compute_something(alpha)\n+    other = compute_more(beta)"
    )
    removed = (
        "@@ -1,2 +1,0 @@\n-    value = compute_something(alpha)\n-    other = compute_more(beta)"
    )
    path = "verl/trainer/ppo/ray_trainer.py"
    earlier = make_pr(
        1, "[trainer] feat: a", [change(path, added)], merged_at=MERGED - timedelta(days=6)
    )
    later = make_pr(2, "[trainer] fix: b", [change(path, removed)])
    context = Context(profile=verl_profile, week=(earlier, later))
    assert followups.DETECTOR.detect([later], context) == []
    near = earlier.model_copy(update={"merged_at": MERGED - timedelta(days=2)})
    context = Context(profile=verl_profile, week=(near, later))
    assert [r.prs for r in followups.DETECTOR.detect([later], context)] == [[2, 1]]


def test_revert_of_an_unknown_pr_is_not_reported(verl_profile: RepoProfile) -> None:
    revert = make_pr(3, 'Revert "[doc] fix: something long ago"', [])
    context = Context(profile=verl_profile, week=(revert,))
    assert followups.DETECTOR.detect([revert], context) == []


def test_real_weeks_flag_these_pairs(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    pairs = {
        label: [(r.rule, r.prs) for r in week_risks(weeks, label, verl_profile)] for label in LABELS
    }
    assert pairs == {
        "2025-W47": [("revert", [4234, 4221])],
        "2025-W48": [
            ("revert", [4258, 4251]),
            ("revert", [4259, 4233]),
            ("revert", [4260, 4226]),
            ("fix_same_code", [4265, 4254]),
            ("fix_reference", [4267, 4254]),
            ("fix_same_code", [4293, 4224]),
        ],
        "2026-W03": [("revert", [4937, 4929])],
        "2026-W04": [("fix_same_code", [4976, 4956])],
    }


def test_links_do_not_depend_on_the_order_the_prs_come_in(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    """The history is kept in merge order and looked up by path and line, whatever order the
    week's PRs are read in; a fix reads only its own links."""
    context = week_context(weeks, "2025-W48", verl_profile)
    prs = weeks["2025-W48"].prs
    forward = {(r.rule, tuple(r.prs)) for r in followups.DETECTOR.detect(prs, context)}
    backward = followups.DETECTOR.detect(list(reversed(prs)), context)
    assert {(r.rule, tuple(r.prs)) for r in backward} == forward
    fix = next(pr for pr in prs if pr.number == 4293)
    alone = followups.DETECTOR.detect([fix], context)
    assert [(r.rule, r.prs) for r in alone] == [("fix_same_code", [4293, 4224])]


def test_a_fix_early_in_the_week_links_to_the_week_before(verl_profile: RepoProfile) -> None:
    """Synthetic: the earlier PR is last week's, merged a day before the fix; a PR of last week
    outside the window and a later PR with the same lines are not linked."""
    path = "verl/trainer/ppo/ray_trainer.py"
    lines = ["    value = compute_something(alpha)", "    other = compute_more(beta)"]
    adds = "@@ -1,0 +1,2 @@\n" + "\n".join("+" + line for line in lines)
    removes = "@@ -1,2 +1,0 @@\n" + "\n".join("-" + line for line in lines)
    last_week = make_pr(1, "[trainer] feat: a", [change(path, adds)], merged_at=MERGED)
    too_old = make_pr(
        2, "[trainer] feat: b", [change(path, adds)], merged_at=MERGED - timedelta(days=5)
    )
    fix = make_pr(3, "[trainer] fix: c", [change(path, removes)], merged_at=MERGED + timedelta(1))
    later = make_pr(4, "[trainer] feat: d", [change(path, adds)], merged_at=MERGED + timedelta(2))
    context = Context(profile=verl_profile, week=(fix, later), earlier=(too_old, last_week))
    found = followups.DETECTOR.detect([fix, later], context)
    assert [(r.rule, r.prs, r.params["hours"]) for r in found] == [("fix_same_code", [3, 1], 24)]
    assert [e.line for e in found[0].evidence[2:]] == [1, 2]
