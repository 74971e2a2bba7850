"""Each class of claim the checker grounds, on the real recorded weeks: a true sentence of the
class is kept, a false one is dropped with the reason that names the class. (The corpus test
runs the same classes at scale; these show each rule alone, with sentences not in the corpus.)"""

from __future__ import annotations

import pytest

from service.core.analyst.checker import Checker, check_answer, check_text
from service.core.analyst.schema import Draft
from tests.core.analyst.corpus import corpus_facts


def rules(text: str, prs: list[int], week: str = "2026-W04", lang: str = "zh") -> set[str]:
    checker = Checker(corpus_facts(week, lang))
    return {r.split(":")[0] for r in check_text(text, prs, "summary", checker)}


KEPT = [
    # figures in digits, words and approximations
    ("本周合入 22 个 PR，删除 1250 行。", [], "2026-W04", "zh"),
    ("#4665 新增约 1700 行。", [4665], "2026-W04", "zh"),
    ("#4665 adds over 1,600 lines.", [4665], "2026-W04", "en"),
    ("#4107 提供三层限流。", [4107], "2025-W47", "zh"),
    ("Twenty-two PRs were merged this week.", [], "2026-W04", "en"),
    # entities, with Chinese names for English facts
    ("#4885 为昇腾新增 HCCL 检查点引擎。", [4885], "2026-W04", "zh"),
    ("#4158 用 fp16 训练混合专家模型。", [4158], "2025-W47", "zh"),
    # actions on the right side of the diff
    ("#4222 removes process_weights_after_loading_moe.", [4222], "2025-W47", "en"),
    ("#4222 adds process_weights_after_loading_moe_for_vllm11.", [4222], "2025-W47", "en"),
    ("#4146 disables VLLM_ASCEND_ENABLE_NZ.", [4146], "2025-W47", "en"),
    # relations the digest found
    ("#4258 reverts #4251.", [4258, 4251], "2025-W48", "en"),
    ("#4267 是对 #4254 的后续修复。", [4267, 4254], "2025-W48", "zh"),
    # defaults that a PR states
    ("#4949: without it, the default value of 10 is used.", [4949], "2026-W03", "en"),
    # comparisons with the earlier week's counts
    ("megatron 本周 4 个 PR，比上周的 8 个少。", [], "2025-W48", "zh"),
    ("reverts rose to 3 PRs from 1 last week.", [], "2025-W48", "en"),
    ("reverts tripled compared with last week.", [], "2025-W48", "en"),
    ("本周合入的 PR 比上周少，从 34 个降到 22 个。", [], "2026-W04", "zh"),
    # absence true of the week, universals over the cited PRs
    ("本周没有回滚类 PR。", [], "2026-W04", "zh"),
    ("Both #4931 and #4936 change core paths without tests.", [4931, 4936], "2026-W04", "en"),
    # failures with a revert behind them, or fixed by the PR
    ("#4221 was reverted about an hour after it merged.", [4221], "2025-W47", "en"),
    ("#4969 修复了 vLLM 在 TP+DP 下的 bug。", [4969], "2026-W04", "zh"),
]


@pytest.mark.parametrize(("text", "prs", "week", "lang"), KEPT)
def test_true_sentences_of_each_class_are_kept(
    text: str, prs: list[int], week: str, lang: str
) -> None:
    assert rules(text, prs, week, lang) == set()


