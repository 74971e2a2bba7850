"""Changes told the wrong way round and pins placed in the wrong file (transitions.py), on real
sentences of the model-written corpus and the recorded PRs they cite."""

from __future__ import annotations

from typing import Any

from service.core.analyst.transitions import pin_file_reasons, reversed_reasons, upgrade_reasons
from tests.core.analyst.model_corpus import facts_for
from tests.core.analyst.test_facts_not_words import check

TUNE_W48 = {"week": "2025-W48", "repo": "volcengine/verl", "previous": "2025-W47"}


def _evidence() -> Any:
    return facts_for(TUNE_W48, "en").evidence


def test_a_change_told_the_wrong_way_round_is_dropped() -> None:
    # #4279 "increase e2e_sft timeout from 25 to 30 minutes"; `timeout-minutes: 25` → `30`
    reasons = check("tune", "2025-W48.en.adversarial", "ci work included #4279")
    assert "direction: the data changes 25 → 30, the sentence says 30 → 25" in reasons


def test_the_change_told_its_way_is_kept() -> None:
    text = "#4279 raises the e2e_sft timeout from 25 to 30 minutes."
    assert reversed_reasons(text, [4279], _evidence()) == []


def test_a_pin_placed_in_a_file_that_does_not_hold_it_is_dropped() -> None:
    # TransferQueue==0.1.1.dev2 is in docs/data/transfer_queue.md; setup.py pins 0.1.2.dev0
    reasons = check("tune", "2025-W48.en.adversarial", "#4175 pins TransferQueue==0.1.1.dev2")
    assert any(r.startswith("wrong file: #4175 has transferqueue==0.1.1.dev2") for r in reasons)


def test_a_pin_in_the_file_it_names_is_kept() -> None:
    text = "#4175 pins TransferQueue==0.1.2.dev0 in setup.py."
    assert pin_file_reasons(text, [4175], _evidence()) == []
    assert check("tune", "2025-W48.en", "It pins TransferQueue==0.1.2.dev0 in setup.py") == []


def test_the_version_upgraded_from_told_as_the_new_one_is_dropped() -> None:
    # `-ARG TRTLLM_BASE_IMAGE=…/release:1.3.0rc13` / `+…/release:1.3.0rc14`
    reasons = check("seen", "2026-W19.zh.adversarial", "#6262 把 TRT-LLM 基础镜像升级到")
    assert "old version told as new: 1.3.0rc13 is only on removed lines of #6262" in reasons


def test_the_version_upgraded_to_is_kept() -> None:
    evidence = facts_for({"week": "2026-W19", "repo": "verl-project/verl", "previous": None}, "zh")
    text = "#6262 把 TRT-LLM 基础镜像升级到 1.3.0rc14。"
    assert upgrade_reasons(text, [6262], evidence.evidence) == []


def test_a_figure_told_instead_of_the_other_way_round_is_dropped() -> None:
    # #6076's body: "before (2 RPCs per acquire): … after (1 atomic RPC per acquire)"
    reasons = check("seen", "2026-W20.en.adversarial", "#6076 merges the handle registry")
    assert "direction: the data changes 2 → 1, the sentence says 1 → 2" in reasons


def test_the_figure_told_its_way_is_kept() -> None:
    evidence = facts_for(
        {"week": "2026-W20", "repo": "verl-project/verl", "previous": "2026-W19"}, "en"
    )
    text = "#6076 makes each acquire cost 1 RPC instead of 2."
    assert reversed_reasons(text, [6076], evidence.evidence) == []
