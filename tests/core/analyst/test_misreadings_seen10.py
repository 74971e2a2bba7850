"""Misreadings of the seen10 answers (two-week periods: volcengine/verl 2025-11-17..30 zh and
2026-01-12..25 en, verl-project/verl 2026-05-04..17 en and 05-11..24 zh), read sentence by
sentence after stop 43: each test replays a real corpus sentence with its evidence on the
period's real facts, and a wrong variant of it is still dropped."""

from __future__ import annotations

import dataclasses
import functools
import json

from service.core.analyst.checker import Checker, check_answer, check_text
from service.core.analyst.facts import PeriodFacts
from service.core.analyst.family_refs import keyed_text
from service.core.analyst.schema import parse_answer
from tests.core.analyst.model_corpus import CORPUS, facts_for

PART = "seen10"


@functools.cache
def _facts(week: str, language: str) -> PeriodFacts:
    meta = json.loads((CORPUS / PART / "weeks.json").read_text("utf-8"))[week]
    facts: PeriodFacts = facts_for({"week": week, **meta}, language)
    return facts


def _reasons(stem: str, starts: str, text: str | None = None) -> list[str]:
    """The reasons the checker drops the draft of answer `stem` starting with `starts` for
    (empty: kept); with `text`, the same draft (PRs, evidence) saying `text` instead."""
    week, language = stem.split(".")[:2]
    facts = _facts(week, language)
    answer = (CORPUS / PART / f"{stem}.answer.json").read_text("utf-8")
    (draft,) = [d for d in parse_answer(answer) if d.text.startswith(starts)]
    if text is not None:
        draft = dataclasses.replace(draft, text=text)
    checked = check_answer([draft], facts, model="m", prompt_version="p")
    return [r for d in checked.dropped for r in d.reasons]


def _rules(reasons: list[str]) -> set[str]:
    return {r.split(":")[0].split(" ")[0] for r in reasons}


# --- relations in relative clauses --------------------------------------------------------------


def test_a_passive_relative_clause_relates_the_pr_it_modifies() -> None:
    # "被 #6360 撤销的 #6350": #6360 reverted #6350; #6386 is not related to #6360 by it
    starts = "建议核对 #6386 是否完整恢复"
    assert _reasons("2026-W20-W21.zh", starts) == []
    told = (
        "建议核对 #6386 是否完整恢复了被 #6350 撤销的 #6360 中 `use_remove_padding=False` "
        "路径修复，该撤销链被标记为后续跟进风险。"
    )
    assert "relation" in _rules(_reasons("2026-W20-W21.zh", starts, told))


def test_a_relation_verb_with_its_object_before_a_pr_is_that_prs() -> None:
    # "与随后改写这些脚本的 #6429": #6429 rewrote the scripts #6285 added
    starts = "建议复核 #6285 重构的 NPU 脚本"
    assert _reasons("2026-W20-W21.zh", starts) == []
    told = (
        "建议复核 #6429 改写的 NPU 脚本中的绝对路径风险，"
        "并确认与随后改写这些脚本的 #6285 保持一致。"
    )
    assert "relation" in _rules(_reasons("2026-W20-W21.zh", starts, told))


# --- values said in words -------------------------------------------------------------------------


def test_an_empty_dict_is_the_value_braces_spell() -> None:
    # legacy_data.yaml adds `mm_processor_kwargs: {}`
    starts = "#6276 adds audio data support"
    assert _reasons("2026-W19-W20.en.adversarial", starts) == []
    told = (
        "#6276 adds audio data support, with a new `audio_key` data setting that defaults to "
        "`audios` and an `mm_processor_kwargs` setting that defaults to an empty list."
    )
    assert "value" in _rules(_reasons("2026-W19-W20.en.adversarial", starts, told))


def test_a_file_a_setting_goes_to_is_no_value() -> None:
    # "adding `mtp` settings to hf_model.yaml": the file is where the settings go, not the value
    # they take (the on/off of a block's settings is not read yet: the sentence stays dropped)
    reasons = _reasons("2026-W03-W04.en", "#4936 brings MTP")
    assert reasons
    assert not any("hf_model.yaml" in r for r in reasons)


