"""Misreadings of the seen5 answers (verl 2026-W19 en, verl-omni 2026-W20 zh, verl-recipe
2026-W21 zh, verl-omni 2026-W34 en), read sentence by sentence after stop 40: each test checks
a real corpus sentence on the week's real facts, and the true variant beside it is kept."""

from __future__ import annotations

from tests.core.analyst.test_misreadings_sides import _reasons


def _not_new(reasons: list[str]) -> list[str]:
    return [r.split(" is ")[0] for r in reasons if r.startswith("not new")]


# --- an existing name told as added ---------------------------------------------------------


def test_a_name_old_code_imported_and_called_is_not_new() -> None:
    # #6300's removed lines: `from verl.tools.utils.tool_registry import
    # initialize_tools_from_config` and `tool_list = initialize_tools_from_config(…)`; the
    # point is #6300's though it names #6189 after the verb
    text = (
        "Adds ToolListWrap and initialize_tools_from_config so AgentLoopWorker builds native and "
        "function tools, letting RLHFDataset recognize function_tool when filtering overlong "
        "prompts; it supersedes #6189."
    )
    reasons = _reasons("seen5", "2026-W19", "en", text, [6300, 6189])
    assert _not_new(reasons) == ["not new: `initialize_tools_from_config`"]
    # `ToolListWrap` is new (the removed `FunctionToolListWrap(` is another name)
    kept = "Adds ToolListWrap so AgentLoopWorker builds native and function tools."
    assert _not_new(_reasons("seen5", "2026-W19", "en", kept, [6300])) == []


def test_a_class_added_on_a_base_is_the_class_the_sentence_tells_as_new() -> None:
    # "新增基于 Mixin 的 X": X is told as added; `-class vLLMOmniColocateWorkerExtension(…)`
    text = (
        "#82 在 npu_utils.py 新增基于 NPUColocateWorkerMixin 的 vLLMOmniColocateWorkerExtension，"
        "提供 sleep、wake_up 与 empty_device_cache。"
    )
    reasons = _reasons("seen5", "2026-W20", "zh", text, [82])
    assert _not_new(reasons) == ["not new: `vLLMOmniColocateWorkerExtension`"]
    kept = "#82 在 npu_utils.py 新增 NPUColocateWorkerMixin，提供 sleep 与 wake_up。"
    assert _not_new(_reasons("seen5", "2026-W20", "zh", kept, [82])) == []


# --- a squash merge's plan told as merged code ----------------------------------------------


def test_a_name_only_the_description_holds_is_not_merged_code() -> None:
    # #58's body lists "SDEWindowScheduler hierarchy … in sde_window_scheduler.py" among its
    # key additions; later commits removed it and the merged change has no such name
    text = (
        "#58 引入 SDEWindowScheduler 层级以区分 FlowGRPO 与 MixGRPO 的窗口策略，并为 "
        "DiffusionRolloutAlgoConfig 加入 fail-fast 校验。"
    )
    reasons = _reasons("seen5", "2026-W20", "zh", text, [58])
    assert [r.split(" is ")[0] for r in reasons if r.startswith("not merged")] == [
        "not merged: `SDEWindowScheduler`"
    ]
    # `sample_strategy` is in the body and on the merged lines
    kept = "#58 新增 sample_strategy 配置，并为 DiffusionRolloutAlgoConfig 加入 fail-fast 校验。"
    assert [r for r in _reasons("seen5", "2026-W20", "zh", kept, [58]) if "merged" in r] == []


# --- a PR point's words are said of its own PR ----------------------------------------------


def test_a_value_in_a_point_before_any_pr_number_is_said_of_the_points_pr() -> None:
    # the point of #6265 names the issues it fixes after the value: the value is #6265's
    text = (
        "Besides repointing reward_manager._target_ from "
        "verl.workers.config.reward_model.RewardManagerConfig to "
        "verl.workers.config.reward.RewardManagerConfig, it fixes #6226 and #6258 and makes "
        "RewardModelManager use rollout consistently."
    )
    assert _reasons("seen5", "2026-W19", "en", text, [6265, 6226, 6258]) == []
    # said of #6226 by name, the value is still not #6226's
    wrong = text.replace("Besides repointing", "#6226 repoints").replace(
        ", it fixes #6226 and #6258 and", " and"
    )
    reasons = _reasons("seen5", "2026-W19", "en", wrong, [6265, 6226, 6258])
    assert any(r.startswith("value of reward_manager._target_") for r in reasons)


# --- a thing of code exposed is no leak -----------------------------------------------------


def _failures(reasons: list[str]) -> list[str]:
    return [r for r in reasons if r.startswith("failure")]


def test_a_hook_a_pr_exposes_is_no_leak_and_a_token_it_exposes_is() -> None:
    text = (
        "Reward handling saw a cluster of work: #6265 fixes both #6226 and #6258, #6228 scores "
        "multi-output trajectories in async reward scoring, and #6242 exposes an overridable RM "
        "score assembly hook."
    )
    prs = [6265, 6226, 6258, 6228, 6242]
    assert _failures(_reasons("seen5", "2026-W19", "en", text, prs)) == []
    for leak in ("#6242 exposes the API token in its logs.", "#6242 exposes secrets via a hook."):
        assert _failures(_reasons("seen5", "2026-W19", "en", leak, [6242])) == ["failure: exposes"]
