"""Misreadings of the seen9 answers (the verl-project family digests of 2026-W19 zh, W20 en, W21
zh and W34 en), read sentence by sentence after stop 42: each test replays a real corpus
sentence, keyed as the narrator keys it, with its evidence, on the week's real facts, and a
wrong variant of it is still dropped."""

from __future__ import annotations

import dataclasses
import functools
import json

from service.core.analyst.checker import Checker, check_answer, check_text
from service.core.analyst.facts import PeriodFacts
from service.core.analyst.family_refs import keyed_drafts, keyed_text
from service.core.analyst.schema import parse_answer
from tests.core.analyst.model_corpus import CORPUS, facts_for

PART = "seen9"


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
    drafts = keyed_drafts(parse_answer(answer, facts.repos), facts.repos)
    (draft,) = [d for d in drafts if d.text.startswith(starts)]
    if text is not None:
        draft = dataclasses.replace(draft, text=keyed_text(text, facts.repos))
    checked = check_answer([draft], facts, model="m", prompt_version="p")
    return [r for d in checked.dropped for r in d.reasons]


def _said(stem: str, text: str, prs: list[int]) -> list[str]:
    """The reasons the checker drops `text` for, said of `prs` (keys) with no evidence."""
    week, language = stem.split(".")[:2]
    return check_text(text, prs, "trends", Checker(_facts(week, language)))


def _rules(reasons: list[str]) -> set[str]:
    return {r.split(":")[0].split(" ")[0] for r in reasons}


# --- figures the data holds -------------------------------------------------------------------


def test_the_count_of_files_a_pr_removes_is_its_own_figure() -> None:
    # #6302 deletes 14 files (`files_removed` of its facts), which the quotes need not copy
    starts = "#6302 移除了 `gsm8k_tool`"
    assert _reasons("2026-W19.zh.adversarial", starts) == []
    told = "#6302 移除了 `gsm8k_tool` 等 5 个工具实现，删除 1768 行并移除 15 个文件。"
    assert "figure" in _rules(_reasons("2026-W19.zh.adversarial", starts, told))


# --- values bound to the key that holds them --------------------------------------------------


def test_a_key_is_not_the_head_of_a_dotted_key_after_it() -> None:
    # `disaggregation` is a config block (field(default_factory=…)); False is given to
    # `disaggregation.enabled`, which rollout.yaml adds as `enabled: False`
    starts = "#6117 新增 `disaggregation` 配置块"
    assert _reasons("2026-W19.zh", starts) == []
    told = "#6117 新增 `disaggregation` 配置块，`disaggregation.enabled` 默认为 True。"
    assert "value" in _rules(_reasons("2026-W19.zh", starts, told))
    block = "#6117 新增 `disaggregation` 配置块，默认为 False。"
    assert "value" in _rules(_reasons("2026-W19.zh", starts, block))


def test_a_count_of_what_prs_hold_is_no_count_of_prs() -> None:
    # "12 项 PR 风险": the week's risk findings (totals.risk_findings), not 12 PRs
    starts = "本周检测出 5 组风险"
    assert _reasons("2026-W21.zh", starts) == []
    told = "本周检测出 5 组风险，共含 13 项 PR 风险。"
    assert "figure" in _rules(_reasons("2026-W21.zh", starts, told))


# --- words that name no failure, no thing of the PRs --------------------------------------------


def test_a_feature_named_for_the_failures_it_handles_tells_no_failure() -> None:
    starts = "删除了 `fault_recover/agent_loop/fault_recover_agent_loop.py`"
    assert _reasons("2026-W21.zh", starts) == []
    told = "删除了 `fault_recover/agent_loop/fault_recover_agent_loop.py` 等代码，导致故障。"
    assert "failure" in _rules(_reasons("2026-W21.zh", starts, told))


def test_a_bucket_counted_by_its_key_names_the_bucket() -> None:
    # megatron, fsdp and veomni are module keys with their counts, not what the doc PRs work on
    starts = "按模块看，doc 以 7 个 PR 居首"
    assert _reasons("2026-W21.zh", starts) == []
    count = "按模块看，doc 以 7 个 PR 居首，megatron 有 5 个。"
    assert "count" in _rules(_reasons("2026-W21.zh", starts, count))
    named = "按模块看，doc 以 7 个 PR 居首，它们改进了 megatron 支持。"
    assert "entity" in _rules(_reasons("2026-W21.zh", starts, named))


