"""What the verifier is shown of the merged change beside each sentence (verify_lines.py): the
changed lines of the cited PRs that name what the sentence names, most telling name first, and
each PR's author; on the recorded 2026-W04 week."""

from __future__ import annotations

import json

from service.core.analyst.verdicts import Sentence, batch_data
from service.core.analyst.verify_lines import (
    LINES_PER_SENTENCE,
    changed_lines,
    figures_of,
    names_of,
)
from tests.core.analyst.helpers import week_facts


def test_names_are_backticked_spans_first_then_a_keys_last_part_then_code_words() -> None:
    text = "#7373 gates it behind `trainer.v1.separate_async.enable_switch`, read by RolloutConfig"
    assert names_of(text) == [
        "trainer.v1.separate_async.enable_switch",
        "enable_switch",
        "rolloutconfig",
    ]
    assert names_of("本周合入 34 个 PR，无代码名") == []


def test_a_sentence_gets_the_lines_that_name_its_setting_on_their_side() -> None:
    # #4280 comments out the one-step-off-policy NPU job: the name is on both sides
    facts = week_facts(language="en")
    lines = changed_lines(
        "#4280 disables the `one_step_off_policy` NPU test", (4280,), facts.evidence
    )
    sides = {str(entry["line"])[0] for entry in lines}
    assert sides == {"+", "-"}
    assert all("one_step_off_policy" in str(e["line"]).lower() for e in lines)
    assert all(e["pr"] == 4280 for e in lines)
    assert len(lines) <= LINES_PER_SENTENCE


def test_a_name_no_changed_line_has_gets_no_line() -> None:
    facts = week_facts(language="en")
    assert changed_lines("#4280 adds `_FP8_MOE_LEAVES`", (4280,), facts.evidence) == []


def test_the_verifier_data_holds_each_sentence_diff_and_each_pr_author() -> None:
    facts = week_facts(language="en")
    sentence = Sentence(1, "pr_points", 0, "#4280 disables `one_step_off_policy` on NPU", (4280,))
    data = json.loads(batch_data([sentence], facts))
    (pr,) = data["prs"]
    assert pr["author"] == "jianjunzhong jianjun zhong"
    first = data["sentences"][0]["diff"][0]
    assert first["pr"] == 4280
    assert first["line"] == (
        "+ # - name: Running the E2E test with one_step_off_policy algorithm on ASCEND NPU (FSDP2)"
    )


def test_the_values_a_sentence_states_are_looked_up_as_whole_tokens() -> None:
    text = "#79 raises lr from 1e-5 to 3e-5 and resolution to 512 (vllm v0.18.0, 1.3.0rc13), #6350"
    assert figures_of(text) == ["1e-5", "3e-5", "512", "v0.18.0", "1.3.0rc13"]
    facts = week_facts(language="en")
    # #4280's run scripts set trainer.total_epochs=15 on a removed line, nothing on 150
    lines = changed_lines("#4280 trains for 15 epochs", (4280,), facts.evidence)
    assert any("total_epochs=15" in str(e["line"]) for e in lines)
    assert changed_lines("#4280 trains for 1500 epochs", (4280,), facts.evidence) == []


def test_the_verifier_data_holds_merge_times_and_the_weeks_count_per_author() -> None:
    facts = week_facts(language="en")
    sentence = Sentence(1, "trends", 0, "jianjunzhong merged one PR this week, #4280", (4280,))
    data = json.loads(batch_data([sentence], facts))
    (pr,) = data["prs"]
    assert pr["merged_at"].startswith("2026-01-")
    assert data["week_prs_by_author"] == {"jianjunzhong": 1}
