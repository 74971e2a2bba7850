"""Values, defaults and sides of a change: true sentences of the model corpus that tell a
default read from code, an old value as old, or a name the PR keeps are kept; the false
variant beside each (another value, a value bound to another key, an old value told as new)
is still dropped."""

from __future__ import annotations

from service.core.analyst import code_defaults, quoted
from service.core.analyst.checker import Checker, check_text
from service.core.analyst.evidence import PREvidence
from tests.core.analyst.model_corpus import facts_for
from tests.core.analyst.test_facts_not_words import _item, _meta, check


def _reasons(part: str, week: str, lang: str, text: str, prs: list[int]) -> list[str]:
    """The reasons the checker gives against `text` said of `prs` (empty: kept)."""
    checker = Checker(facts_for(_meta(part, week), lang))
    return check_text(text, prs, "pr_points", checker)


def _rules(reasons: list[str]) -> set[str]:
    return {r.split(":")[0] for r in reasons}


# --- defaults read from the code that defines them ------------------------------------------


def test_the_defaults_a_line_of_code_gives_are_read_per_name() -> None:
    files = [
        ("run.sh", ["N=${N:-256}"], ["N=${N:-${M}}", "M=${M:-32}"]),
        (
            "cfg.py",
            ["    start: int = -1", "    window: list = field(default_factory=lambda: [0, 5])"],
            [
                '        self.c = config.get("max_concurrent", 1)',
                '    prefix: str = ""',
                "    - max_rpm (int | None): Max requests. Default: None",
                '    parser.add_argument("--test-size", type=int, default=128)',
            ],
        ),
        ("c.yaml", ["window: [0, 5]"], ["window: null"]),
    ]
    assert code_defaults.defaults(files, "+") == {
        "m": {"32"},
        "max_concurrent": {"1"},
        "prefix": {""},
        "max_rpm": {"null"},
        "test_size": {"128"},
        "window": {"null"},
    }
    assert code_defaults.defaults(files, "-") == {
        "n": {"256"},
        "start": {"-1"},
        "window": {"[0, 5]"},
    }
    assert code_defaults.holds("5", {"[0, 5]"})
    assert not code_defaults.holds("50", {"[0, 5]"})


def test_a_getters_fallback_is_the_default_of_its_key() -> None:
    # `config.reward_model.get("max_concurrent", 1)` on an added line
    assert check("seen4", "2025-W47.en.adversarial", "#4107 reads max_concurrent") == []
    wrong = "#4107 reads max_concurrent with a default of 2."
    assert "default" in _rules(_reasons("seen4", "2025-W47", "en", wrong, [4107]))
    other_key = "#4107 reads max_rpm with a default of 1."
    assert "default" in _rules(_reasons("seen4", "2025-W47", "en", other_key, [4107]))


def test_a_new_config_keys_value_and_a_fields_default_are_its_default() -> None:
    # `max_samples_per_step_per_worker: null` in rollout.yaml, `Optional[int] = None`
    assert check("seen4", "2025-W47.en", "A new max_samples_per_step_per_worker") == []
    wrong = "A new max_samples_per_step_per_worker option, set to 5 by default, caps samples."
    assert "default" in _rules(_reasons("seen4", "2025-W47", "en", wrong, [4185]))
    # `dist_checkpointing_prefix: str = ""`: "an empty string by default"
    assert check("seen4", "2025-W47.en", "A dist_checkpointing_prefix option") == []
    wrong = "A dist_checkpointing_prefix option, module by default, lets Megatron roles load."
    assert "default" in _rules(_reasons("seen4", "2025-W47", "en", wrong, [4139]))


def test_a_removed_or_replaced_default_is_read_on_the_removed_lines() -> None:
    # `step_start: int = -1` removed: "删除了 … 的 -1 默认项"
    assert check("seen4", "2026-W04.zh", "#4320 删除了 `TorchProfilerToolConfig") == []
    told_new = "#4320 为 step_start 与 step_end 新增 -1 默认项。"
    assert "default" in _rules(_reasons("seen4", "2026-W04", "zh", told_new, [4320]))
    # `-MAX_NUM_SEQS=${MAX_NUM_SEQS:-256}`: "默认值由 256 改为跟随 …"
    assert (
        check("seen4", "2026-W34.zh.adversarial", "`run_qwen_image_ocr.sh` 的 MAX_NUM_SEQS") == []
    )
    wrong = (
        "run_qwen_image_ocr.sh 的 MAX_NUM_SEQS 默认值由 128 改为跟随 LOG_PROB_MICRO_BATCH_SIZE。"
    )
    assert "default" in _rules(_reasons("seen4", "2026-W34", "zh", wrong, [363]))
    as_new = "run_qwen_image_ocr.sh 的 MAX_NUM_SEQS 默认值改为 256。"
    assert "default" in _rules(_reasons("seen4", "2026-W34", "zh", as_new, [363]))


