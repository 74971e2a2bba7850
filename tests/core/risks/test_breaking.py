"""Breaking changes: declared in the title, or public modules, config keys and functions removed."""

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
    # each removed def is cited by its own line in the OLD file (not the hunk's first line)
    assert [(e.path, e.line, e.side, e.snippet) for e in risk.evidence[1:]] == [
        ("verl/workers/engine_workers.py", 602, "removed", "def get_zeromq_address(self):"),
        (
            "verl/workers/engine_workers.py",
            608,
            "removed",
            "async def chat_completion(self, json_request):",
        ),
        ("verl/workers/engine_workers.py", 613, "removed", "async def generate("),
        ("verl/workers/fsdp_workers.py", 2027, "removed", "def get_zeromq_address(self):"),
    ]
    assert {e.pr for e in risk.evidence} == {4280}


def test_real_renamed_config_presets_4544(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    # #4544 renames RolloutCorrectionConfig.bypass_pg_rs to bypass_pg_geo_rs and drops
    # geo_rs_seq_tis: callers of the old classmethods break, the title does not say so. It also
    # folds the config fields rollout_rs_threshold_lower and rollout_token_veto_threshold into
    # rollout_rs_threshold: configs that set them fail
    keys, symbols = detect([real_pr(weeks, "2026-W03", 4544)], verl_profile)
    assert (keys.rule, keys.severity) == ("removed_config_key", Severity.MEDIUM)
    assert keys.params["names"] == "rollout_rs_threshold_lower, rollout_token_veto_threshold"
    assert [(e.path, e.line, e.side) for e in keys.evidence] == [
        ("verl/trainer/config/algorithm.py", 168, "removed"),
        ("verl/trainer/config/algorithm.py", 169, "removed"),
    ]
    assert (symbols.rule, symbols.severity) == ("removed_symbol", Severity.MEDIUM)
    assert symbols.params["names"] == (
        "RolloutCorrectionConfig.bypass_pg_rs, RolloutCorrectionConfig.geo_rs_seq_tis"
    )
    assert [(e.path, e.line, e.side) for e in symbols.evidence] == [
        ("verl/trainer/config/algorithm.py", 336, "removed"),
        ("verl/trainer/config/algorithm.py", 370, "removed"),
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
    found = risk.evidence[0]
    assert (found.path, found.line, found.side) == ("verl/utils/tensordict_utils.py", 23, "removed")


def test_real_removed_modules_4352(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    # the whole verl.workers.roles package goes: four modules deleted, roles/utils/* renamed
    # to verl/workers/utils/* (tests/models/test_engine.py had to change its import)
    (risk,) = detect([real_pr(weeks, "2025-W48", 4352)], verl_profile)
    assert risk.rule == "removed_module"
    assert risk.params["count"] == 7
    assert risk.params["names"] == (
        "verl/workers/roles/__init__.py, verl/workers/roles/actor.py, "
        "verl/workers/roles/critic.py, verl/workers/roles/hybrid_engine.py, "
        "verl/workers/roles/utils/__init__.py → verl/workers/utils/__init__.py"
    )


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
    flagged = sorted(
        (label, r.prs[0], r.rule)
        for label in LABELS
        for r in breaking.DETECTOR.detect(
            weeks[label].prs, week_context(weeks, label, verl_profile)
        )
    )
    assert flagged == [
        ("2025-W47", 4106, "declared"),
        ("2025-W47", 4187, "renamed_module"),
        ("2025-W48", 4211, "removed_config_key"),
        ("2025-W48", 4304, "removed_symbol"),
        ("2025-W48", 4352, "removed_module"),
        ("2026-W03", 4544, "removed_config_key"),
        ("2026-W03", 4544, "removed_symbol"),
        ("2026-W04", 4280, "declared_removal"),
        ("2026-W04", 4320, "removed_config_key"),
        ("2026-W04", 4931, "renamed_module"),
        ("2026-W04", 5033, "removed_module"),
    ]


def test_removed_module_evidence_quotes_its_first_definition(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    (risk,) = detect([real_pr(weeks, "2025-W48", 4352)], verl_profile)
    actor = risk.evidence[1]
    assert (actor.path, actor.line, actor.side) == ("verl/workers/roles/actor.py", 44, "removed")
    assert actor.snippet == "class ActorWorker(Worker, DistProfilerExtension):"
    # roles/__init__.py defines nothing: the file itself is the evidence
    assert (risk.evidence[0].path, risk.evidence[0].line) == (
        "verl/workers/roles/__init__.py",
        None,
    )


# --- deleted and renamed public modules -----------------------------------------------------


def test_real_deleted_utils_module_5033(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    # #5033 deletes verl/utils/veomni_utils.py (public, though not a core path) and moves its
    # helpers into verl/workers/engine/veomni/utils.py: `import verl.utils.veomni_utils` fails
    (risk,) = detect([real_pr(weeks, "2026-W04", 5033)], verl_profile)
    assert (risk.rule, risk.severity, risk.params["names"]) == (
        "removed_module",
        Severity.MEDIUM,
        "verl/utils/veomni_utils.py",
    )
    found = risk.evidence[0]
    assert (found.path, found.line, found.side) == ("verl/utils/veomni_utils.py", 21, "removed")
    assert found.snippet.startswith("def offload_veomni_model_to_cpu(")


def test_real_renamed_module_4931(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    # #4931 renames verl/models/mcore/patch_v012.py to patch.py
    (risk,) = detect([real_pr(weeks, "2026-W04", 4931)], verl_profile)
    assert (risk.rule, risk.params["count"]) == ("renamed_module", 1)
    assert risk.params["names"] == "verl/models/mcore/patch_v012.py → verl/models/mcore/patch.py"
    assert risk.evidence[0].path == "verl/models/mcore/patch_v012.py"


def test_real_renamed_module_4187(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
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
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
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


def test_real_ref_model_key_removed_4211_but_moved_keys_are_not(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    # #4211 moves actor_rollout_ref.model.{path, external_lib, …} out of
    # ppo_megatron_trainer.yaml into the hf_model defaults: the generated (composed) configs
    # still have them, so they are not removed. ref.model (dp_ref.yaml) is gone from the
    # composed config too.
    (risk,) = detect([real_pr(weeks, "2025-W48", 4211)], verl_profile)
    assert (risk.rule, risk.params["names"]) == ("removed_config_key", "model")
    assert (risk.evidence[0].path, risk.evidence[0].line) == (
        "verl/trainer/config/ref/dp_ref.yaml",
        16,
    )


def test_real_changed_field_type_5019_is_not_a_removal(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    # #5019 changes attn_implementation's type and moe_implementation's default: both stay
    assert detect([real_pr(weeks, "2026-W04", 5019)], verl_profile) == []


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
    assert (risk.rule, risk.params["names"]) == ("removed_config_key", "ppo_micro_batch")
    assert (risk.evidence[0].line, risk.evidence[0].side) == (4, "removed")


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
    assert (risk.rule, risk.params["names"]) == ("removed_config_key", "warmup")
    assert (risk.evidence[0].line, risk.evidence[0].side) == (14, "removed")


def test_declared_break_lists_config_keys(verl_profile: RepoProfile) -> None:
    patch = "@@ -1,2 +1,1 @@\n-old_key: 1\n keep: 2\n"
    pr = make_pr(
        17, "[BREAKING][cfg] refactor: drop old_key", [change("verl/trainer/config/a.yaml", patch)]
    )
    (risk,) = detect([pr], verl_profile)
    assert (risk.rule, risk.params["names"]) == ("declared_removal", "old_key")
