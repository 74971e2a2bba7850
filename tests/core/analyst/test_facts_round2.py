"""Round 2 of checking facts, not trigger words: each case is a real sentence of the
model-written corpus (tune and seen parts) with the evidence the model gave, checked on the
facts the service built for that week from the recorded PRs."""

from __future__ import annotations

from tests.core.analyst.test_facts_not_words import check

# --- a default said of an argument is the default on the added signature -----------------


def test_an_arguments_default_is_read_from_the_added_signature() -> None:
    # `+ ... pre_process: bool = True, use_fp8_padding=False` (a parameter line of a def)
    assert check("tune", "2025-W47.zh.adversarial", "为 preprocess_packed_seqs 新增") == []


def test_a_value_passed_in_a_call_is_no_default() -> None:
    # the diff defines `is_torch_npu_available(check_device=True)` and calls it with False
    reasons = check("tune", "2026-W03.zh.adversarial", "is_torch_npu_available 新增 check_device")
    assert any(r.startswith("default") for r in reasons)


def test_a_default_named_without_a_value_needs_a_default_in_the_definition() -> None:
    # `+def pop(tensordict: TensorDict, key: str, default=None)`; "to take" is a verb, no value
    assert check("tune", "2025-W48.en.adversarial", "#4322 adds get, get_keys and pop_keys") == []


def test_a_possessive_is_no_new_value() -> None:
    # "改为 verl 的默认依赖": verl is whose dependency it is, not the value; the PR says so
    assert check("seen", "2026-W21.zh.adversarial", "#6354 把 TransferQueue 改为 verl") == []


def test_a_boolean_inside_quoted_code_is_no_on_off_claim() -> None:
    # "`model_dump(exclude_unset=True)` 会漏掉默认的 `extra_fields`": True is code, not a flip
    assert check("seen", "2026-W34.zh", "`AgentLoopOutput.as_dict` 使用") == []


def test_a_default_used_names_its_value_after_the_verb() -> None:
    # "`transfer_backend` 默认使用 nixl": the value is nixl (`+ transfer_backend: nixl`), not 使用
    assert check("seen", "2026-W19.zh", "#6117 支持 1 个 prefill 对 N 个 decode") == []


# --- a universal said of the cited PRs, or in the PR's own words, is kept -----------------


def test_a_trailing_all_is_said_of_the_listed_prs() -> None:
    assert check("tune", "2025-W48.en.adversarial", "#4258, #4259 and #4260 revert") == []


def test_a_universal_the_pr_says_itself_is_kept() -> None:
    # #7491's body: "… a pending review of every changed line"
    assert check("seen", "2026-W34.en", "Give #7491 the human review") == []


def test_a_universal_of_ones_own_is_still_dropped() -> None:
    from service.core.analyst.sentence_claims import absence_reasons

    text = "#4258 and #4259 revert every earlier feature."
    assert absence_reasons(text, "", [4258, 4259], "reverts #4251") == ["universal: every"]


# --- a concept the diff names in code, and words of two senses ----------------------------


def test_a_concept_in_its_code_spelling_on_a_changed_line_is_found() -> None:
    # "weight sync": the PR's words don't say it; its changed lines name `update_weights`
    assert check("tune", "2026-W04.en", "Weight sync buckets use MIN_BUCKET_SIZE_MB 512") == []


def test_a_concept_as_a_plain_word_in_the_diff_is_not_enough() -> None:
    # "视觉" stands in #6056's script only as a word ("vision-language"), not as code
    reasons = check("seen", "2026-W19.zh.adversarial", "#6056 的 OPD 测试以 Qwen3-VL-2B-Instruct")
    assert reasons


def test_the_tokens_of_a_token_bucket_are_no_credential() -> None:
    assert check("tune", "2025-W47.zh.adversarial", "AsyncTokenBucket 的 acquire") == []


# --- a quoted line's file is where it stands, a pin's version is its value ----------------


def test_the_file_of_a_removed_line_quote_is_on_neither_side() -> None:
    # "-.github/workflows/docker-build-ascend-a3.yml: compress: true": the file is not removed
    assert check("tune", "2025-W47.zh.adversarial", "从 docker-build-ascend-a2.yml 与") == []
    assert check("seen", "2026-W21.zh", "`setup.py` 原先要求 TransferQueue==0.1.6") == []


def test_a_pinned_version_is_the_new_value_of_a_dependency() -> None:
    # `TransferQueue==0.1.7` on the added lines; "设为 verl 默认依赖": verl is no value
    assert check("seen", "2026-W21.zh", "#6354 修复 TransferQueue 路径上") == []


# --- a hyphenated name of the data, a revert the PR tells itself --------------------------


def test_a_hyphenated_name_of_the_data_is_no_foreign_word() -> None:
    # theme "TRT-LLM 异步": the data says `trtllm`
    assert check("seen", "2026-W19.zh.adversarial", "#5631 为 trtllm rollout 启用 Async RL") == []


def test_a_revert_the_pr_tells_itself_backs_a_was_reverted() -> None:
    # #6386: "#6350 (closed by #6360 revert) … this PR re-applies the production fix"
    assert check("seen", "2026-W21.zh.adversarial", "#6386 重新应用了此前被撤销的") == []


def test_update_weights_in_the_prs_title_is_weight_sync() -> None:
    # #7488: "[ckpt] fix: hccl error when update weights for npu"
    assert check("seen", "2026-W34.zh", "Ascend NPU 适配持续推进") == []