def test_values_of_two_keys_are_each_the_default_of_the_key_before_it() -> None:
    # the launch script's HEIGHT and WIDTH defaults told the other way round
    reasons = check("seen4", "2026-W34.zh.adversarial", "H3 T2VA 启动脚本默认 HEIGHT")
    assert "default" in _rules(reasons)


def test_on_before_a_determiner_is_no_switch() -> None:
    # "relied on the old … default": a preposition, not "on by default"
    reasons = check("seen4", "2026-W20.en", "Verify that FlowGRPO runs which relied")
    assert not any(r.startswith("default") for r in reasons)
    reasons = check("tune", "2026-W03.zh.adversarial", "#4863 的 parallel_validate_and_rollout")
    assert "default" in _rules(reasons)


# --- an old value or name told as the old one -----------------------------------------------


def _variant(part: str, stem: str, start: str, text: str) -> list[str]:
    """The reasons against `text` said with the evidence of the item starting `start`."""
    week, lang = stem.split(".")[:2]
    item = _item(part, stem, start)
    evidence = [(q["pr"], q["quote"]) for q in item.get("evidence") or []]
    checker = Checker(facts_for(_meta(part, week), lang))
    return check_text(text, item["prs"], item["section"], checker, evidence)


def _old_told_new(reasons: list[str]) -> bool:
    return any(r.startswith(("old value", "value of")) for r in reasons)


def test_a_value_corrected_to_another_is_the_old_one() -> None:
    # "将 final_res.output[0] 更正为 final_res.outputs[0]"
    stem, start = "2026-W04.zh.adversarial", "#4976 将 vllm_async_server"
    assert check("seen4", stem, start) == []
    swapped = (
        "#4976 将 vllm_async_server 中的 final_res.outputs[0] 更正为 final_res.output[0]，"
        "并在多轮工具循环中逐轮累加 num_preempted。"
    )
    assert _old_told_new(_variant("seen4", stem, start, swapped))


def test_what_follows_no_longer_in_its_clause_is_the_old_one() -> None:
    stem, start = "2026-W34.zh.adversarial", "#373 之后 ImageBind"
    assert check("seen4", stem, start) == []
    still = _item("seen4", stem, start)["text"].replace("不再按", "按")
    assert _old_told_new(_variant("seen4", stem, start, still))


def test_a_list_after_instead_of_is_the_old_one() -> None:
    stem, start = "2026-W20.en.adversarial", "#67 keys the DiffusionModelBase"
    assert check("seen4", stem, start) == []
    kept = _item("seen4", stem, start)["text"].replace("instead of explicit", "with explicit")
    assert _old_told_new(_variant("seen4", stem, start, kept))


def test_a_default_told_as_removed_in_the_passive_is_the_old_one() -> None:
    stem, start = "2026-W04.zh", "vLLM 侧借助"
    assert check("seen4", stem, start) == []
    added = _item("seen4", stem, start)["text"].replace("的 -1 默认项被删除", "新增 -1 默认项")
    assert _old_told_new(_variant("seen4", stem, start, added))


def test_the_old_default_of_a_key_is_its_value_before_the_change() -> None:
    stem, start = "2026-W20.en", "Verify that FlowGRPO runs which relied"
    assert check("seen4", stem, start) == []
    wrong = _item("seen4", stem, start)["text"].replace("[0, 5]", "[0, 3]")
    assert _old_told_new(_variant("seen4", stem, start, wrong))
    as_new = "Verify the SDE window now that #58 sets the sde_window_range default to [0, 5]."
    assert _old_told_new(_variant("seen4", stem, start, as_new))


