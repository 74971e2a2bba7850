"""The button protocol the engine owns: a value written by `encode` reads back as the command it
stands for on every platform, values of cards posted before it still read, and anything else is
no command."""

from __future__ import annotations

import json

import pytest

from service.commands import buttons
from service.commands.grammar import Command
from service.commands.parse import parse_command
from tests.periods import period


@pytest.mark.parametrize(
    ("verb", "label", "filter_text"),
    [
        ("risks", "2026-W04", ""),
        ("risks", "2026-01", "module:rollout severity:high"),
        ("regenerate", "2026-01-12..2026-01-25", ""),
        ("risks", "2026-W04", "path:<!channel>&x/** author:a,b"),
    ],
)
def test_a_value_reads_back_as_its_command_on_both_platforms(
    verb: str, label: str, filter_text: str
) -> None:
    typed = parse_command(f"{verb} {label} {filter_text}")
    feishu = buttons.encode(verb, "o/r", period(label), filter_text)
    slack = buttons.encode_text(verb, "o/r", period(label), filter_text)
    assert not {"&", "<", ">"} & set(slack)  # Slack's control characters, even in user text
    for value in (feishu, slack, json.dumps(feishu)):
        back = buttons.decode(value)
        assert back == typed.model_copy(update={"repo": "o/r"})


def test_values_of_cards_posted_before_the_protocol_still_read() -> None:
    slack_old = json.dumps({"repo": "o/r", "week": "2026-W04", "filter": "module:rollout"})
    assert buttons.decode(slack_old, "risks") == Command(
        verb="risks",
        repo="o/r",
        period="2026-W04",
        filter=parse_command("risks module:rollout").filter,
    )
    feishu_old = {"action": "regenerate", "repo": "o/r", "week": "2026-W04"}
    assert buttons.decode(feishu_old) == Command(verb="regenerate", repo="o/r", period="2026-W04")


@pytest.mark.parametrize(
    "value",
    [
        "not json",
        "[1, 2]",
        {"verb": "frobnicate", "repo": "o/r"},
        {"repo": "o/r", "period": "2026-W04"},  # names no verb, and the platform knows none
        {"verb": "risks", "period": "2026-W99"},  # a week of no calendar
        {"verb": 7},
    ],
)
def test_anything_else_is_no_command(value: object) -> None:
    assert buttons.decode(value) is None


def test_an_unreadable_filter_means_the_whole_period() -> None:
    back = buttons.decode({"verb": "risks", "period": "2026-W04", "filter": "nokey:%%%"})
    assert back is not None
    assert back.filter.empty


def test_both_platforms_cards_carry_the_same_values() -> None:
    """Slack's and Feishu's buttons are shaped apart from the one list of values."""
    from datetime import UTC, datetime

    from service.core.digest import build_digest
    from service.core.profile import load_profile
    from service.render import feishu, slack
    from tests.conftest import load_week

    now = datetime(2026, 2, 1, tzinfo=UTC)
    digest = build_digest(
        load_week("2026-W04"), load_profile("volcengine/verl"), language="en", now=now
    )
    digest.filter = "module:rollout"
    slack_values = [json.loads(a["value"]) for a in slack.card_actions(digest)]
    feishu_values = [a["value"] for a in feishu.card_actions(digest)]
    expected = [
        v for _verb, _button, v in buttons.card_values(digest.repo, digest.window, digest.filter)
    ]
    assert slack_values == feishu_values == expected
    assert [a["verb"] for a in slack.card_actions(digest)] == [v["verb"] for v in expected]
