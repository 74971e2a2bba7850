"""Names checked against what merged (merged_names.py): real sentences of the model-written
corpus (tune and seen parts) on the facts the service built from the recorded PRs, and the
true sentence beside each."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from service.core.analyst.checker import Checker, check_text
from service.core.analyst.merged_names import (
    existing_mode_reasons,
    existing_reasons,
    gone_module_reasons,
    introduced_by_reasons,
    merged_text,
    new_file_reasons,
    renamed_reasons,
    replaced_parameter_reasons,
)
from tests.core.analyst.model_corpus import facts_for
from tests.core.analyst.test_facts_not_words import check

SEEN_W34 = {"week": "2026-W34", "repo": "verl-project/verl", "previous": None}
TUNE_W03 = {"week": "2026-W03", "repo": "volcengine/verl", "previous": None}


def _evidence(meta: dict[str, Any], lang: str = "en") -> Any:
    return facts_for(meta, lang).evidence


# --- a name only in the description, which the merged change spells another way ----------


def test_a_key_path_review_moved_is_dropped_with_the_merged_path() -> None:
    # #7373's body: "Gated behind `trainer.v1.separate_async.enable_switch`"; merged:
    # `trainer.v1.separate_async.hybrid_rollout.enable_switch=True`
    reasons = check("seen", "2026-W34.en", "Exercise `trainer.v1.separate_async.enable_switch`")
    assert any("hybrid_rollout.enable_switch" in r for r in reasons if r.startswith("renamed"))
    reasons = check("seen", "2026-W34.zh", "#7373 带有中等破坏性风险且开关默认关闭")
    assert any(r.startswith("renamed before merge") for r in reasons)


def test_the_merged_key_path_is_kept() -> None:
    text = "#7373 gates the switch behind `trainer.v1.separate_async.hybrid_rollout.enable_switch`."
    assert renamed_reasons(text, [7373], _evidence(SEEN_W34)) == []


def test_a_name_joined_otherwise_in_the_merged_change_is_dropped() -> None:
    # #7335's body: "Import megatron_adaptor as required dependency"; its scripts only list
    # `MegatronAdaptor==core_r0.18.0` in a comment
    reasons = check("seen", "2026-W34.en", "Imports `megatron_adaptor` as a required")
    assert "the merged change has `MegatronAdaptor`" in " ".join(reasons)


def test_a_description_only_name_of_existing_code_is_kept() -> None:
    # `_compute_old_log_prob` is where the bug crashed: in #6184's body, not in its patch
    # (existing code the PR does not touch), and nothing in the patch spells it otherwise
    assert check("seen", "2026-W19.zh", "修复 `use_fused_kernels=True` 时") == []


def test_a_pr_whose_patches_are_missing_is_not_judged() -> None:
    # #7443's file as GitHub may give it, without its patch (every Python file's patch is
    # collected since checker38): what merged is unknown, the name is not judged
    whole = _evidence(SEEN_W34)
    pr = whole.collected[7443]
    bare = pr.model_copy(update={"files": [f.model_copy(update={"patch": None}) for f in pr.files]})
    evidence = replace(whole, collected={**whole.collected, 7443: bare}, _cache={})
    assert merged_text(evidence, 7443) is None
    text = "#7443 whitelists fused-MoE names via `_FP8_MOE_LEAVES`."
    assert renamed_reasons(text, [7443], evidence) == []


# --- an existing definition told as added ----------------------------------------------------


def test_a_function_a_removed_line_defines_is_not_new() -> None:
    # `-def is_torch_npu_available() -> bool:` / `+def is_torch_npu_available(check_device=True)`
    reasons = check("tune", "2026-W03.zh", "新增 is_torch_npu_available(check_device=True)")
    assert any("not new: `is_torch_npu_available`" in r for r in reasons)


def test_a_new_parameter_of_an_existing_function_is_kept() -> None:
    text = "#4715 为 is_torch_npu_available 新增 check_device 参数，默认 True。"
    assert existing_reasons(text, [4715], _evidence(TUNE_W03, "zh")) == []


def test_each_name_of_the_added_list_is_read() -> None:
    # `ToolListWrap` is new (a rename); `-def initialize_tools_from_config(tools_config_file):`
    reasons = check("seen", "2026-W19.zh", "新增 `ToolListWrap` 与 `initialize_tools_from_config`")
    assert [r for r in reasons if r.startswith("not new")] == [
        "not new: `initialize_tools_from_config` is defined or used on a removed line of #6300 "
        "(it existed before; the PR changes or moves it)"
    ]


def test_a_called_name_in_the_list_is_read_and_plain_words_end_it() -> None:
    # "gains save_checkpoint, load_checkpoint and a to(device) method": `-    def to(self, …`
    reasons = check("tune", "2026-W04.en", "The veomni engine gains save_checkpoint")
    assert [r.split(" is ")[0] for r in reasons if r.startswith("not new")] == ["not new: `to`"]


def test_a_field_moved_within_its_class_is_not_new() -> None:
    # `-    rollout_is_batch_normalize: bool = False` and the same line added further down
    reasons = check("tune", "2026-W03.zh", "预设的 rs_threshold 取值为")
    assert any("not new: `rollout_is_batch_normalize`" in r for r in reasons)


def test_a_name_added_and_another_removed_are_read_apart() -> None:
    # "adds X and removes Y": the list after "adds" ends at the next verb
    facts = facts_for({"week": "2025-W48", "repo": "volcengine/verl", "previous": "2025-W47"}, "en")
    text = "#4304 adds assign_non_tensor_stack and removes assign_non_tensor_dict."
    assert check_text(text, [4304], "pr_points", Checker(facts)) == []


# --- scripts told as added by a PR that adds no file -----------------------------------------


def test_scripts_told_as_added_by_a_pr_that_only_changes_them_are_dropped() -> None:
    # #7335 changes three existing run_qwen3_5_*_megatron.sh scripts and adds none
    reasons = check("seen", "2026-W34.en", "#7362 adds a `turbo_config`")
    assert "no new file: #7335 adds no file, it changes existing ones" in reasons


def test_a_script_the_prs_title_says_it_adds_is_kept() -> None:
    # "#6443 … feat: add Qwen3-VL-30B mbridge launch script on Ascend" (an existing file)
    assert check("seen", "2026-W21.zh", "Ascend 适配持续推进") == []


# --- a parameter that replaces another, a mode that was there ------------------------------


def test_a_parameter_taking_anothers_place_is_not_added() -> None:
    # `-    def __init__(self, config: RewardModelConfig, worker_group: RayWorkerGroup = None):`
    # `+    def __init__(self, config: RewardModelConfig, resource_pool: RayResourcePool = None):`
    reasons = check("tune", "2025-W47.zh", "RewardModel 构造函数新增 resource_pool 参数")
    assert any("`resource_pool` takes the place of `worker_group`" in r for r in reasons)


def test_a_parameter_added_beside_the_others_is_kept() -> None:
    # `-def is_torch_npu_available() -> bool:` / `+def is_torch_npu_available(check_device=True)`
    evidence = _evidence(TUNE_W03, "zh")
    text = "#4715 为 is_torch_npu_available 新增 check_device 参数。"
    assert replaced_parameter_reasons(text, [4715], evidence) == []


def test_a_mode_a_removed_line_names_is_not_added() -> None:
    # `-Discrete mode saves separate trace files for each step.` (now one file per stage)
    said = (("2026-W34.en", "#7408 adds `finish_hook_cmd`"), ("2026-W34.zh", "#7408 新增 `finish"))
    for stem, start in said:
        reasons = check("seen", stem, start)
        assert any(r.startswith("not new: the discrete mode") for r in reasons), stem


def test_a_new_option_beside_an_existing_mode_is_kept() -> None:
    text = "#7408 adds `finish_hook_cmd` and `relocate_results` profiler options."
    assert existing_mode_reasons(text, [7408], _evidence(SEEN_W34)) == []


# --- what an earlier PR introduced, a package a PR took away --------------------------------

TUNE_W48 = {"week": "2025-W48", "repo": "volcengine/verl", "previous": "2025-W47"}


def test_a_name_told_as_introduced_by_a_pr_that_does_not_add_it_is_dropped() -> None:
    # #3465 adds the Qwen3 Mindspeed CI; docker-validate-ascend.yml is on no added side of it
    reasons = check("tune", "2025-W47.zh.adversarial", "#4146 删除的 docker-validate-ascend.yml")
    assert "not introduced by #3465: `docker-validate-ascend.yml` is not on its added side" in (
        reasons
    )


def test_a_name_the_pr_adds_may_be_told_as_introduced_by_it() -> None:
    evidence = _evidence({"week": "2025-W47", "repo": "volcengine/verl", "previous": None}, "zh")
    text = "run_qwen3_30b_dapo_mindspeed.sh 是 #3465 引入的。"
    assert introduced_by_reasons(text, evidence) == []


def test_a_package_a_pr_took_away_does_not_keep_working() -> None:
    # #4352 removes verl/workers/roles/__init__.py, actor.py, critic.py and moves utils/
    reasons = check("tune", "2025-W48.en.adversarial", "#4352 is a pure folder move")
    assert any(
        r.startswith("module gone: #4352 removes or moves verl/workers/roles/") for r in reasons
    )


def test_a_package_left_in_place_may_keep_working() -> None:
    text = "#4352 moves the helpers, so imports from verl.workers.utils keep working."
    assert gone_module_reasons(text, [4352], _evidence(TUNE_W48)) == []


def test_the_size_of_a_change_is_no_new_file() -> None:
    # "#4106 adds 30 lines … across 2 files": a count of changed files, not files added
    evidence = _evidence({"week": "2025-W47", "repo": "volcengine/verl", "previous": None})
    for text in (
        "#4106 adds 30 lines and deletes 2 across 3 files.",
        "#4106 新增 30 行，涉及 3 个文件。",
    ):
        assert new_file_reasons(text, [4106], evidence) == []
