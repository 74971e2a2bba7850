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
    assert risk.params["removed"] == 13
    assert str(risk.params["names"]).startswith(
        "ActorRolloutRefWorker.get_zeromq_address, ActorRolloutRefWorker.chat_completion"
    )
    removed = risk.evidence[1]
    assert (removed.path, removed.line) == ("verl/workers/engine_workers.py", 595)
    assert removed.snippet == "def get_zeromq_address(self):"


def test_real_renamed_config_presets_4544(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    # #4544 renames RolloutCorrectionConfig.bypass_pg_rs to bypass_pg_geo_rs and drops
    # geo_rs_seq_tis: callers of the old classmethods break, the title does not say so
    (risk,) = detect([real_pr(weeks, "2026-W03", 4544)], verl_profile)
    assert (risk.rule, risk.severity) == ("removed_symbol", Severity.MEDIUM)
    assert risk.params["names"] == (
        "RolloutCorrectionConfig.bypass_pg_rs, RolloutCorrectionConfig.geo_rs_seq_tis"
    )
    assert [(e.path, e.line) for e in risk.evidence] == [
        ("verl/trainer/config/algorithm.py", 347),
        ("verl/trainer/config/algorithm.py", 371),
    ]


def test_removed_method_of_a_public_class_is_breaking(verl_profile: RepoProfile) -> None:
    patch = (
        "@@ -40,6 +40,2 @@ class DataParallelPPOActor(BasePPOActor):\n"
        "     def compute_log_prob(self, data):\n"
        "         return x\n"
        "-\n"
        "-    def update_policy(self, data):\n"
        "-        return y\n"
        "-\n"
    )
    pr = make_pr(12, "[worker] refactor: x", [change("verl/workers/actor/dp_actor.py", patch)])
    (risk,) = detect([pr], verl_profile)
    assert risk.params["names"] == "DataParallelPPOActor.update_policy"
    assert risk.evidence[0].line == 42


def test_nested_functions_and_methods_of_removed_classes(verl_profile: RepoProfile) -> None:
    nested = (
        "@@ -10,3 +10,1 @@ def build(config):\n     x = 1\n-    def helper(y):\n-        return y"
    )
    whole_class = "@@ -1,4 +1,0 @@\n-class OldWorker:\n-    def run(self):\n-        pass\n-\n"
    pr = make_pr(
        13,
        "[worker] refactor: y",
        [
            change("verl/workers/fsdp_workers.py", nested),
            change("verl/workers/megatron_workers.py", whole_class),
        ],
    )
    (risk,) = detect([pr], verl_profile)
    assert risk.params["names"] == "OldWorker"


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
        ("2026-W03", 4544, "removed_symbol"),
        ("2026-W04", 4280, "declared_removal"),
    ]


def test_removed_module_evidence_quotes_its_first_definition(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    (risk,) = detect([real_pr(weeks, "2025-W48", 4352)], verl_profile)
    assert risk.evidence[0].path == "verl/workers/roles/actor.py"
    assert risk.evidence[0].snippet == "class ActorWorker(Worker, DistProfilerExtension):"
