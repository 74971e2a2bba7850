"""A non-admin trying `regenerate` / `subscribe` / `unsubscribe` from Slack, from Feishu and
through the card buttons: a clear denial, no rebuild, no card edited, the store unchanged. An
admin doing the same (the control) does change things, so the checks can see a change."""

from __future__ import annotations

import json

import pytest

from service.core.weeks import parse_week
from service.pipeline import jobs
from service.render.slack import ACTION_REGENERATE
from tests.abuse.conftest import (
    FEISHU_ADMIN,
    FEISHU_USER,
    REPO,
    SLACK_ADMIN,
    USER,
    Service,
    feishu_action,
    feishu_message,
    said,
    snapshot,
)
from tests.fakes.slack import action_body
from tests.waiting import wait_for

WEEK = "2026-W04"
DENIED = "Only admins may run"


def post_week(service: Service) -> None:
    """The week's cards as the scheduler posts them (one Slack message, one Feishu card)."""
    window = parse_week(WEEK, "Asia/Shanghai", service.pipeline.clock())
    result = jobs.run_week(service.pipeline, REPO, window, trigger="schedule")
    assert result.outcome == "ok", result.error
    assert len(service.slack.messages("C1")) == 1
    assert len(service.feishu.posted("oc_group1")) == 1


def edits(service: Service) -> tuple[int, int]:
    slack_edits = sum(m["edits"] for m in service.slack.messages("C1"))
    feishu_edits = sum(len(m.versions) for m in service.feishu.posted())
    return slack_edits, feishu_edits


def button(service: Service, user: str, hook: str) -> bytes:
    payload = {
        "type": "block_actions",
        "team": {"id": "T0001", "domain": "example"},
        "user": {"id": user, "username": "someone", "team_id": "T0001"},
        "api_app_id": "A0001",
        "container": {"type": "message", "message_ts": "1700000000.000001", "channel_id": "C1"},
        "channel": {"id": "C1", "name": "general"},
        "message": {"type": "message", "ts": "1700000000.000001", "text": "card"},
        "response_url": hook,
        "actions": [
            {
                "action_id": ACTION_REGENERATE,
                "block_id": "b1",
                "type": "button",
                "value": json.dumps({"repo": REPO, "week": WEEK}),
                "action_ts": "1700000001.000000",
            }
        ],
    }
    return action_body(payload)


@pytest.mark.parametrize("text", [f"regenerate {WEEK}", "subscribe", "unsubscribe", "REGENERATE"])
def test_slack_non_admin_commands_are_denied(service: Service, text: str) -> None:
    post_week(service)
    before = snapshot(service.store)
    response = service.command(text, user=USER)
    assert response.status_code == 200
    assert DENIED in said(response)
    assert response.json()["response_type"] == "ephemeral"
    service.settle()  # the listener has answered: a rebuild would have started after the ack
    assert service.observed.kinds["slack"] == ["denied"]
    assert snapshot(service.store) == before
    assert edits(service) == (0, 0)


def test_slack_non_admin_button_is_denied_and_admin_button_regenerates(service: Service) -> None:
    post_week(service)
    before = snapshot(service.store)
    hook = service.slack.response_url()
    assert service.slack_post(button(service, USER, hook)).status_code == 200
    wait_for(lambda: len(service.slack.responses_to(hook)) == 1)
    assert DENIED in service.slack.responses_to(hook)[0]["text"]
    # the denial was the button's answer: its listener does nothing after it (a rebuild is
    # started only by a `regenerate_started` answer), so the store is checked now
    assert snapshot(service.store) == before
    assert edits(service) == (0, 0)
    # the control: the admin's click rebuilds and edits both cards in place
    admin_hook = service.slack.response_url()
    assert service.slack_post(button(service, SLACK_ADMIN, admin_hook)).status_code == 200
    wait_for(lambda: edits(service) == (1, 1))
    assert snapshot(service.store) != before
    assert len(service.slack.messages("C1")) == 1


@pytest.mark.parametrize("text", [f"regenerate {WEEK}", "subscribe", "unsubscribe"])
def test_feishu_non_admin_messages_are_denied(service: Service, text: str) -> None:
    post_week(service)
    before = snapshot(service.store)
    event = feishu_message(text, sender=FEISHU_USER)
    assert service.feishu_post(event).status_code == 200
    reply = service.replies_to(event["event"]["message"]["message_id"])
    assert DENIED in reply
    service.settle()
    assert service.observed.kinds["feishu"] == ["denied"]
    assert snapshot(service.store) == before
    assert edits(service) == (0, 0)


def test_feishu_non_admin_button_gets_a_toast_and_admin_button_regenerates(
    service: Service,
) -> None:
    post_week(service)
    before = snapshot(service.store)
    card_id = service.feishu.posted("oc_group1")[0].message_id
    response = service.feishu_post(feishu_action("regenerate", FEISHU_USER, card_id))
    assert response.status_code == 200
    toast = response.json()["toast"]
    assert toast["type"] == "error"
    assert "Only admins" in toast["content"]
    service.settle()
    assert service.spawned.threads == []  # the toast was the whole answer: no work started
    assert snapshot(service.store) == before
    assert edits(service) == (0, 0)
    admin = service.feishu_post(feishu_action("regenerate", FEISHU_ADMIN, card_id))
    assert admin.json()["toast"]["type"] == "success"
    wait_for(lambda: edits(service) == (1, 1))
    assert snapshot(service.store) != before


def test_admin_subscribe_is_the_control(service: Service) -> None:
    before = snapshot(service.store)
    response = service.command("subscribe", user=SLACK_ADMIN)
    assert DENIED not in said(response)
    assert snapshot(service.store).subscriptions == (("slack", "C1"),)
    assert snapshot(service.store) != before
