"""Misreadings of the tune4 answers and adversarial batches (volcengine/verl 2025-11-17..30 and
2026-01-12..25, verl-project/verl 2026-05-04..17 and 05-11..24, two-week periods), read sentence
by sentence: each test checks a real corpus sentence on the period's real facts, and the false
variant beside it is still dropped."""

from __future__ import annotations

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