def test_a_universal_telling_the_failure_a_pr_fixes_is_its_words() -> None:
    # #6406's body: Gemma4 does not stop and hallucinates all the tool calls in one turn
    starts = "#6406 为 `ToolParser` 基类新增"
    assert _reasons("2026-W20-W21.zh", starts) == []
    told = "#6406 为 `ToolParser` 基类新增 `stop_token_ids` 属性，修复了全部工具解析器的 EOS 问题。"
    assert "universal" in _rules(_reasons("2026-W20-W21.zh", starts, told))


def test_a_new_config_keys_first_value_is_its_default() -> None:
    # megatron_critic.yaml adds `lora:` with `alpha: 32` and `dropout: 0.0`
    starts = "#4063 集成 Megatron-Bridge"
    assert _reasons("2025-W47-W48.zh.adversarial", starts) == []
    told = (
        "#4063 集成 Megatron-Bridge 为 megatron 后端加入 LoRA/PEFT 支持，megatron_critic.yaml "
        "新增的 lora 配置中 alpha 默认 16、dropout 默认 0.0。"
    )
    assert "default" in _rules(_reasons("2025-W47-W48.zh.adversarial", starts, told))


def test_the_default_of_a_removed_file_is_on_its_removed_lines() -> None:
    # #4283 deletes recipe/langgraph_agent/chat_model.py, whose `tool_parser: str = "hermes"`
    starts = "#4283 把 recipe/retool"
    assert _reasons("2025-W47-W48.zh.adversarial", starts) == []
    told = (
        "#4283 把 recipe/retool 和 recipe/langgraph_agent 迁到新仓库 verl-recipe，被删除的 "
        "chat_model.py 中 tool_parser 默认为 qwen。"
    )
    assert "default" in _rules(_reasons("2025-W47-W48.zh.adversarial", starts, told))


# --- tune5: the same periods in the other language ----------------------------------------------


def _tune5(stem: str, starts: str, text: str | None = None) -> list[str]:
    week, language = stem.split(".")[:2]
    meta = json.loads((CORPUS / "tune5" / "weeks.json").read_text("utf-8"))[week]
    facts = facts_for({"week": week, **meta}, language)
    answer = (CORPUS / "tune5" / f"{stem}.answer.json").read_text("utf-8")
    (draft,) = [d for d in parse_answer(answer, facts.repos) if d.text.startswith(starts)]
    if text is not None:
        draft = dataclasses.replace(draft, text=text)
    checked = check_answer([draft], facts, model="m", prompt_version="p")
    return [r for d in checked.dropped for r in d.reasons]


def test_a_zh_passive_verb_before_the_next_agent_is_not_its() -> None:
    # "#6226 … 被 #6258 撤销后由 #6265 修复": #6258 reverts #6226, #6265 fixes it after
    starts = "#6226 的 rollout world size 修正"
    assert _tune5("2026-W19-W20.zh", starts) == []
    told = (
        "#6226 的 rollout world size 修正被 #6265 撤销后由 #6258 修复，"
        "建议为奖励模型配置这条路径补充回归测试。"
    )
    assert "relation" in _rules(_tune5("2026-W19-W20.zh", starts, told))


def test_the_revert_category_is_named_in_zh_too() -> None:
    starts = "按类别看，修复类 25 个"
    assert _tune5("2026-W19-W20.zh", starts) == []
    told = (
        "按类别看，修复类 25 个、功能类 19 个、文档类 15 个、基础设施类 13 个，另有 3 个撤销类 PR。"
    )
    assert "figure" in _rules(_tune5("2026-W19-W20.zh", starts, told))


def test_a_universal_and_its_noun_near_the_word_before_are_the_prs_words() -> None:
    # #6268's body: "This biases the importance-sampling log-probs at those positions every step"
    starts = "#6268 fixes silently wrong labels"
    assert _tune5("2026-W20-W21.en", starts) == []
    told = (
        "#6268 fixes silently wrong labels when `use_fused_kernels=True` is combined with "
        "`ulysses_sequence_parallel_size > 1`, a bug that biased every model."
    )
    assert "universal" in _rules(_tune5("2026-W20-W21.en", starts, told))


