"""`authors` end to end on both platforms: a signed slash command to POST /slack/events and a
message to the bot through POST /feishu/events, on the service wired as `serve` wires it,
answer with the week's authors and their merged PR counts, most first, in the chat's language."""

from __future__ import annotations

from collections import Counter

from tests.channels.conftest import REPO, WEEK, Wired, card_text, chinese
from tests.periods import period


def ranked_lines(built: Wired, lang: str) -> list[str]:
    """`1. login — n PRs` lines of the stored week, as the answer should write them."""
    digest = built.pipeline.store.get_digest(REPO, period(WEEK), "zh")
    assert digest is not None
    counts = Counter(p.author for p in digest.prs if p.author)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0].lower(), item[0]))
    assert ranked[0][1] > 1  # the ordering is by count, not only by name
    unit = {"en": lambda n: "1 PR" if n == 1 else f"{n} PRs", "zh": lambda n: f"{n} 个 PR"}[lang]
    return [f"{i}. {login} — {unit(n)}" for i, (login, n) in enumerate(ranked[:3], start=1)]


def test_slack_slash_command(built: Wired) -> None:
    answer = built.slash(f"authors {WEEK}", channel="C_EN")
    text = card_text(answer)
    assert answer["response_type"] == "ephemeral"
    positions = [text.find(line) for line in ranked_lines(built, "en")]
    assert -1 not in positions, text
    assert positions == sorted(positions)
    assert "authors of the" in text


def test_slack_public_in_the_chinese_channel(built: Wired) -> None:
    answer = built.slash(f"authors {WEEK} public", channel="C_ZH")
    assert answer["response_type"] == "in_channel"
    assert chinese(answer["text"])
    assert ranked_lines(built, "zh")[0] in card_text(answer)


def test_feishu_message_to_the_bot(built: Wired) -> None:
    card = built.feishu_say(f"authors {WEEK}", chat_id="oc_group2")  # an English group
    text = card_text(card)
    assert "authors" in card["header"]["title"]["content"]
    positions = [text.find(line) for line in ranked_lines(built, "en")]
    assert -1 not in positions, text
    assert positions == sorted(positions)


def test_feishu_filtered_in_chinese(built: Wired) -> None:
    card = built.feishu_say(f"authors {WEEK} author:Huazhong", chat_id="oc_group1")
    text = card_text(card)
    assert "作者" in card["header"]["title"]["content"]
    assert "1. Huazhong — 2 个 PR" in text
    assert "author:Huazhong" in text