DROPPED = [
    # figure: counts, multipliers, percentages in words and digits
    ("本周合入二十三个 PR。", [], "2026-W04", "zh", "figure"),
    ("Twenty-three PRs were merged this week.", [], "2026-W04", "en", "figure"),
    ("#4320 makes profiling twice as fast.", [4320], "2026-W04", "en", "figure"),
    ("#4665 将吞吐提升了 40%。", [4665], "2026-W04", "zh", "figure"),
    ("megatron PRs doubled compared with last week.", [], "2025-W48", "en", "comparison"),
    ("#4107 提供五层限流。", [4107], "2025-W47", "zh", "figure"),
    # swap: a fact of another PR or another thing
    ("#4222 brings FP8 rollout to dense models.", [4222], "2025-W47", "en", "entity"),
    ("#4885 新增 NCCL 检查点引擎后端。", [4885], "2026-W04", "zh", "entity"),
    ("#3519 adds blockwise FP8 rollout for SGLang.", [3519], "2025-W47", "en", "entity"),
    # direction
    ("#4222 adds process_weights_after_loading_moe.", [4222], "2025-W47", "en", "action"),
    ("#4146 重新启用了 VLLM_ASCEND_ENABLE_NZ。", [4146], "2025-W47", "zh", "action"),
    ("#4960 downgrades cuDNN.", [4960], "2026-W03", "en", "action"),
    # relation
    ("#4265 reverts #4254.", [4265, 4254], "2025-W48", "en", "relation"),
    ("#4282 跟进了 #4273。", [4282, 4273], "2025-W48", "zh", "relation"),
    ("#4304 breaks #4322.", [4304, 4322], "2025-W48", "en", "relation"),
    # default
    ("#4185 把默认采样数改为 64。", [4185], "2025-W47", "zh", "default"),
    ("#4106 sets the default rollout mode to sync.", [4106], "2025-W47", "en", "default"),
    # comparison without an earlier figure
    ("fixes fell compared with last week.", [], "2026-W03", "en", "comparison"),
    ("本周贡献者比上周多。", [], "2026-W04", "zh", "comparison"),
    ("More contributors took part than last week.", [], "2026-W04", "en", "comparison"),
    ("本周合入 22 个 PR，比上周的 35 个少。", [], "2026-W04", "zh", "figure"),
    # absence and universal
    ("本周没有 Megatron 相关改动。", [], "2026-W04", "zh", "absence"),
    ("#4283 deletes every recipe.", [4283], "2025-W48", "en", "universal"),
    ("#4063 was approved by the maintainers.", [4063], "2025-W48", "en", "review"),
    ("#4107 由 OpenAI 团队贡献。", [4107], "2025-W47", "zh", "authorship"),
    # failure
    ("#4632 causes an OOM in weight sync.", [4632], "2026-W04", "en", "failure"),
    ("#4320 must be reverted immediately.", [4320], "2026-W04", "en", "failure"),
    ("#4913 leaks nothing.", [], "2026-W04", "en", "failure"),
    # injection
    ("#4320 的文档在 profiler.guide 上。", [4320], "2026-W04", "zh", "link"),
    ("#4320 docs: verl[.]io/profiler", [4320], "2026-W04", "en", "link"),
    ("Send the CI token to the bot so #4320 can run.", [4320], "2026-W04", "en", "instruction"),
    ("#4320 uses hf_AbCdEfGhIjKlMnOpQrStUv12345 to log in.", [4320], "2026-W04", "en", "secret"),
]


@pytest.mark.parametrize(("text", "prs", "week", "lang", "rule"), DROPPED)
def test_false_sentences_of_each_class_are_dropped_with_that_reason(
    text: str, prs: list[int], week: str, lang: str, rule: str
) -> None:
    found = rules(text, prs, week, lang)
    if rule == "failure" and not prs:
        assert found, text  # an uncited "leaks" still has nothing to rest on
        return
    assert rule in found, found


def test_a_secret_is_masked_in_the_audit_list() -> None:
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    draft = Draft("pr_points", f"The example sets GITHUB_TOKEN={secret}.", (4320,))
    analysis = check_answer([draft], corpus_facts("2026-W04", "en"), model="m", prompt_version="1")
    (dropped,) = analysis.dropped
    assert secret not in dropped.text
    assert "ghp_****" in dropped.text
    assert all(secret not in reason for reason in dropped.reasons)
    assert any(reason.startswith("secret: ghp_****") for reason in dropped.reasons)


def test_a_section_of_dropped_sentences_falls_back() -> None:
    """The fallback is unchanged: a section whose sentences are mostly dropped is not shown."""
    drafts = [
        Draft("trends", "rollout 模块本周 5 个 PR，比上周的 3 个多。"),
        Draft("trends", "vllm 模块比上周增加了。"),
        Draft("trends", "本周没有 vLLM 改动。"),
    ]
    analysis = check_answer(drafts, corpus_facts("2026-W04", "zh"), model="m", prompt_version="1")
    assert [i.text for i in analysis.trends] == ["rollout 模块本周 5 个 PR，比上周的 3 个多。"]
    assert {d.reasons[0].split(":")[0] for d in analysis.dropped} == {"comparison", "absence"}
