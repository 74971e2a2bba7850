"""What every output says about a model's part: the model's name and how many of its sentences
were dropped, in the report's note and the cards' note (zh and en, one and many), and a footer
that no longer says rules made every line when a model wrote some."""

from __future__ import annotations

import json

import pytest

from service.core.analyst.checker import check_answer
from service.core.analyst.schema import Draft, parse_answer
from service.core.models import Digest
from service.render import feishu, slack
from service.render.environment import translator
from service.render.feishu_limits import feishu_violations
from service.render.limits import slack_violations
from service.render.report import render_html, render_markdown
from tests.core.analyst.helpers import week_digest, week_facts
from tests.fakes.openai import recorded_answer

MODEL = "Qwen/Qwen3-32B"
URL = "https://verl-week.example.org/reports/volcengine/verl/2026-W04"
# sentences the checker drops: a PR of no week, and a figure no fact holds
INVENTED = [
    Draft("summary", "#9999 rewrites the trainer.", (9999,)),
    Draft("trends", "rollout grew by 35% this week.", ()),
    Draft("recommendations", "Revert #4665 at once: it is 3x slower.", (4665,)),
]
RULES_ONLY = {
    "zh": "按确定性规则根据 GitHub 数据生成",
    "en": "by deterministic rules;",
}


def digest_with(lang: str, invented: int) -> Digest:
    drafts = parse_answer(recorded_answer(f"2026-W04.good.{lang}")) + INVENTED[:invented]
    analysis = check_answer(drafts, week_facts(language=lang), model=MODEL, prompt_version="2")
    assert len(analysis.dropped) == invented
    return week_digest(language=lang).model_copy(update={"analysis": analysis})


def cards(digest: Digest) -> list[str]:
    lang = digest.language
    message = slack.render_digest(digest, report_url=URL, lang=lang)
    card = feishu.render_digest(digest, report_url=URL, lang=lang)
    assert slack_violations(message) == []
    assert feishu_violations(card, via="app") == []
    return [
        json.dumps({"text": message.text, "blocks": message.blocks}, ensure_ascii=False),
        json.dumps(card, ensure_ascii=False),
    ]


@pytest.mark.parametrize(
    ("lang", "invented", "report", "card"),
    [
        ("zh", 3, "未通过核对的 3 句已删除", "未通过的 3 句已删除"),
        ("zh", 1, "未通过核对的 1 句已删除", "未通过的 1 句已删除"),
        ("zh", 0, "并全部通过", "已逐句与本周数据核对并全部通过"),
        ("en", 3, "the 3 that failed were dropped", "3 that failed were dropped"),
        ("en", 1, "the one that failed was dropped", "the one that failed was dropped"),
        ("en", 0, "and all passed", "all passed"),
    ],
)
def test_the_dropped_count_and_model_are_in_the_report_and_cards(
    lang: str, invented: int, report: str, card: str
) -> None:
    digest = digest_with(lang, invented)
    for text in (render_markdown(digest), render_html(digest)):
        assert report in text
        assert MODEL in text
    for text in cards(digest):
        assert card in text
        assert MODEL in text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_footer_names_the_model_when_it_wrote_some(lang: str) -> None:
    digest = digest_with(lang, 1)
    markdown = render_markdown(digest)
    last = markdown.rstrip().rsplit("\n", 1)[-1]
    assert MODEL in last
    assert RULES_ONLY[lang] not in last
    html = render_html(digest)
    footer = html.split("<footer>", 1)[1].split("</footer>", 1)[0]
    assert MODEL in footer
    assert RULES_ONLY[lang] not in footer
    # the note at the top names the parts the model wrote; the footer points to it
    sections = {"zh": "执行摘要", "en": "executive summary"}[lang]
    note = markdown.split("\n> ", 1)[1].split("\n", 1)[0]
    assert sections in note


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_without_a_model_the_footer_says_rules_made_it(lang: str) -> None:
    digest = week_digest(language=lang)
    last = render_markdown(digest).rstrip().rsplit("\n", 1)[-1]
    tool = "`verl-week`"
    assert last == translator(lang).t("report.footer", tool=tool)
    assert RULES_ONLY[lang] in last