# --- a family's counts per repository ----------------------------------------------------------


def test_a_count_beside_a_repository_counts_its_prs() -> None:
    # verl merged 34 PRs of the family's 43 in 2026-W19, verl-omni 8, verl-recipe 1
    starts = "本周三个仓库共合入 43 个 PR"
    assert _reasons("2026-W19.zh.adversarial", starts) == []
    told = "本周三个仓库共合入 43 个 PR（verl 33 个、verl-omni 9 个、verl-recipe 1 个）。"
    assert _reasons("2026-W19.zh.adversarial", starts, told) == ["figure: 33", "figure: 9"]
    starts = "The family merged 61 PRs this week"
    assert _reasons("2026-W20.en.adversarial", starts) == []
    told = "The family merged 61 PRs this week, 42 in verl, 18 in verl-omni and 1 in verl-recipe."
    assert _reasons("2026-W20.en.adversarial", starts, told) == ["figure: 42", "figure: 18"]


def test_an_authors_part_of_a_repository_is_counted_in_it() -> None:
    # Cheung-Ka-Wai wrote 6 of verl-omni's 8 PRs in 2026-W19 (7 of the family's), and 6 of its
    # 17 in 2026-W20
    starts = "verl-omni 本周 8 个 PR 中有 6 个由 Cheung Ka Wai 提交"
    assert _reasons("2026-W19.zh.adversarial", starts) == []
    told = "verl-omni 本周 8 个 PR 中有 5 个由 Cheung Ka Wai 提交。"
    assert "count" in _rules(_reasons("2026-W19.zh.adversarial", starts, told))
    starts = "Cheung-Ka-Wai authored five of the 17 verl-omni PRs"
    assert "count" in _rules(_reasons("2026-W20.en.adversarial", starts))
    told = "Cheung-Ka-Wai authored six of the 17 verl-omni PRs, spanning the profiler migration."
    assert _reasons("2026-W20.en.adversarial", starts, told) == []


# --- names the data must hold -------------------------------------------------------------------


def test_a_model_named_with_its_size_is_a_name_the_data_must_hold() -> None:
    # #6264's demo is Qwen3.5-122B-A10B (title, body, script); no PR names an A22B
    starts = "#6264 新增 Qwen3.5-122B-A22B"
    reasons = _reasons("2026-W19.zh.adversarial", starts)
    assert reasons
    assert all("Qwen3.5-122B-A22B" in r for r in reasons)
    told = "#6264 新增 Qwen3.5-122B-A10B 的 GRPO 训练演示，基于 VeOmniEngine 并开启专家并行。"
    assert _reasons("2026-W19.zh.adversarial", starts, told) == []


# --- relations, values and changes the data must tell -------------------------------------------


def test_a_fix_of_what_another_pr_added_is_a_relation_to_it() -> None:
    # "#A 修复了 #B 新增的脚本" tells #A fixes #B: #6429 fixes scripts #4530's check broke, and
    # the digest finds no relation to #6318
    starts = "#6429 修复了 #6318 新增的"
    assert "relation" in _rules(_reasons("2026-W21.zh.adversarial", starts))
    # #6265 fixes #6226 (its body says so): the same words of a relation found stand
    assert _said("2026-W19.zh", "#6265 修复了 #6226 新增的奖励模型配置。", [6265, 6226]) == []


def test_a_switch_said_on_or_off_by_default_is_its_default_value() -> None:
    # #7373: `adaptive_switch_threshold: bool = True`; "off by default" says false
    starts = "#7373 adds HybridRolloutSwitchConfig"
    reasons = _reasons("2026-W34.en.adversarial", starts)
    assert [r.split(":")[0] for r in reasons] == ["value of adaptive_switch_threshold"]
    told = "#7373 adds HybridRolloutSwitchConfig with adaptive_switch_threshold on by default."
    assert _reasons("2026-W34.en.adversarial", starts, told) == []
    zh = "#7373 新增 adaptive_switch_threshold，默认关闭。"
    assert "value" in _rules(_said("2026-W34.en", zh, [7373]))  # and "language: not en"


