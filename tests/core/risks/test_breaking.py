"""Breaking changes: declared in the title, or public modules, config keys and functions removed."""

from __future__ import annotations

from service.core.models import CollectedPeriod, FileStatus, PullRequest, Risk, Severity
from service.core.profile import RepoProfile
from service.core.risks import breaking
from service.core.risks.base import Context
from tests.core.risks.helpers import LABELS, change, make_pr, real_pr, week_context


def detect(pr_list: list[PullRequest], profile: RepoProfile) -> list[Risk]:
    return breaking.DETECTOR.detect(pr_list, Context(profile=profile))


def items(
    pr: PullRequest, profile: RepoProfile
) -> list[tuple[str, str, list[tuple[str | None, int | None, str | None]]]]:
    """(rule, item, [(path, line, side) of each proof]) of everything the PR changes for users."""
    found = breaking.items_by_rule(pr, Context(profile=profile))
    return [
        (rule, item.name, [(e.path, e.line, e.side and str(e.side)) for e in item.proofs])
        for rule, listed in found.items()
        for item in listed
    ]


def test_real_declared_breaking_4106_lists_its_new_defaults(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #4106 switches rollout to server mode by default: `mode: sync` → `async` and
    # `return_raw_chat: False` → `True`, each cited on both sides in the source config (its
    # _generated_ copies say the same and are not repeated)
    (risk,) = detect([real_pr(weeks, "2025-W47", 4106)], verl_profile)
    assert (risk.rule, risk.severity, risk.params["removed"]) == (
        "declared_removal",
        Severity.HIGH,
        2,
    )
    assert risk.params["names"] == "return_raw_chat: false → true, mode: sync → async"
    assert risk.evidence[0].snippet.startswith("[BREAKING][rollout] feat:")
    assert [(e.path, e.line, e.side, e.snippet) for e in risk.evidence[1:]] == [
        ("verl/trainer/config/data/legacy_data.yaml", 56, "removed", "return_raw_chat: False"),
        ("verl/trainer/config/data/legacy_data.yaml", 56, "added", "return_raw_chat: True"),
        ("verl/trainer/config/rollout/rollout.yaml", 8, "removed", "mode: sync"),
        ("verl/trainer/config/rollout/rollout.yaml", 8, "added", "mode: async"),
    ]


def test_real_declared_breaking_4280_lists_defaults_then_removed_api(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    (risk,) = detect([real_pr(weeks, "2026-W04", 4280)], verl_profile)
    assert risk.rule == "declared_removal"
    assert risk.params["removed"] == 14
    # the sentence lists the first MAX_NAMES; the evidence cites each item's lines
    assert risk.params["names"] == (
        "max_num_seqs: 1024 → 256, update_weights_bucket_megabytes: 512 → 2048, "
        "ActorRolloutRefWorker.get_zeromq_address"
    )
    assert [(e.path, e.line, e.side) for e in risk.evidence[1:]] == [
        ("verl/trainer/config/rollout/rollout.yaml", 68, "removed"),
        ("verl/trainer/config/rollout/rollout.yaml", 68, "added"),
        ("verl/trainer/config/rollout/rollout.yaml", 256, "removed"),
        ("verl/trainer/config/rollout/rollout.yaml", 256, "added"),
    ]
    assert {e.pr for e in risk.evidence} == {4280}
    # VERL_VLLM_ZMQ_ADDRESSES was read and set by verl itself (a hand-off between processes):
    # not a user's setting, so not a removed environment variable
    assert "removed_env" not in breaking.items_by_rule(
        real_pr(weeks, "2026-W04", 4280), Context(profile=verl_profile)
    )


def test_real_renamed_config_presets_4544(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #4544 drops RolloutCorrectionConfig.bypass_pg_rs and geo_rs_seq_tis, presets its docs
    # (docs/algo/rollout_corr_math.md) told users to call, and folds the fields
    # rollout_rs_threshold_lower and rollout_token_veto_threshold into rollout_rs_threshold
    assert items(real_pr(weeks, "2026-W03", 4544), verl_profile) == [
        (
            "removed_config_key",
            "RolloutCorrectionConfig.rollout_rs_threshold_lower",
            [("verl/trainer/config/algorithm.py", 168, "removed")],
        ),
        (
            "removed_config_key",
            "RolloutCorrectionConfig.rollout_token_veto_threshold",
            [("verl/trainer/config/algorithm.py", 169, "removed")],
        ),
        (
            "code_default_changed",
            'compute_rollout_rejection_mask(rollout_rs="token" → "token_k1")',
            [
                ("verl/trainer/ppo/rollout_corr_helper.py", 85, "removed"),
                ("verl/trainer/ppo/rollout_corr_helper.py", 159, "added"),
            ],
        ),
        (
            "removed_symbol",
            "RolloutCorrectionConfig.bypass_pg_rs",
            [("verl/trainer/config/algorithm.py", 336, "removed")],
        ),
        (
            "removed_symbol",
            "RolloutCorrectionConfig.geo_rs_seq_tis",
            [("verl/trainer/config/algorithm.py", 370, "removed")],
        ),
        (
            # the rejection-sampling metrics helper now takes six more arguments, no defaults
            "required_argument",
            "compute_rs_metrics(+option_name +rs_statistic +seq_valid_mask …)",
            [
                ("verl/trainer/ppo/rollout_corr_helper.py", 375, "context"),
                ("verl/trainer/ppo/rollout_corr_helper.py", 376, "added"),
            ],
        ),
    ]


def test_real_defaults_changed_4211(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #4211: the megatron actor's data_loader_seed null → 42 (YAML), ActorConfig.rollout_n
    # 1 → MISSING (a dataclass default: it must now be set), and the ref's FSDP
    # forward_only false → true (seen in the composed config only). Megatron parallel sizes that
    # now follow the actor (`1` → `${oc.select:…,1}`) are interpolations, not new defaults;
    # ref.model is gone from the composed config.
    assert items(real_pr(weeks, "2025-W48", 4211), verl_profile) == [
        ("removed_config_key", "model", [("verl/trainer/config/ref/dp_ref.yaml", 16, "removed")]),
        (
            "default_changed",
            "data_loader_seed: null → 42",
            [
                ("verl/trainer/config/actor/megatron_actor.yaml", 18, "removed"),
                ("verl/trainer/config/actor/megatron_actor.yaml", 18, "added"),
            ],
        ),
        (
            "default_changed",
            "ActorConfig.rollout_n: 1 → MISSING",
            [
                ("verl/workers/config/actor.py", 121, "removed"),
                ("verl/workers/config/actor.py", 124, "added"),
            ],
        ),
        (
            "default_changed",
            "forward_only: false → true",
            [
                ("verl/trainer/config/_generated_ppo_megatron_trainer.yaml", 175, "removed"),
                ("verl/trainer/config/_generated_ppo_megatron_trainer.yaml", 177, "added"),
            ],
        ),
    ]


def test_real_default_changed_5019(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # the YAML and the dataclass say the same change (`"eager"` quoted in Python): one item
    (risk,) = detect([real_pr(weeks, "2026-W04", 5019)], verl_profile)
    assert (risk.rule, risk.severity, risk.params["names"]) == (
        "default_changed",
        Severity.MEDIUM,
        "moe_implementation: eager → fused",
    )
    assert [(e.path, e.line, e.side, e.snippet) for e in risk.evidence] == [
        ("verl/trainer/config/engine/veomni.yaml", 61, "removed", "moe_implementation: eager"),
        ("verl/trainer/config/engine/veomni.yaml", 64, "added", "moe_implementation: fused"),
    ]


def test_routine_config_changes_are_not_breaking(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # new keys and comments only (new engines, tracing limits, LoRA options, …)
    routine = {
        "2025-W47": (4139, 4185, 3519),
        "2025-W48": (4063, 4239, 4293),
        "2026-W03": (4916,),
        "2026-W04": (4936, 4665, 4632),
    }
    for label, numbers in routine.items():
        for number in numbers:
            assert detect([real_pr(weeks, label, number)], verl_profile) == [], number


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
    caller = "@@ -5,1 +5,1 @@\n-    actor.update_policy(batch)\n+    actor.step(batch)"
    files = [
        change("verl/workers/actor/dp_actor.py", patch),
        change("verl/trainer/ppo/ray_trainer.py", caller),
    ]
    pr = make_pr(12, "[worker] refactor: x", files)
    (risk,) = detect([pr], verl_profile)
    assert risk.params["names"] == "DataParallelPPOActor.update_policy"
    assert (risk.evidence[0].line, risk.evidence[0].side) == (43, "removed")


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
            change("docs/workers.md", "@@ -1,1 +1,0 @@\n-Use `OldWorker` and `helper`."),
        ],
    )
    (risk,) = detect([pr], verl_profile)
    assert risk.params["names"] == "OldWorker"


def test_real_helper_only_its_tests_called_4304_is_not_breaking(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #4304 deletes assign_non_tensor_dict from verl/utils/tensordict_utils.py; only a test
    # called it (tests/test_protocol_v2_on_cpu.py), so it is not what users meet
    assert detect([real_pr(weeks, "2025-W48", 4304)], verl_profile) == []


def test_removed_function_used_only_in_its_own_file_or_private_is_not_breaking(
    verl_profile: RepoProfile,
) -> None:
    own = (
        "@@ -10,6 +10,2 @@\n-def build_mask(x):\n-    return x\n-def _hidden(y):\n-    return y\n"
        " def apply(x):\n-    return build_mask(x)\n+    return x\n"
    )
    other = "@@ -3,1 +3,1 @@\n-from verl.utils.torch_functional import _hidden\n+import os"
    pr = make_pr(
        18,
        "[misc] refactor: inline",
        [change("verl/utils/torch_functional.py", own), change("verl/trainer/main_ppo.py", other)],
    )
    assert detect([pr], verl_profile) == []


def test_real_removed_and_moved_modules_4352(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # the verl.workers.roles package goes: ActorWorker and CriticWorker move into
    # verl/workers/engine_workers.py (import path old → new, cited on both sides), roles/utils/*
    # are renamed to verl/workers/utils/*, and two modules are deleted outright
    deleted, moved = detect([real_pr(weeks, "2025-W48", 4352)], verl_profile)
    assert (deleted.rule, deleted.params["names"]) == (
        "removed_module",
        "verl/workers/roles/__init__.py, verl/workers/roles/hybrid_engine.py",
    )
    assert moved.rule == "renamed_module"
    assert moved.params["names"] == (
        "verl.workers.roles.actor → verl.workers.engine_workers, "
        "verl.workers.roles.critic → verl.workers.engine_workers, "
        "verl/workers/roles/utils/__init__.py → verl/workers/utils/__init__.py"
    )
    assert [
        item.name
        for item in breaking.items_by_rule(
            real_pr(weeks, "2025-W48", 4352), Context(profile=verl_profile)
        )["renamed_module"]
    ][3:] == [
        "verl/workers/roles/utils/losses.py → verl/workers/utils/losses.py",
        "verl/workers/roles/utils/padding.py → verl/workers/utils/padding.py",
    ]
    assert [(e.path, e.line, e.side) for e in moved.evidence[:4]] == [
        ("verl/workers/roles/actor.py", 44, "removed"),
        ("verl/workers/engine_workers.py", 49, "added"),
        ("verl/workers/roles/critic.py", 46, "removed"),
        ("verl/workers/engine_workers.py", 204, "added"),
    ]


def test_real_revert_removing_what_it_reverts_is_not_breaking(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
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
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    flagged = sorted(
        (label, r.prs[0], r.rule, r.params.get("count", r.params.get("removed")))
        for label in LABELS
        for r in breaking.DETECTOR.detect(
            weeks[label].prs, week_context(weeks, label, verl_profile)
        )
    )
    assert flagged == [
        ("2025-W47", 4106, "declared_removal", 2),
        ("2025-W47", 4187, "renamed_module", 1),
        ("2025-W48", 4211, "default_changed", 3),
        ("2025-W48", 4211, "removed_config_key", 1),
        ("2025-W48", 4352, "removed_module", 2),
        ("2025-W48", 4352, "renamed_module", 5),
        ("2026-W03", 4544, "code_default_changed", 1),
        ("2026-W03", 4544, "removed_config_key", 2),
        ("2026-W03", 4544, "removed_symbol", 2),
        ("2026-W03", 4544, "required_argument", 1),
        ("2026-W04", 4280, "declared_removal", 14),
        ("2026-W04", 4320, "removed_config_key", 3),
        ("2026-W04", 4931, "renamed_module", 1),
        ("2026-W04", 5019, "default_changed", 1),
        ("2026-W04", 5033, "renamed_module", 1),
    ]


def test_removed_module_evidence_quotes_its_first_definition(verl_profile: RepoProfile) -> None:
    gone = FileStatus.REMOVED
    patch = "@@ -1,4 +0,0 @@\n-import os\n-\n-def load(path):\n-    return path"
    pr = make_pr(
        19,
        "[misc] chore: drop loader",
        [
            change("verl/utils/loader.py", patch, gone),
            change("verl/utils/empty/__init__.py", None, gone),
        ],
    )
    (risk,) = detect([pr], verl_profile)
    assert [(e.path, e.line, e.side, e.snippet) for e in risk.evidence] == [
        ("verl/utils/loader.py", 3, "removed", "def load(path):"),
        # a module whose patch shows no definition is its own evidence
        ("verl/utils/empty/__init__.py", None, None, "verl/utils/empty/__init__.py"),
    ]


# --- deleted and renamed public modules -----------------------------------------------------


def test_real_module_moved_whole_5033(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #5033 deletes verl/utils/veomni_utils.py and defines all its helpers again in
    # verl/workers/engine/veomni/utils.py: the import path changes, old → new on both sides
    (risk,) = detect([real_pr(weeks, "2026-W04", 5033)], verl_profile)
    assert (risk.rule, risk.severity, risk.params["names"]) == (
        "renamed_module",
        Severity.MEDIUM,
        "verl.utils.veomni_utils → verl.workers.engine.veomni.utils",
    )
    assert [(e.path, e.line, e.side) for e in risk.evidence[:2]] == [
        ("verl/utils/veomni_utils.py", 21, "removed"),
        ("verl/workers/engine/veomni/utils.py", 36, "added"),
    ]
    assert risk.evidence[1].snippet.startswith("def offload_veomni_model_to_cpu(")


def test_real_renamed_module_4931(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #4931 renames verl/models/mcore/patch_v012.py to patch.py
    (risk,) = detect([real_pr(weeks, "2026-W04", 4931)], verl_profile)
    assert (risk.rule, risk.params["count"]) == ("renamed_module", 1)
    assert risk.params["names"] == "verl/models/mcore/patch_v012.py → verl/models/mcore/patch.py"
    assert risk.evidence[0].path == "verl/models/mcore/patch_v012.py"


def test_real_renamed_module_4187(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    (risk,) = detect([real_pr(weeks, "2025-W47", 4187)], verl_profile)
    assert risk.params["names"] == (
        "verl/experimental/reward/router/sglang_router.py → "
        "verl/experimental/reward/router/inner_sglang_router.py"
    )


def test_private_test_and_example_modules_are_not_public(verl_profile: RepoProfile) -> None:
    gone = FileStatus.REMOVED
    pr = make_pr(
        14,
        "[misc] chore: cleanup",
        [
            change("verl/utils/_private.py", None, gone),
            change("verl/utils/test_helpers.py", None, gone),
            change("recipe/x/run.py", None, gone),
            change("scripts/tool.py", None, gone),
            change("verl/trainer/config/old.yaml", None, gone),
            change("tests/x.py", None, FileStatus.RENAMED, previous_path="tests/y.py"),
        ],
    )
    assert detect([pr], verl_profile) == []


# --- configuration keys -------------------------------------------------------------------


def test_real_profiler_keys_removed_4320(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #4320 replaces the torch profiler's step_start / step_end / manual_save with contents /
    # discrete in the YAML configs, their generated copies and the TorchProfilerToolConfig
    # dataclass: each key once, cited in a source config (not in a _generated_ copy)
    (risk,) = detect([real_pr(weeks, "2026-W04", 4320)], verl_profile)
    assert (risk.rule, risk.severity, risk.params["count"]) == (
        "removed_config_key",
        Severity.MEDIUM,
        3,
    )
    assert risk.params["names"] == "step_start, step_end, manual_save"
    assert [(e.path, e.line, e.side, e.snippet) for e in risk.evidence] == [
        ("verl/trainer/config/actor/actor.yaml", 220, "removed", "step_start: 0"),
        ("verl/trainer/config/actor/actor.yaml", 223, "removed", "step_end: null"),
        ("verl/trainer/config/profiler/profiler.yaml", 63, "removed", "manual_save: True"),
    ]


def test_yaml_key_renamed_without_generated_copies(verl_profile: RepoProfile) -> None:
    # synthetic: no recorded PR renames a YAML key without regenerating the composed configs
    patch = (
        "@@ -3,4 +3,4 @@ actor:\n"
        "   # micro batch\n"
        "-  ppo_micro_batch: 4\n"
        "+  ppo_micro_batch_size: 4\n"
        "   # a comment naming old_key: here\n"
        "-  # commented_out: 1\n"
        "   keep: 1\n"
    )
    pr = make_pr(
        15, "[cfg] refactor: rename", [change("verl/trainer/config/actor/actor.yaml", patch)]
    )
    (risk,) = detect([pr], verl_profile)
    assert (risk.rule, risk.params["names"]) == (
        "moved_config_key",
        "actor.ppo_micro_batch → actor.ppo_micro_batch_size",
    )
    assert [(e.line, e.side) for e in risk.evidence] == [(4, "removed"), (4, "added")]


def test_dataclass_field_docstring_and_function_body_are_not_keys(
    verl_profile: RepoProfile,
) -> None:
    # synthetic: a docstring line that looks like a field, and a local variable with a type
    patch = (
        "@@ -10,9 +10,6 @@ class OptimConfig(BaseConfig):\n"
        '     """Optimizer config.\n'
        "-    Note: lr is per group\n"
        '     """\n'
        "     lr: float = 1e-3\n"
        "-    warmup: int = 0\n"
        "+    warmup_steps: int = 0\n"
        "@@ -40,3 +37,2 @@ def build(config):\n"
        "-    total: int = 0\n"
        "     return config\n"
    )
    pr = make_pr(16, "[cfg] fix: x", [change("verl/workers/config/optimizer.py", patch)])
    (risk,) = detect([pr], verl_profile)
    assert (risk.rule, risk.params["names"]) == (
        "moved_config_key",
        "OptimConfig.warmup → OptimConfig.warmup_steps",
    )
    assert [(e.line, e.side) for e in risk.evidence] == [(14, "removed"), (13, "added")]


def test_declared_break_lists_config_keys(verl_profile: RepoProfile) -> None:
    patch = "@@ -1,2 +1,1 @@\n-old_key: 1\n keep: 2\n"
    pr = make_pr(
        17, "[BREAKING][cfg] refactor: drop old_key", [change("verl/trainer/config/a.yaml", patch)]
    )
    (risk,) = detect([pr], verl_profile)
    assert (risk.rule, risk.params["names"]) == ("declared_removal", "old_key")


# --- moved keys, flags, environment variables, moved functions (synthetic: no recorded week
# --- has one) --------------------------------------------------------------------------------


def test_key_moved_under_another_parent_in_the_composed_config(verl_profile: RepoProfile) -> None:
    # the composed copy shows both whole paths: actor.ppo_epochs → trainer.ppo_epochs; the
    # source files alone (actor.yaml, trainer.yaml) could not tell where each lands
    generated = (
        "@@ -1,4 +1,3 @@\n actor:\n-  ppo_epochs: 1\n   lr: 0.1\n"
        "@@ -20,2 +19,3 @@\n trainer:\n+  ppo_epochs: 1\n   seed: 0\n"
    )
    files = [
        change("verl/trainer/config/actor/actor.yaml", "@@ -1,2 +1,1 @@\n-ppo_epochs: 1\n lr: 0.1"),
        change("verl/trainer/config/trainer.yaml", "@@ -1,1 +1,2 @@\n+ppo_epochs: 1\n seed: 0"),
        change("verl/trainer/config/_generated_ppo_trainer.yaml", generated),
    ]
    pr = make_pr(20, "[cfg] refactor: epochs belong to the trainer", files)
    assert items(pr, verl_profile) == [
        (
            "moved_config_key",
            "actor.ppo_epochs → trainer.ppo_epochs",
            [
                ("verl/trainer/config/_generated_ppo_trainer.yaml", 2, "removed"),
                ("verl/trainer/config/_generated_ppo_trainer.yaml", 20, "added"),
            ],
        )
    ]


def test_same_key_under_a_parent_the_patch_does_not_show_is_not_a_move(
    verl_profile: RepoProfile,
) -> None:
    # reordered inside one block whose parents are outside the hunk: nothing moved
    generated = (
        "@@ -30,4 +30,4 @@ actor_rollout_ref:\n"
        "-      use_fused_kernels: false\n       trust_remote_code: false\n"
        "+      use_fused_kernels: false\n"
    )
    pr = make_pr(
        21,
        "[cfg] chore: reorder",
        [change("verl/trainer/config/_generated_ppo_trainer.yaml", generated)],
    )
    assert detect([pr], verl_profile) == []


def test_field_moved_to_an_unrelated_class_but_not_to_its_base(verl_profile: RepoProfile) -> None:
    patch = (
        "@@ -10,3 +10,2 @@ class McoreActorConfig(ActorConfig):\n"
        "     strategy: str = 'megatron'\n-    seed: int = 1\n-    clip: float = 0.2\n"
        "@@ -40,2 +39,4 @@ class ActorConfig(BaseConfig):\n"
        "     lr: float = 0.1\n+    seed: int = 1\n"
        "@@ -60,2 +61,3 @@ class OptimConfig(BaseConfig):\n"
        "     beta: float = 0.9\n+    clip: float = 0.2\n"
    )
    pr = make_pr(22, "[cfg] refactor: fields", [change("verl/workers/config/actor.py", patch)])
    assert items(pr, verl_profile) == [
        (
            "moved_config_key",
            "McoreActorConfig.clip → OptimConfig.clip",
            [
                ("verl/workers/config/actor.py", 12, "removed"),
                ("verl/workers/config/actor.py", 62, "added"),
            ],
        )
    ]


def test_removed_and_renamed_flags(verl_profile: RepoProfile) -> None:
    patch = (
        "@@ -20,4 +20,3 @@ def main():\n"
        '-    parser.add_argument("--local_dir", type=str)\n'
        '+    parser.add_argument("--target_dir", type=str)\n'
        '-    parser.add_argument("--hf_upload", action="store_true")\n'
        '     parser.add_argument("--backend", type=str)\n'
    )
    test = '@@ -1,1 +1,0 @@\n-    parser.add_argument("--only_in_tests")'
    pr = make_pr(
        23,
        "[misc] refactor: merger flags",
        [change("scripts/model_merger.py", patch), change("tests/test_merger.py", test)],
    )
    assert items(pr, verl_profile) == [
        (
            "removed_flag",
            "--local_dir → --target_dir",
            [("scripts/model_merger.py", 20, "removed"), ("scripts/model_merger.py", 20, "added")],
        ),
        ("removed_flag", "--hf_upload", [("scripts/model_merger.py", 21, "removed")]),
    ]


def test_removed_and_renamed_environment_variables(verl_profile: RepoProfile) -> None:
    patch = (
        "@@ -5,6 +5,5 @@ import os\n"
        '-LEVEL = os.getenv("VERL_LOGGING_LEVEL", "WARN")\n'
        '+LEVEL = os.getenv("VERL_LOG_LEVEL", "WARN")\n'
        '-PPROF = os.environ.get("VERL_PPROF_DIR")\n'
        '-RANK = int(os.environ["RANK"])\n'
        '-ADDR = os.environ["VERL_ZMQ_ADDR"]\n'
        '-os.environ["VERL_ZMQ_ADDR"] = addr\n'
        " x = 1\n"
    )
    pr = make_pr(24, "[misc] refactor: env", [change("verl/utils/logging_utils.py", patch)])
    # RANK is not verl's; VERL_ZMQ_ADDR is set by verl itself (internal hand-off)
    assert items(pr, verl_profile) == [
        (
            "removed_env",
            "VERL_LOGGING_LEVEL → VERL_LOG_LEVEL",
            [
                ("verl/utils/logging_utils.py", 5, "removed"),
                ("verl/utils/logging_utils.py", 5, "added"),
            ],
        ),
        ("removed_env", "VERL_PPROF_DIR", [("verl/utils/logging_utils.py", 6, "removed")]),
    ]


def test_function_moved_to_another_module_that_callers_import(verl_profile: RepoProfile) -> None:
    files = [
        change(
            "verl/trainer/ppo/core_algos.py",
            "@@ -10,2 +10,0 @@\n-def compute_gae(x):\n-    return x",
        ),
        change(
            "verl/trainer/ppo/advantage.py", "@@ -0,0 +1,2 @@\n+def compute_gae(x):\n+    return x"
        ),
        change(
            "verl/trainer/ppo/ray_trainer.py",
            "@@ -3,1 +3,1 @@\n-from verl.trainer.ppo.core_algos import compute_gae\n"
            "+from verl.trainer.ppo.advantage import compute_gae",
        ),
    ]
    pr = make_pr(25, "[trainer] refactor: move gae", files)
    assert items(pr, verl_profile) == [
        (
            "moved_symbol",
            "verl.trainer.ppo.core_algos.compute_gae → verl.trainer.ppo.advantage.compute_gae",
            [
                ("verl/trainer/ppo/core_algos.py", 10, "removed"),
                ("verl/trainer/ppo/advantage.py", 1, "added"),
            ],
        )
    ]


def test_the_keys_of_a_directory_the_pr_empties_go_with_it() -> None:
    """verl-recipe 2026-W21: #101 deletes `swe_agent/` and #103 moves the ascend recipes out
    (`fault_recover/`…): their config files go with the directories, which the migration risk
    tells; '90 config keys removed, not declared breaking' is no separate finding."""
    from pathlib import Path

    from service.core.profile import load_profile
    from service.core.risks.migration import removed_directories
    from service.pipeline.recorded import load_recorded
    from tests.conftest import NOW

    path = Path(__file__).parents[2] / "data" / "weeks" / "verl-project"
    week = load_recorded(path / "verl-recipe.2026-W21.json", NOW)
    context = Context(profile=load_profile(week.repo), week=tuple(week.prs), earlier=())
    rules = {(r.prs[0], r.rule) for r in breaking.DETECTOR.detect(week.prs, context)}
    assert (101, "removed_config_key") not in rules
    assert (103, "removed_config_key") not in rules
    assert "swe_agent" in removed_directories(real_pr({"w": week}, "w", 101))
    assert "fault_recover" in removed_directories(real_pr({"w": week}, "w", 103))


def test_a_deleted_config_file_outside_an_emptied_directory_still_loses_its_keys(
    verl_profile: RepoProfile,
) -> None:
    gone = FileStatus.REMOVED
    yaml = "verl/trainer/config/algo/old.yaml"
    patch = "@@ -1,2 +0,0 @@\n-algo:\n-  kl_coef: 0.1"
    alone = make_pr(1, "[trainer] chore: drop old.yaml", files=[change(yaml, patch, gone)])
    context = Context(profile=verl_profile, week=(alone,), earlier=())
    risks = list(breaking.DETECTOR.detect([alone], context))
    assert [r.rule for r in risks] == ["removed_config_key"]
    folder = [
        change(yaml, patch, gone),
        change("verl/trainer/config/algo/__init__.py", "@@ -1 +0,0 @@\n-x = 1", gone),
        change("verl/trainer/config/algo/README.md", "@@ -1 +0,0 @@\n-# algo", gone),
    ]
    emptied = make_pr(2, "[trainer] chore: drop the algo configs", files=folder)
    context = Context(profile=verl_profile, week=(emptied,), earlier=())
    rules = [r.rule for r in breaking.DETECTOR.detect([emptied], context)]
    assert "removed_config_key" not in rules


def test_a_default_only_the_generated_config_changes_is_a_stale_copy_caught_up() -> None:
    """verl-omni 2026-W34 #363 (adapt rollout to vllm-omni 0.27) regenerates
    `_generated_omni_trainer.yaml`, whose `adv_estimator: dpo → grpo` no source of the PR
    changes: the copy catches up with a default changed before, no behaviour change of #363."""
    from pathlib import Path

    from service.core.profile import load_profile
    from service.pipeline.recorded import load_recorded
    from tests.conftest import NOW

    path = Path(__file__).parents[2] / "data" / "weeks" / "verl-project"
    week = load_recorded(path / "verl-omni.2026-W34.json", NOW)
    context = Context(profile=load_profile(week.repo), week=tuple(week.prs), earlier=())
    rules = {(r.prs[0], r.rule) for r in breaking.DETECTOR.detect(week.prs, context)}
    assert (363, "default_changed") not in rules


def test_a_default_the_generated_config_and_a_source_change_together_is_told(
    verl_profile: RepoProfile,
) -> None:
    generated = "verl/trainer/config/_generated_ppo_trainer.yaml"
    copy = (
        "@@ -10,3 +10,3 @@ algorithm:\n   gamma: 1.0\n-  adv_estimator: gae\n+  adv_estimator: grpo"
    )
    stale = make_pr(1, "[cfg] chore: regenerate", files=[change(generated, copy)])
    context = Context(profile=verl_profile, week=(stale,), earlier=())
    assert not list(breaking.DETECTOR.detect([stale], context))
    source = "verl/trainer/ppo/core_algos.py"
    code = '@@ -5,1 +5,1 @@\n-DEFAULT = "gae"  # adv_estimator\n+DEFAULT = "grpo"  # adv_estimator'
    real = make_pr(
        2, "[algo] feat: grpo by default", files=[change(generated, copy), change(source, code)]
    )
    context = Context(profile=verl_profile, week=(real,), earlier=())
    rules = [r.rule for r in breaking.DETECTOR.detect([real], context)]
    assert rules == ["default_changed"]