def test_a_name_on_an_unchanged_line_or_a_modified_files_name_is_not_removed() -> None:
    # `gpu_smoke_verl_latest.yml` is modified (its push trigger commented out), not deleted
    assert check("seen4", "2026-W20.en.adversarial", "Adds a second e2e pass") == []
    gone = PREvidence(
        number=1,
        text="",
        removed="old_helper(x)\nkept_helper(y)",
        context="kept_helper(z)",
        files=(("src/a.py", ("old_helper(x)", "kept_helper(y)"), ()),),
    )
    told_new = "Adds old_helper and kept_helper."
    reasons = quoted.diff_side_reasons(told_new, [gone], quoted.quoted([]))
    assert [r.split(":")[0] for r in reasons] == ["old name old_helper"]


# --- a key the patch shows unchanged ---------------------------------------------------------


def test_a_key_on_an_unchanged_line_only_is_not_changed_by_the_pr() -> None:
    # the quickstart's `data.max_prompt_length=512` stands beside the changed response length
    stem, start = "2025-W47.en.adversarial", "It raises the quickstart"
    reasons = check("seen4", stem, start)
    assert any(
        r.startswith("value of data.max_prompt_length: #4171 does not change") for r in reasons
    )
    true = _item("seen4", stem, start)["text"].replace("max_prompt_length", "max_response_length")
    assert _variant("seen4", stem, start, true) == []


def test_a_value_kept_may_be_quoted_from_an_unchanged_line() -> None:
    # "while ppo_micro_batch_size_per_gpu stays at 4": the quote is an unchanged line of #85
    stem, start = "2026-W20.en.adversarial", "#85 raises the NPU"
    assert check("seen4", stem, start) == []
    text = _item("seen4", stem, start)["text"]
    other = text.replace("stays at 4", "stays at 8")
    assert _old_told_new(_variant("seen4", stem, start, other))
    raised = text.replace("stays at 4", "rises from 2 to 4")
    assert _old_told_new(_variant("seen4", stem, start, raised))


def test_a_value_a_script_sets_is_the_scripts() -> None:
    # `diffusion_loss.clip_ratio=2e-6 \` and `adv_clip_max=5.0 \` in the example script
    stem, start = "2026-W20.en.adversarial", "The GRPO-Guard example script sets"
    swapped = check("seen4", stem, start)
    assert any(r.startswith("value of diffusion_loss.clip_ratio") for r in swapped)
    text = _item("seen4", stem, start)["text"]
    true = text.replace("=5.0", "=X").replace("=2e-6", "=5.0").replace("=X", "=2e-6")
    assert _variant("seen4", stem, start, true) == []


def test_a_sum_with_a_key_is_no_value_of_it() -> None:
    # "world_size * (replica_rank + 1)": the code's arithmetic, not replica_rank = 1
    stem, start = "2025-W47.en.adversarial", "Cover #4226"
    assert check("seen4", stem, start) == []
    said = "Cover #4226's new replica_rank = 1 check with a unit test."
    assert _old_told_new(_variant("seen4", stem, start, said))


def test_an_add_told_of_an_earlier_change_is_not_the_prs() -> None:
    # "改写了此前新增 num_preempted 指标的代码": the metric was added before #4976
    stem, start = "2026-W04.zh", "#4976 改写了此前新增"
    assert check("seen4", stem, start) == []
    said = _item("seen4", stem, start)["text"].replace("改写了此前新增", "新增")
    reasons = _variant("seen4", stem, start, said)
    assert any(r.startswith("not new: `num_preempted`") for r in reasons)


def test_a_theme_naming_the_file_whose_defaults_change_tells_a_default() -> None:
    # the key change's theme "VeOmni 默认": #5019 changes moe_implementation in veomni.yaml
    checker = Checker(facts_for(_meta("seen4", "2026-W04"), "zh"))
    assert check_text("VeOmni 默认", [5019], "theme", checker) == []
    reasons = check_text("vLLM 默认", [5019], "theme", checker)
    assert "default" in _rules(reasons)


def test_falling_back_to_a_backend_is_no_revert() -> None:
    # "不再回退到 native 与 TORCH_SDPA": no longer falls back to them
    stem, start = "2026-W34.zh.adversarial", "#398 让 nightly"
    assert check("seen4", stem, start) == []
    reverted = "#398 回退了 nightly 对 FA3 的强制要求。"
    assert "action" in _rules(_variant("seen4", stem, start, reverted))