def test_two_figures_a_pr_compares_are_no_change_from_one_to_the_other() -> None:
    # #7347's body: "model-transfer PCIe utilization of 10.9%, substantially lower than the 34.6%
    # utilization of the optimizer-state transfer"; its change is 1.489 s to 379.444 ms
    starts = "#7347 raised model-transfer PCIe utilization"
    assert "change" in _rules(_reasons("2026-W34.en.adversarial", starts))
    told = "#7347 cut the model H2D transfer from 1.489 seconds to 379.444 milliseconds."
    assert _said("2026-W34.en", told, [7347]) == []


# --- numbers and buckets a sentence may name ------------------------------------------------------


def test_a_number_the_pr_says_it_fixes_may_be_named() -> None:
    # #6345's body: "Fixes #6278" (an issue: no PR of the week has the number)
    starts = "#6345 builds the attention mask"
    assert _reasons("2026-W20.en.adversarial", starts) == []
    other = "#6345 builds the attention mask for the no-padding path, fixing #6279."
    assert "pr_not_in_week" in _rules(_reasons("2026-W20.en.adversarial", starts, other))
    # named, it is still no PR the cited one reverts
    assert "relation" in _rules(_said("2026-W20.en", "#6345 reverts #6278.", [6345]))


def test_a_count_of_prs_in_a_named_module_is_that_modules() -> None:
    # the doc module counts 20 PRs in 2026-W20, the docs category 9
    starts = "Documentation dominated the week"
    assert _reasons("2026-W20.en.adversarial", starts) == []
    told = "Documentation dominated the week with 9 PRs in the doc module."
    assert "count" in _rules(_reasons("2026-W20.en.adversarial", starts, told))


def test_a_deprecation_warning_is_a_thing_the_diff_adds() -> None:
    # #6384 adds `@deprecated("main_ppo.py is deprecated, …")` to main_ppo.py and ray_trainer.py
    starts = "迁移类有 3 个 PR"
    assert _reasons("2026-W21.zh", starts) == []
    # #6354 deprecates nothing
    told = "#6354 为 main_ppo_sync.py 加入弃用警告。"
    assert "entity" in _rules(_said("2026-W21.zh", told, [6354]))


def test_a_change_joined_after_a_default_has_values_of_its_own() -> None:
    # "Make TransferQueue a default dependency of verl", "Bump TransferQueue version to v0.1.7":
    # 0.1.6 and 0.1.7 are the upgrade's values, not a default's
    starts = "#6354 让 TransferQueue 成为默认依赖"
    assert _reasons("2026-W21.zh", starts) == []
    told = "#6354 把 TransferQueue 的默认版本从 0.1.6 升到 0.1.8。"
    assert "default" in _rules(_said("2026-W21.zh", told, [6354]))


def test_a_version_glued_to_its_name_is_a_figure_the_pr_states() -> None:
    # #6322's title: "fix bug with mcore0.12.1 + torch2.9.0"
    told = "#6322 fixes a bug with mcore 0.12.1 and torch 2.9.0."
    assert "figure" not in _rules(_said("2026-W20.en", told, [6322]))
    other = "#6322 fixes a bug with mcore 0.12.2 and torch 2.9.0."
    assert "figure" in _rules(_said("2026-W20.en", other, [6322]))


def test_a_count_of_contributors_other_than_the_checkers_contradicts_the_week() -> None:
    # the family's 2026-W21 PRs have 37 authors; the request's total said 35, and a verifier
    # reading the request would confirm it: the reason is a contradiction, not "not found"
    told = "本周家族共合入 43 个 PR，共有 35 位贡献者。"
    assert _said("2026-W21.zh", told, []) == ["count 35: the week's contributors number 37"]
    assert _said("2026-W21.zh", "本周家族共合入 43 个 PR，共有 37 位贡献者。", []) == []
