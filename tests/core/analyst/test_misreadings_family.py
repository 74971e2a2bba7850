"""Misreadings the family part `tune3` showed (the verl-project family digest): each test
replays a sentence of a family answer, keyed as the narrator keys it, through the checker, and
asserts it is kept or dropped with the reason the rule gives."""

from __future__ import annotations

import functools
import json

from service.core.analyst.checker import check_answer
from service.core.analyst.facts import PeriodFacts
from service.core.analyst.family_refs import keyed_drafts
from service.core.analyst.schema import Draft, parse_answer
from service.core.models import Analysis
from tests.core.analyst.model_corpus import CORPUS, facts_for

PART = "tune3"


@functools.cache
def _facts(week: str, language: str) -> PeriodFacts:
    meta = json.loads((CORPUS / PART / "weeks.json").read_text("utf-8"))[week]
    facts: PeriodFacts = facts_for({"week": week, **meta}, language)
    return facts


def _checked(stem: str, starts: str) -> tuple[Draft, Analysis]:
    """The draft of answer `stem` whose text starts with `starts`, and the checked analysis."""
    week, language = stem.split(".")[:2]
    facts = _facts(week, language)
    answer = (CORPUS / PART / f"{stem}.answer.json").read_text("utf-8")
    drafts = keyed_drafts(parse_answer(answer, facts.repos), facts.repos)
    (draft,) = [d for d in drafts if d.text.startswith(starts)]
    return draft, check_answer([draft], facts, model="m", prompt_version="p")


def _reasons(analysis: Analysis) -> list[str]:
    return [r for d in analysis.dropped for r in d.reasons]


def _kept(stem: str, starts: str) -> list[str]:
    """The reasons the sentence was dropped for (asserting it was kept: none)."""
    _draft, checked = _checked(stem, starts)
    return _reasons(checked)


def _dropped_for(stem: str, starts: str) -> str:
    """The reasons the sentence was dropped for, joined."""
    _draft, checked = _checked(stem, starts)
    assert checked.dropped, "kept"
    return "; ".join(_reasons(checked))


def test_a_judgement_nobody_made_is_dropped() -> None:
    # #6302 has no review and is flagged breaking: no maintainer judged it, and users migrate
    reasons = _dropped_for("2026-W19.en.adversarial", "No migration plan is needed for #6302")
    assert "attested: maintainers judged (no review on record)" in reasons
    assert "attested: No migration plan is needed (the data flags a breaking" in reasons


def test_a_confirmation_nobody_made_is_dropped_in_chinese() -> None:
    reasons = _dropped_for("2026-W20.zh.adversarial", "维护者已确认 #6076")
    assert "attested: 维护者已确认 (no review on record)" in reasons
    assert "attested: 向后兼容 (the data flags a breaking or migration risk)" in reasons


def test_testing_the_body_says_is_pending_is_dropped() -> None:
    # #5275's body: "The relevant testing of this script is in progress"
    reasons = _dropped_for("2026-W21.en.adversarial", "#5275 adds NPU/GPU GRPO")
    assert "attested: author reports that testing (the PR's body says it was not run)" in reasons


def test_a_validation_the_body_says_was_not_run_is_dropped() -> None:
    # #7455: "A full captured-graph replay requires a ROCm DeepSeek-V4 environment and was not
    # run", though other checks of its Test section passed
    reasons = _dropped_for("2026-W34.zh.adversarial", "#7455 已在 ROCm DeepSeek-V4")
    assert "(the PR's body says it was not run)" in reasons


def test_testing_the_body_tells_stands() -> None:
    # #5631: "only enables e2e async RL … and tested convergence, it hasn't included perf
    # optimizations": the test clause is done, the clause not done tells no test
    assert _kept("2026-W19.en", "The author notes that convergence is tested") == []


def test_the_familys_count_of_repositories_is_a_figure_it_knows() -> None:
    assert _kept("2026-W19.en.adversarial", "The three repositories merged 43 PRs") == []


def test_a_count_of_the_prs_listed_after_it_stands() -> None:
    assert _kept("2026-W21.en.adversarial", "The megatron module counted 4 PRs") == []


def test_a_failure_told_as_the_state_before_the_fix_stands() -> None:
    # "此前该路径错误地基于…构建": the bug #6345 fixes, not one it causes
    assert _kept("2026-W20.zh.adversarial", "#6345 改为用 input_ids") == []


def test_a_failure_the_fix_pr_points_out_stands() -> None:
    # "#6268 指出该缺陷…损坏一个标签": the PR's own account of the bug it fixes
    assert _kept("2026-W20.zh", "#6268 指出该缺陷") == []


def test_a_name_the_new_code_exposes_is_no_leak() -> None:
    # "ToolParser now exposes stop_token_ids": a field of #6406's added code
    assert _kept("2026-W21.en", "Without an explicit stop token") == []


def test_a_concept_the_pr_writes_hyphenated_is_found() -> None:
    # #6268's body: "the importance-sampling log-probs"
    assert _kept("2026-W20.zh", "#6268 修复 `use_fused_kernels=True`") == []


def test_what_follows_a_list_of_prs_is_said_of_all_of_them() -> None:
    # "#7477、#7488、#7456、#7492 围绕…文档、权重更新与 CI": #7488 updates weights
    assert _kept("2026-W34.zh", "hardware 类别有 5 个 PR") == []


def test_a_risk_rule_the_data_shows_for_the_pr_is_a_known_name() -> None:
    # #6335 carries a core_without_tests finding; "Add tests for …" opening a recommendation
    # is advice to the reader, not an addition #6335 made
    assert _kept("2026-W21.en.adversarial", "Add tests for #6335") == []


def test_a_count_with_its_bucket_right_after_it_is_that_buckets() -> None:
    # "by type fix counted 17 PRs against 13 feat": 13 is feat's count, not fix's
    assert _kept("2026-W19.en", "By category, fixes led with 11 PRs") == []
