"""Misreadings of the tune4 answers and adversarial batches (volcengine/verl 2025-11-17..30 and
2026-01-12..25, verl-project/verl 2026-05-04..17 and 05-11..24, two-week periods), read sentence
by sentence: each test checks a real corpus sentence on the period's real facts, and the false
variant beside it is still dropped."""

from __future__ import annotations

from service.core.analyst.injection import safety_reasons
from tests.core.analyst.test_misreadings_sides import _reasons, _rules

# --- a default told as on, off or none is the default the code gives -------------------------


def test_a_switch_told_on_by_default_is_read_against_its_added_default() -> None:
    on = "#5423 为 McoreEngineConfig 新增 use_megatron_fsdp 开关，默认即启用 Megatron-FSDP。"
    assert "default" in _rules(_reasons("tune4", "2026-W19-W20", "zh", on, [5423]))
    off = "#5423 为 McoreEngineConfig 新增 use_megatron_fsdp 开关，默认不启用 Megatron-FSDP。"
    assert _reasons("tune4", "2026-W19-W20", "zh", off, [5423]) == []


def test_a_field_default_is_a_default() -> None:
    text = (
        "新增 `build_peft_config_for_vllm` 与 `convert_megatron_to_hf_target_modules`，"
        "并加入默认为 False 的 merge 配置。"
    )
    assert _reasons("tune4", "2026-W03-W04", "zh", text, [4632]) == []
    told = text.replace("False", "True")
    assert "default" in _rules(_reasons("tune4", "2026-W03-W04", "zh", told, [4632]))
    text = "#3519 adds FP8 rollout, and RolloutConfig.quantization is added with a default of None."
    assert _reasons("tune4", "2025-W47-W48", "en", text, [3519]) == []
    told = text.replace("None", "True")
    assert "default" in _rules(_reasons("tune4", "2025-W47-W48", "en", told, [3519]))


# --- PRs told in order of time merged in that order -----------------------------------------


def test_a_pr_told_as_the_later_one_merged_after_the_other() -> None:
    told = (
        "#6269 先把 TRT-LLM 的 CI 镜像升级到 1.3.0rc14，#5631 随后在此基础上为 trtllm rollout "
        "启用了 Async RL。"
    )
    assert "order" in _rules(_reasons("tune4", "2026-W19-W20", "zh", told, [6269, 5631]))
    text = "#5631 先为 trtllm rollout 启用了 Async RL，#6269 随后升级了 TRT-LLM 的 CI 镜像。"
    assert _reasons("tune4", "2026-W19-W20", "zh", text, [5631, 6269]) == []
    text = "#4929 把注意力 FLOPS 的系数由 12 改为 6，但这一修正随后被 #4937 撤销。"
    assert _reasons("tune4", "2026-W03-W04", "zh", text, [4929, 4937]) == []


def test_a_rewrite_told_the_wrong_way_round_is_out_of_order() -> None:
    told = (
        "#4067's multi-turn and tool call support for recipe/fully_async_policy later rewrote "
        "the reward_loop code that #4224 had added to the same recipe."
    )
    assert "order" in _rules(_reasons("tune4", "2025-W47-W48", "en", told, [4067, 4224]))
    after = "After #4282, #4251 added a split method to RayResourcePool."
    assert "order" in _rules(_reasons("tune4", "2025-W47-W48", "en", after, [4282, 4251]))
    text = "After #4251, #4282 restored colocate workers."
    assert _reasons("tune4", "2025-W47-W48", "en", text, [4251, 4282]) == []


def test_a_fix_of_a_later_pr_is_out_of_order() -> None:
    told = "#4956 修正了 #4976 中把 final_res.outputs 误写为 final_res.output 的笔误。"
    assert "order" in _rules(_reasons("tune4", "2026-W03-W04", "zh", told, [4956, 4976]))
    text = "#4976 修正了 #4956 中把 final_res.outputs 误写为 final_res.output 的笔误。"
    assert _reasons("tune4", "2026-W03-W04", "zh", text, [4976, 4956]) == []


# --- relation words of another clause or of a thing named -----------------------------------