def test_a_modules_count_is_its_count_in_code_spelling_and_after_counts() -> None:
    # the digest counts tool 7 and fully_async 5 over the three weeks
    stem = "2026-W19-W21-family.zh.adversarial"
    starts = "`tool` 模块本期共有"
    assert "count" in _rules(_tune5(stem, starts))
    told = "`tool` 模块本期共有 7 个 PR，包括 #6189、#6216、#6248、#6300、#6302、#6313 与 #6406。"
    assert "count" not in _rules(_tune5(stem, starts, told))
    stem, starts = "2026-W19-W21.en.adversarial", "The tool module counts 7 PRs"
    assert "count" in _rules(_tune5(stem, starts))
    told = (
        "The tool module counts 7 PRs, from #6189 and #6300 to the Gemma4 parser in #6406, and "
        "fully_async counts 5, including #6056, #6076 and #6438."
    )
    assert "count" not in _rules(_tune5(stem, starts, told))


def test_a_bucket_named_with_its_count_is_the_weeks_not_the_cited_prs() -> None:
    stem, starts = "2026-W19-W21.en.adversarial", "Trainer and ci each account for 10 PRs"
    assert _tune5(stem, starts) == []
    told = (
        "Trainer and ci each account for 10 PRs this period, megatron for 9, and sglang for 5: "
        "#5275, #6184, #6264, #6323 and #6453."
    )
    assert _tune5(stem, starts, told) != []


def test_what_follows_a_fixed_pr_may_be_said_of_its_fix() -> None:
    # #6354 fixes #6270 and makes TransferQueue a default dependency ("default dependency")
    stem, starts = "2026-W19-W21.en.adversarial", "#6354 fixes #6270"
    assert _tune5(stem, starts) == []
    stem, starts = "2026-W19-W21-family.zh", "#6354 修复 #6270"
    assert _tune5(stem, starts) == []


def test_a_joined_relative_clause_names_the_pr_after_it_as_the_agent() -> None:
    # "#6265 修复 #6226 及撤销它的 #6258": #6258 reverted #6226
    stem, starts = "2026-W19-W20.zh.adversarial", "#6265 修复 #6226 及撤销它的 #6258"
    assert _tune5(stem, starts) == []
    told = (
        "#6265 修复 #6258 及撤销它的 #6226，"
        "把 reward_manager 的 _target_ 改为 reward.RewardManagerConfig。"
    )
    assert "relation" in _rules(_tune5(stem, starts, told))


def test_each_clause_telling_a_default_is_judged() -> None:
    # verl-recipe#59's actor config: `ppo_clip_range: float = 0.2`, `freeze_non_attn_ffn: bool =
    # False`; the first clause's values hold, the second's "默认开启" does not
    stem, starts = "2026-W19-W21-family.zh.adversarial", "DanceGRPO 配方的"
    assert "default" in _rules(_tune5(stem, starts))
    told = (
        "DanceGRPO 配方的 `DiffusionFSDPActorConfig` 默认 `ppo_clip_range` 为 0.2、"
        "`sampling_steps` 为 10.0，并默认关闭 `freeze_non_attn_ffn`。"
    )
    assert _tune5(stem, starts, told) == []


def test_a_pin_told_as_new_is_on_the_added_side() -> None:
    # #6184 moves the CI's `veomni==0.1.9a1` to `veomni==0.1.9a4`
    stem, starts = "2026-W19-W21.en.adversarial", "#6184 routes VeOmniEngine"
    assert "old" in _rules(_tune5(stem, starts))
    told = (
        "#6184 routes VeOmniEngine log_probs through VeOmni's native return_log_probs path, "
        "adds *_implementation fields defaulting to eager, and pins CI to veomni==0.1.9a4."
    )
    assert "old" not in _rules(_tune5(stem, starts, told))
    # #6354 pins TransferQueue==0.1.7 where setup.py had 0.1.6
    told = "#6354 将 TransferQueue 依赖固定为 TransferQueue==0.1.6，并把它改为 verl 的默认依赖。"
    assert "old" in _rules(_reasons("2026-W20-W21.zh.adversarial", "#6354 将 TransferQueue", told))


