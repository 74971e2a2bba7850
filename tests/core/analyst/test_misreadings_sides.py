"""Values, defaults and sides of a change (checkB): true sentences of the model corpus that
tell a default read from code, an old value as old, or a name the PR keeps are kept; the false
variant beside each (another value, a value bound to another key, an old value told as new) is
still dropped."""

from __future__ import annotations

from service.core.analyst import code_defaults
from service.core.analyst.checker import Checker, check_text
from tests.core.analyst.model_corpus import facts_for
from tests.core.analyst.test_facts_not_words import _meta, check


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
