"""Each destination in its own language: SLACK_CHANNELS=C_ZH,C_EN:en, FEISHU_CHAT_IDS=
oc_group1,oc_group2:en and FEISHU_WEBHOOK_LANGUAGE=en with DIGEST_LANGUAGE=zh; commands answer
in the language of the channel they come from, or in `lang:` when the command says."""

from __future__ import annotations

import pytest

from service.render import feishu as feishu_render
from service.render import slack as slack_render
from service.render.links import report_url
from tests.channels.conftest import BASE_URL, REPO, WEEK, Wired, card_text, chinese
from tests.periods import period


@pytest.mark.process
def test_post_gives_each_destination_its_language(wired: Wired) -> None:
    done = wired.cli("post", "--week", WEEK)
    assert done.returncode == 0, done.stderr
    digest = wired.pipeline.store.get_digest(REPO, period(WEEK), "zh")
    assert digest is not None
    url = report_url(BASE_URL, REPO, WEEK)
    for channel, lang in (("C_ZH", "zh"), ("C_EN", "en")):
        [posted] = wired.slack.messages(channel)
        expected = slack_render.render_digest(digest, report_url=url, lang=lang)
        assert posted["blocks"] == expected.blocks, channel
        assert chinese(posted["text"]) is (lang == "zh")
    for chat, lang in (("oc_group1", "zh"), ("oc_group2", "en")):
        [message] = wired.feishu.posted(chat)
        expected_card = feishu_render.render_digest(digest, report_url=url, lang=lang)
        assert message.card["header"] == expected_card["header"], chat
        assert chinese(message.card["header"]["title"]["content"]) is (lang == "zh")
    [hook_card] = wired.feishu.hook_cards
    assert not chinese(hook_card["header"]["title"]["content"])  # FEISHU_WEBHOOK_LANGUAGE=en


def test_commands_answer_in_the_language_of_their_channel(built: Wired) -> None:
    english = built.slash("top 3", channel="C_EN")
    chinese_answer = built.slash("top 3", channel="C_ZH")
    unknown_channel = built.slash("top 3", channel="C_SUB")  # not configured: DIGEST_LANGUAGE
    assert not chinese(english["text"])
    assert chinese(chinese_answer["text"])
    assert chinese(unknown_channel["text"])
    # the same PRs whatever the language
    assert card_text(english["blocks"]).count("#") == card_text(chinese_answer["blocks"]).count("#")


def test_lang_in_the_command_wins_over_the_channel(built: Wired) -> None:
    assert not chinese(built.slash("top 3 lang:en", channel="C_ZH")["text"])
    assert chinese(built.slash("summary lang:zh", channel="C_EN")["text"])
    assert not chinese(built.slash("help lang:en", channel="C_ZH")["text"])


def test_usage_errors_too_are_in_the_channel_language(built: Wired) -> None:
    english = built.slash("frobnicate", channel="C_EN")
    assert "frobnicate" in english["text"]
    assert not chinese(english["text"])
    assert chinese(built.slash("frobnicate", channel="C_ZH")["text"])


def test_feishu_replies_in_the_language_of_the_chat(built: Wired) -> None:
    english = built.feishu_say("top 3", chat_id="oc_group2")
    chinese_card = built.feishu_say("top 3", chat_id="oc_group1")
    forced = built.feishu_say("top 3 lang:en", chat_id="oc_group1")
    assert not chinese(english["header"]["title"]["content"])
    assert chinese(chinese_card["header"]["title"]["content"])
    assert not chinese(forced["header"]["title"]["content"])
