"""The analyst's and the verifier's prompts for a period that is not a week (a month, a range
of days) say so, and the analyst's asks for the period's words ("本月", "本期", "this period"),
as the report and cards use them; a week's prompts are unchanged. The checker reads those words
as the week's: "本期合入 22 个 PR" is a count of the period's PRs."""

from __future__ import annotations

import dataclasses

import pytest

from service.core.analyst.checker import Checker, check_text
from service.render.prompt import prompt_messages
from service.render.verify_prompt import verify_messages
from tests.core.analyst.helpers import week_facts

PERIODS = {
    "2026-01": ("2026-01-01", "2026-01-31"),
    "2026-01-19..2026-01-25": ("2026-01-19", "2026-01-25"),
}
ASKED = {
    ("2026-01", "zh"): "句子里写“本月”“上月”",
    ("2026-01", "en"): 'Write "this month" and "last month"',
    ("2026-01-19..2026-01-25", "zh"): "句子里写“本期”“上一期”",
    ("2026-01-19..2026-01-25", "en"): 'Write "this period" and "the previous period"',
}


def _system(label: str, lang: str) -> str:
    facts = week_facts("2026-W04", lang)
    if label != facts.period:
        first, last = PERIODS[label]
        facts = dataclasses.replace(facts, period=label, first_day=first, last_day=last)
    return prompt_messages(facts)[0]["content"]


@pytest.mark.parametrize(("label", "lang"), sorted(ASKED))
def test_a_period_prompt_names_the_period_and_asks_for_its_words(label: str, lang: str) -> None:
    system = _system(label, lang)
    assert ASKED[(label, lang)] in system
    assert "这一周合入" not in system
    assert "weekly report" not in system
    assert label in system.splitlines()[0]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_week_prompt_says_week_and_no_period_note(lang: str) -> None:
    system = _system("2026-W04", lang)
    first = system.splitlines()[0]
    assert ("这一周合入" in first) if lang == "zh" else ("weekly report" in first)
    assert "本期" not in system
    assert "this period" not in system
    assert system.splitlines()[1] == ""  # the intro stands apart from the data's description


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("本期合入 22 个 PR，来自 20 位贡献者。", True),
        ("本期合入 23 个 PR。", False),
        ("This period merged 22 PRs.", True),
        ("This period merged 21 PRs.", False),
        ("本月合入 23 个 PR。", False),
    ],
)
def test_the_period_words_scope_a_count_to_the_period(text: str, kept: bool) -> None:
    lang = "zh" if text[0] == "本" else "en"
    reasons = check_text(text, [], "summary", Checker(week_facts("2026-W04", lang)))
    assert (reasons == []) is kept, reasons


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("本期没有 vLLM 相关的改动。", "zh"),
        ("本月没有 vLLM 相关的改动。", "zh"),
        ("No vLLM changes this period.", "en"),
        ("No vLLM changes this month.", "en"),
    ],
)
def test_no_x_this_period_must_hold_of_every_pr_of_the_period(text: str, lang: str) -> None:
    reasons = check_text(text, [], "summary", Checker(week_facts("2026-W04", lang)))
    assert [r.split(":")[0] for r in reasons] == ["absence"]  # #4280 reworks the vLLM rollout


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_verifier_is_told_the_period_too(lang: str) -> None:
    week = verify_messages("volcengine/verl", "2026-W04", lang, "{}")[0]["content"]
    month = verify_messages("volcengine/verl", "2026-01", lang, "{}")[0]["content"]
    assert ("周报中的句子" in week) if lang == "zh" else ("weekly report" in week)
    assert "一个月，不是一周" in month if lang == "zh" else "covers a month, not one week" in month
    assert "周报" not in month.splitlines()[0]
    assert "weekly" not in month.splitlines()[0]


@pytest.mark.parametrize(
    ("label", "lang"), [("2026-W04", "zh"), ("2026-01", "zh"), ("2026-01", "en")]
)
def test_a_family_prompt_calls_a_period_report_a_report(label: str, lang: str) -> None:
    facts = week_facts("2026-W04", lang)
    if label != facts.period:
        first, last = PERIODS[label]
        facts = dataclasses.replace(facts, period=label, first_day=first, last_day=last)
    family = dataclasses.replace(facts, repos=("verl-project/verl", "verl-project/verl-omni"))
    intro = prompt_messages(family)[0]["content"].splitlines()[0]
    if label == "2026-W04":
        assert "本周报是整个家族的一份周报" in intro
    else:
        assert "周报" not in intro
        assert "weekly" not in intro
        assert ("整个家族的一份报告" in intro) if lang == "zh" else ("one report" in intro)
