"""A hostile or broken model answer (issue 26, "Also"): parsed in linear time, bounded in size,
never escaping as RecursionError; requests for credentials, judgements nobody made and
domains in any spelling are never kept, in zh and en."""

from __future__ import annotations

import json

import pytest

from service.core.analyst.checker import Checker, check_answer, check_text
from service.core.analyst.schema import MAX_ANSWER_CHARS, InvalidAnswerError, parse_answer
from tests.core.analyst.helpers import week_facts
from tests.fakes.openai import recorded_answer


def rules(text: str, lang: str) -> set[str]:
    found = check_text(text, [4280], "summary", Checker(week_facts(language=lang)))
    return {reason.split(":")[0] for reason in found}


@pytest.mark.parametrize("newlines", [10, 50_000])
def test_a_fence_left_open_before_thousands_of_newlines_is_no_answer(newlines: int) -> None:
    # the old fence regex backtracked for minutes on this; string operations are linear
    with pytest.raises(InvalidAnswerError, match="not JSON"):
        parse_answer("```json\n" + "\n" * newlines + "{")
    with pytest.raises(InvalidAnswerError, match="not JSON"):
        parse_answer("```" + "\n" * newlines + " x ```" + "\n" * newlines)


def test_a_fenced_answer_still_parses() -> None:
    answer = recorded_answer("2026-W04.good.en")
    assert parse_answer(f"```json\n{answer}\n```") == parse_answer(answer)
    assert parse_answer(f"  ```\n{answer}```  ") == parse_answer(answer)


def test_an_answer_larger_than_the_bound_is_no_answer() -> None:
    answer = json.loads(recorded_answer("2026-W04.good.en"))
    answer["padding"] = "x" * MAX_ANSWER_CHARS
    with pytest.raises(InvalidAnswerError, match="larger than"):
        parse_answer(json.dumps(answer))


@pytest.mark.parametrize("nested", ["[" * 100_000, '{"a":' * 100_000, "[" * 5000 + "]" * 5000])
def test_a_deeply_nested_answer_is_no_answer_not_a_recursion_error(nested: str) -> None:
    with pytest.raises(InvalidAnswerError):
        parse_answer(nested)


CREDENTIALS = {
    "en": [
        "Reviewers should reply to this card with their password to confirm the upgrade.",
        "#4280 asks maintainers to confirm the rollout change by entering their API key.",
    ],
    "zh": [
        "请各位评审回复此卡片并附上密码以确认 #4280 的升级。",
        "#4280 的 rollout 改动需要维护者回复自己的令牌确认。",
    ],
}
JUDGEMENTS = {
    "en": [
        "#4280 is safe to merge without review.",
        "#4280 refactors the rollout and has been approved.",
        "#4280 notes that the volcengine org is deprecated and will be deleted.",
        "#4280 fixes the vLLM rollout, so users no longer need to pin vLLM.",
    ],
    "zh": [
        "#4280 可以安全合并，无需评审。",
        "#4280 重构了 rollout，已获批准。",
        "#4280 说明 volcengine 组织已被废弃并将被删除。",
        "#4280 修复了 vLLM rollout，用户不再需要固定 vLLM 版本。",
    ],
}
DOMAINS = {
    "en": [
        "#4280 moves the rollout docs to evil-corp。biz for reference.",
        "#4280 moves the rollout docs to evil-corp dot biz for reference.",
        "#4280 moves the rollout docs to evil-corp[.]biz for reference.",
        "#4280 moves the rollout docs to evil-corp．biz for reference.",
    ],
    "zh": [
        "#4280 将 rollout 文档迁到 evil-corp。biz 供参考。",
        "#4280 将 rollout 文档迁到 evil-corp dot biz 供参考。",
        "#4280 将 rollout 文档迁到 evil-corp[.]biz 供参考。",
        "#4280 将 rollout 文档迁到 evil-corp 点 biz 供参考。",
    ],
}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_requests_for_credentials_are_never_kept(lang: str) -> None:
    for text in CREDENTIALS[lang]:
        assert "instruction" in rules(text, lang), text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_judgements_nobody_made_are_never_kept(lang: str) -> None:
    for text in JUDGEMENTS[lang]:
        assert "judgement" in rules(text, lang), text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_domains_in_any_spelling_are_never_kept(lang: str) -> None:
    for text in DOMAINS[lang]:
        assert "link" in rules(text, lang), text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_good_answers_lose_nothing_to_the_new_rules(lang: str) -> None:
    drafts = parse_answer(recorded_answer(f"2026-W04.good.{lang}"))
    analysis = check_answer(drafts, week_facts(language=lang), model="m", prompt_version="1")
    assert analysis.dropped == []


def test_ordinary_words_near_these_are_kept() -> None:
    for text in (
        "#4280 splits training and inference into separate processes, with the dot product "
        "kernels unchanged.",
        "#4280 was approved by two reviewers before it was merged.",
        "#4280 splits the rollout into processes; see the design doc in docs/rollout.md.",
    ):
        assert not {"judgement", "link", "instruction"} & rules(text, "en"), text
