"""A verb added in one module (tests/channels/echo_verb.py) and its catalog keys, registered
through the registry, is answered end to end: a signed slash command to POST /slack/events on
the service wired as `serve` wires it, in the channel's language, and `help` lists it; as a
button of the registry, the Slack and Feishu cards show it and a click on it is answered."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

from service.commands import registry
from service.render import feishu, slack
from service.render.environment import templates_dir
from service.render.strings import load_catalog
from tests.channels import echo_verb
from tests.channels.conftest import (
    FEISHU_TOKEN,
    REPO,
    SLACK_SECRET,
    USER,
    WEEK,
    Wired,
    card_text,
)
from tests.fakes import feishu_events
from tests.fakes.signing import sign_slack
from tests.fakes.slack import action_body
from tests.periods import period
from tests.waiting import wait_for


@pytest.fixture
def echo(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The verb registered, and its keys in the catalogs, for one test."""
    folder = str(templates_dir() / "strings")
    for lang, keys in echo_verb.CATALOG.items():
        catalog = load_catalog(folder, lang)
        for key, text in keys.items():
            monkeypatch.setitem(catalog, key, text)
    registry.register(echo_verb.SPEC)
    try:
        yield
    finally:
        del registry.VERBS[echo_verb.NAME]
        registry.answer_adapter.cache_clear()


def test_the_new_verb_answers_through_slack(echo: None, wired: Wired) -> None:
    answer = wired.slash("echo", channel="C_EN")
    assert answer["response_type"] == "ephemeral"
    assert f"{USER} asked in C_EN about {REPO}" in card_text(answer)


def test_the_new_verb_answers_in_the_channels_language(echo: None, wired: Wired) -> None:
    answer = wired.slash("echo", channel="C_ZH")
    assert f"{USER} 在 C_ZH 问了 {REPO}" in card_text(answer)


def test_help_lists_the_new_verb(echo: None, wired: Wired) -> None:
    text = card_text(wired.slash("help", channel="C_EN"))
    assert "who asks, where" in text


def test_the_verb_is_gone_once_unregistered(wired: Wired) -> None:
    text = card_text(wired.slash("echo", channel="C_EN"))
    assert "asked in" not in text
    assert echo_verb.NAME not in registry.VERBS


def callback_values(card: Any) -> list[dict[str, Any]]:
    """The values of every callback button of a card, in order."""
    found: list[dict[str, Any]] = []
    if isinstance(card, dict):
        if card.get("type") == "callback":
            found.append(card["value"])
        for child in card.values():
            found += callback_values(child)
    elif isinstance(card, list):
        for child in card:
            found += callback_values(child)
    return found


def test_the_feishu_card_shows_every_button_verb_and_the_new_one_answers(
    echo: None, wired: Wired
) -> None:
    wired.build_week()
    digest = wired.pipeline.store.get_digest(REPO, period(WEEK), "zh")
    assert digest is not None
    card = feishu.render_digest(digest, report_url="https://reports.test/r", lang="en")
    values = callback_values(card)
    assert [v["verb"] for v in values] == ["risks", "regenerate", echo_verb.NAME]
    assert "Echo" in card_text(card)
    event = feishu_events.action_event("x", "ou_reader", "om_card", token=FEISHU_TOKEN)
    event["event"]["action"]["value"] = values[-1]
    response = requests.post(f"{wired.url}/feishu/events", json=event, timeout=15)
    assert response.status_code == 200
    assert response.json()["toast"]["content"] == "回答如下。"  # the service's language
    wait_for(lambda: bool(wired.feishu.replies("om_card")))
    reply = card_text(wired.feishu.replies("om_card")[0].card)
    # oc_group1 speaks Chinese; the card escapes the underscores of the ids
    assert f"ou&#95;reader 在 oc&#95;group1 问了 {REPO}" in reply


def test_the_slack_card_shows_every_button_verb_and_the_new_one_answers(
    echo: None, wired: Wired
) -> None:
    wired.build_week()
    digest = wired.pipeline.store.get_digest(REPO, period(WEEK), "zh")
    assert digest is not None
    card = slack.render_digest(digest, report_url="https://reports.test/r", lang="en")
    actions = [e for b in card.blocks if b["type"] == "actions" for e in b["elements"]]
    ids = [e["action_id"] for e in actions if "value" in e]
    assert ids == ["verl_week_risks", "verl_week_regenerate", f"verl_week_{echo_verb.NAME}"]
    [button] = [e for e in actions if e["action_id"] == f"verl_week_{echo_verb.NAME}"]
    assert button["text"]["text"] == "Echo"
    hook = wired.slack.response_url()
    payload = {
        "type": "block_actions",
        "team": {"id": "T0001"},
        "user": {"id": USER},
        "api_app_id": "A0001",
        "channel": {"id": "C_EN"},
        "container": {"type": "message", "channel_id": "C_EN", "message_ts": "1.2"},
        "response_url": hook,
        "trigger_id": "1.2.3",
        "actions": [{"action_id": button["action_id"], "type": "button", "value": button["value"]}],
    }
    body = action_body(payload)
    headers = sign_slack(body, SLACK_SECRET)
    response = requests.post(f"{wired.url}/slack/events", data=body, headers=headers, timeout=15)
    assert response.status_code == 200
    wait_for(lambda: len(wired.slack.responses_to(hook)) == 1)
    reply = wired.slack.responses_to(hook)[0]
    assert f"{USER} asked in C_EN about {REPO}" in card_text(reply)


def test_a_slack_button_of_a_verb_no_one_knows_gets_a_helpful_answer(wired: Wired) -> None:
    hook = wired.slack.response_url()
    payload = {
        "type": "block_actions",
        "user": {"id": USER},
        "channel": {"id": "C_EN"},
        "response_url": hook,
        "actions": [{"action_id": "verl_week_gone", "type": "button", "value": "{}"}],
    }
    body = action_body(payload)
    headers = sign_slack(body, SLACK_SECRET)
    response = requests.post(f"{wired.url}/slack/events", data=body, headers=headers, timeout=15)
    assert response.status_code == 200
    wait_for(lambda: len(wired.slack.responses_to(hook)) == 1)
    assert "gone" in card_text(wired.slack.responses_to(hook)[0])
