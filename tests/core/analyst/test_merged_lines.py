"""Every Python file's patch is collected (not only the core paths' a detector reads), so a
name a PR's stale description announces is checked against what merged (issue 26, checker38):
seen 2026-W34's #7443 changes only `verl/utils/vllm/vllm_quant_utils.py`, whose patch used to
be left out; its body names `_FP8_MOE_LEAVES`, review renamed it `_FP8_CANDIDATE_LEAVES`."""

from __future__ import annotations

import json

from service.core.analyst.checker import Checker, check_text
from service.core.analyst.facts import PeriodFacts
from tests.core.analyst.model_corpus import CORPUS, facts_for


def _checker(part: str, week: str, language: str) -> Checker:
    meta = json.loads((CORPUS / part / "weeks.json").read_text("utf-8"))[week]
    facts: PeriodFacts = facts_for({"week": week, **meta}, language)
    return Checker(facts)


def test_a_helper_outside_the_core_paths_has_its_patch() -> None:
    checker = _checker("seen", "2026-W34", "en")
    assert checker.facts.evidence is not None
    pr = checker.facts.evidence.collected[7443]
    assert pr.patches_fetched
    assert all(change.patch for change in pr.files)


def test_a_name_review_renamed_is_dropped_and_the_merged_one_kept() -> None:
    checker = _checker("seen", "2026-W34", "en")
    # labelled false (a name from a stale body)
    stale = (
        '#7443 replaces the `name.endswith("weight")` guard in `is_fp8_weight` with an '
        "explicit whitelist (`_FP8_LINEAR_LEAF` / `_FP8_MOE_LEAVES`)."
    )
    assert check_text(stale, (7443,), "pr_points", checker) == [
        "renamed before merge: `_FP8_MOE_LEAVES` is only in #7443's description; "
        "the merged change has `_FP8_CANDIDATE_LEAVES`"
    ]
    merged = stale.replace("(`_FP8_LINEAR_LEAF` / `_FP8_MOE_LEAVES`)", "`_FP8_CANDIDATE_LEAVES`")
    assert check_text(merged, (7443,), "pr_points", checker) == []