def test_users_relying_on_a_metric_tell_no_relation() -> None:
    text = "#4956 新增的 num_preempted 指标已被 #4976 改写，依赖该指标的用户应以 #4976 的实现为准。"
    assert _reasons("tune4", "2026-W03-W04", "zh", text, [4956, 4976]) == []
    told = "#4976 依赖 #4956 新增的 num_preempted 指标。"
    assert "relation" in _rules(_reasons("tune4", "2026-W03-W04", "zh", told, [4976, 4956]))


# --- a default named in the PR's own words, a relative clause's own subject ------------------


def test_a_default_dependency_the_pr_names_is_no_value_claim() -> None:
    text = (
        "#6354 makes TransferQueue a default dependency pinned at TransferQueue==0.1.7, up from "
        "0.1.6, and fixes the `BatchMeta.concat` failure that per-rank metrics added by #6270 "
        "caused."
    )
    assert _reasons("tune4", "2026-W20-W21", "en", text, [6354, 6270]) == []
    told = "#6354 fixes the `BatchMeta.concat` method that was added by #6270."
    assert "not introduced by #6270" in _rules(
        _reasons("tune4", "2026-W20-W21", "en", told, [6354, 6270])
    )
    told = "#6354 makes TransferQueue default to 0.1.5."
    assert "default" in _rules(_reasons("tune4", "2026-W20-W21", "en", told, [6354]))


# --- lists paired in order, actions named as nouns or told to the reader --------------------


def test_two_lists_around_a_relation_word_pair_in_order() -> None:
    text = (
        "Resource pool and colocation work churned: #4226, #4251 and #4233 were reverted by "
        "#4260, #4258 and #4259, while #4273 landed a safer split implementation."
    )
    cited = [4226, 4251, 4233, 4260, 4258, 4259, 4273]
    assert _reasons("tune4", "2025-W47-W48", "en", text, cited) == []
    told = text.replace("#4260, #4258 and #4259", "#4258, #4260 and #4259")
    assert "relation" in _rules(_reasons("tune4", "2025-W47-W48", "en", told, cited))


def test_the_reverts_of_prs_need_those_prs_reverted() -> None:
    text = (
        "After the reverts of #4226, #4251 and #4233, confirm that #4273 and #4282 cover the "
        "colocate replica cases those PRs targeted."
    )
    cited = [4226, 4251, 4233, 4273, 4282]
    assert _reasons("tune4", "2025-W47-W48", "en", text, cited) == []
    told = "After the reverts of #4273 and #4282, confirm that #4226 covers the replica cases."
    assert "action" in _rules(_reasons("tune4", "2025-W47-W48", "en", told, [4273, 4282, 4226]))


def test_a_bare_verb_joined_to_an_opening_imperative_is_advice() -> None:
    text = (
        "Point users of `recipe/retool` and `recipe/langgraph_agent` to verl-recipe and resolve "
        "the dangling references flagged on #4283, given its high migration risk."
    )
    assert _reasons("tune4", "2025-W47-W48", "en", text, [4283]) == []
    told = "#4283 moves `recipe/retool` to verl-recipe and resolves the dangling references."
    assert "action" in _rules(_reasons("tune4", "2025-W47-W48", "en", told, [4283]))


# --- a judgement nobody made -----------------------------------------------------------------


def test_fit_for_production_needs_the_pr_to_say_so() -> None:
    told = (
        "建议把 #6117 的 1P:3D PD 分离布局作为 SGLang rollout 的推荐配置直接用于生产训练，"
        "其步时收益已在多集群上确认稳定。"
    )
    assert "attested" in _rules(_reasons("tune4", "2026-W19-W20", "zh", told, [6117]))
    text = "建议在把 #6117 的 1P:3D PD 分离布局用于训练前，先在自己的集群上复现其步时。"
    assert _reasons("tune4", "2026-W19-W20", "zh", text, [6117]) == []


def test_a_dev_version_is_no_link() -> None:
    assert safety_reasons("#5006 已把主分支版本号从 0.7.0.dev 改为 0.8.0.dev。") == []
    assert "link" in _rules(safety_reasons("see 0.7.0.dev.evil.com or evil.dev"))