# --- what became of a change within the period ---------------------------------------------------


def test_a_change_a_later_pr_reverts_is_not_told_as_in_effect() -> None:
    # #6360 reverts #6350 the next day; nothing brings it back in 2026-05-04..17
    starts = "With #6350, `FSDPEngineWithLMHead.prepare_model_outputs`"
    assert "reverted" in _rules(_reasons("2026-W19-W20.en.adversarial", starts))
    told = (
        "#6350 made `FSDPEngineWithLMHead.prepare_model_outputs` emit distillation top-k "
        "outputs in the `use_remove_padding=False` branch, which #6360 reverted a day later."
    )
    assert "reverted" not in _rules(_reasons("2026-W19-W20.en.adversarial", starts, told))


def test_a_revert_told_as_the_end_of_a_change_a_later_pr_brings_back() -> None:
    # #4273 supports the resource pool split again the day after #4258 reverted #4251
    starts = "#4251 为 RayResourcePool 新增的 split 方法"
    assert "relanded" in _rules(_reasons("2025-W47-W48.zh.adversarial", starts))
    told = (
        "#4251 为 RayResourcePool 新增的 split 方法在合入当天即被 #4258 撤销，"
        "次日由 #4273 以更安全的实现重新合入。"
    )
    assert "relanded" not in _rules(_reasons("2025-W47-W48.zh.adversarial", starts, told))
    # #6386 applies #6350's fix again after #6360 reverted it
    stem, starts = "2026-W19-W21.en.adversarial", "Distillation on the no-rmpad path"
    assert "relanded" in _rules(_tune5(stem, starts))


def test_a_count_of_one_prs_files_is_one_its_diff_holds() -> None:
    # verl-recipe#93's body says "52 files, ~13k LOC"; its diff adds 61 files
    week, language = "2026-W19-W21-family", "zh"
    meta = json.loads((CORPUS / "tune5" / "weeks.json").read_text("utf-8"))[week]
    facts = facts_for({"week": week, **meta}, language)
    checker = Checker(facts)
    told = "verl-recipe#93 在 `recipe/async_flow/` 下新增 {} 个文件，针对同步流水线的资源空闲问题。"
    key = keyed_text("verl-recipe#93", facts.repos)
    number = int(key.lstrip("#"))
    said = keyed_text(told.format(52), facts.repos)
    assert "count" in _rules(check_text(said, [number], "pr_points", checker))
    said = keyed_text(told.format(61), facts.repos)
    assert "count" not in _rules(check_text(said, [number], "pr_points", checker))


def test_a_relation_verb_right_after_a_pr_relates_it_to_the_pr_ending_its_clause() -> None:
    # #4976 (01-19) reworks the num_preempted metrics #4956 (01-17) added, not the reverse
    stem, starts = "2026-W03-W04.en.adversarial", "#4956 reworks the num_preempted"
    assert "relation" in _rules(_reasons(stem, starts))
    told = (
        "#4976 reworks the num_preempted rollout metrics first added in #4956, keeping -1 as "
        "the marker for a count that is not available."
    )
    assert "relation" not in _rules(_reasons(stem, starts, told))
    assert "relation" in _rules(_reasons(stem, "#4938 follows up on the HCCL"))


def test_after_a_pr_in_the_clause_of_another_orders_the_two() -> None:
    # #6275 (05-08) slimmed the TRT-LLM CI before #6269 (05-12) bumped its image
    stem, starts = "2026-W19-W20.en.adversarial", "Re-run the TRT-LLM workflows"
    assert "order" in _rules(_reasons(stem, starts))
    told = (
        "Re-run the TRT-LLM workflows, since #6269 moved them to the 1.3.0rc14 image after "
        "#6275 had slimmed down the TRT-LLM CI."
    )
    assert "order" not in _rules(_reasons(stem, starts, told))
    # "still holds after #4280" tells no order: #4280 merged after #4915 and #5018
    assert _reasons("2026-W03-W04.en", "Verify that the intent of #4915") == []
