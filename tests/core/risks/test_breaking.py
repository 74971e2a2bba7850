"""Breaking changes: declared in the title, or public modules and functions removed."""

from __future__ import annotations

from service.core.models import CollectedWeek, FileStatus, PullRequest, Risk, Severity
from service.core.profile import RepoProfile
from service.core.risks import breaking
from service.core.risks.base import Context
from tests.core.risks.helpers import LABELS, change, make_pr, real_pr, week_context


def detect(pr_list: list[PullRequest], profile: RepoProfile) -> list[Risk]:
    return breaking.DETECTOR.detect(pr_list, Context(profile=profile))


def test_real_declared_breaking_4106(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    (risk,) = detect([real_pr(weeks, "2025-W47", 4106)], verl_profile)
    assert (risk.rule, risk.severity, risk.params["removed"]) == ("declared", Severity.HIGH, 0)
    assert risk.evidence[0].snippet.startswith("[BREAKING][rollout] feat:")


def test_real_declared_breaking_4280_lists_removed_api(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    (risk,) = detect([real_pr(weeks, "2026-W04", 4280)], verl_profile)
    assert risk.rule == "declared_removal"
    assert risk.params["names"] == (
        "is_valid_ipv6_address, get_free_port, ExternalZeroMQDistributedExecutor, vLLMAsyncRollout"
    )
    removed = risk.evidence[1]
    assert removed.path == "verl/workers/rollout/utils.py"
    assert removed.snippet.startswith("def is_valid_ipv6_address(")


def test_real_removed_function_4304(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    # #4304 deletes assign_non_tensor_dict from verl/utils/tensordict_utils.py; the other
    # functions it rewrites are defined again in the same patch
    (risk,) = detect([real_pr(weeks, "2025-W48", 4304)], verl_profile)
    assert (risk.rule, risk.params["names"]) == ("removed_symbol", "assign_non_tensor_dict")
    assert (risk.evidence[0].path, risk.evidence[0].line) == ("verl/utils/tensordict_utils.py", 23)


def test_real_removed_modules_4352(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    (risk,) = detect([real_pr(weeks, "2025-W48", 4352)], verl_profile)
    assert risk.rule == "removed_module"
    assert risk.params["count"] == 3  # roles/__init__.py is private; roles/utils/* are renamed


def test_real_revert_removing_what_it_reverts_is_not_breaking(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    assert detect([real_pr(weeks, "2025-W48", 4258)], verl_profile) == []


def test_moved_function_private_names_and_methods_are_not_breaking(
    verl_profile: RepoProfile,
) -> None:
    moved = make_pr(
        5,
        "[trainer] refactor: move helpers",
        [
            change(
                "verl/trainer/ppo/core_algos.py",
                "@@ -10,3 +10,0 @@\n-def compute_gae(x):\n-    return x\n-def _private(y):",
            ),
            change(
                "verl/trainer/ppo/advantage.py",
                "@@ -0,0 +1,2 @@\n+def compute_gae(x):\n+    return x",
            ),
            change(
                "verl/workers/actor/dp_actor.py", "@@ -20,1 +20,0 @@\n-    def update_policy(self):"
            ),
            change("recipe/dapo/dapo_ray_trainer.py", "@@ -3,1 +3,0 @@\n-def fit(self):"),
        ],
    )
    assert detect([moved], verl_profile) == []


def test_removed_test_module_is_not_breaking(verl_profile: RepoProfile) -> None:
    pr = make_pr(
        6,
        "[ci] chore: drop test",
        [
            change(
                "tests/trainer/test_x.py", "@@ -1,1 +0,0 @@\n-def test_x():", FileStatus.REMOVED
            ),
        ],
    )
    assert detect([pr], verl_profile) == []


def test_real_weeks_flag_these_prs(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    flagged = [
        (label, r.prs[0], r.rule)
        for label in LABELS
        for r in breaking.DETECTOR.detect(
            weeks[label].prs, week_context(weeks, label, verl_profile)
        )
    ]
    assert flagged == [
        ("2025-W47", 4106, "declared"),
        ("2025-W48", 4304, "removed_symbol"),
        ("2025-W48", 4352, "removed_module"),
        ("2026-W04", 4280, "declared_removal"),
    ]
