"""The filter a card or answer applies is user text: it is shown inert on every platform."""

from __future__ import annotations

from service.commands.kinds import SubscriptionsAnswer, SubscriptionView, TopAnswer
from service.core.filters import DigestFilter, narrow_digest
from service.render import feishu, slack
from service.render.text import render_answer_text
from tests.commands.builders import real_digest
from tests.fuzz.inert import feishu_problems, markdown_problems, slack_problems

HOSTILE = DigestFilter(
    paths=("<!channel>/**", "[x](javascript:alert(1))"),
    authors=("<at id=all></at>", "<@U123>"),
)


def test_a_hostile_filter_line_is_inert_everywhere() -> None:
    digest = narrow_digest(real_digest("2026-W04"), HOSTILE).model_copy(
        update={"filter": HOSTILE.describe()}
    )
    message = slack.render_digest(digest, report_url="https://r.test/x", lang="en")
    assert slack_problems(message.text, message.blocks) == []
    assert any("Filter:" in str(b) for b in message.blocks if b["type"] == "context")
    for via in ("app", "webhook"):
        card = feishu.render_digest(digest, report_url="https://r.test/x", lang="zh", via=via)
        assert feishu_problems(card) == []
        assert "过滤条件" in str(card["body"]["elements"][0])
    answer = TopAnswer(repo="o/r", period=digest.window, filter=HOSTILE.describe())
    assert markdown_problems(render_answer_text(answer, "en")) == []


def test_a_hostile_subscription_list_is_inert() -> None:
    view = SubscriptionView(repo="o/r", filter=HOSTILE.describe(), language="en")
    answer = SubscriptionsAnswer(repo="o/r", key="cmd.answer.subscriptions", subscriptions=[view])
    message = slack.render_answer(answer, "en")
    assert slack_problems(message.text, message.blocks) == []
    assert feishu_problems(feishu.render_answer(answer, "zh")) == []
