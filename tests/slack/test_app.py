"""The Slack app over real HTTP: signed requests to POST /slack/events on the running web app,
answers in the ack and through response_url, buttons, regenerate after the ack."""

from __future__ import annotations

import json
import time
from typing import Any, cast

import pytest

from service.core.models import Digest
from service.delivery.outbox import DeliveryLog, deliver
from service.pipeline.jobs import Pipeline
from service.render.limits import payload_violations
from service.render.slack import ACTION_REGENERATE, ACTION_REPORT, ACTION_RISKS
from service.slack.socket_mode import start_socket_mode
from service.store.repository import Store
from tests.commands.builders import real_digest
from tests.fakes.slack import FakeSlack, action_body
from tests.periods import period
from tests.slack.conftest import (
    ADMIN,
    ADMIN2,
    REPO,
    SECRET,
    USER,
    Rebuilds,
    command_fields,
    post_signed,
    send_command,
)
from tests.waiting import wait_for

SUBCOMMANDS = [
    ("help", "verl-week commands"),
    ("risks", "Risks · volcengine/verl · 2026-W04"),
    ("risks 2025-W47 high", "Risks · volcengine/verl · 2025-W47"),
    ("pr #4280", "#4280"),
    ("top 3", "Top 3 PRs"),
    ("summary 2026-W03", "Summary · volcengine/verl"),
    ("trends", "Trends · volcengine/verl"),
    ("week 2025-W48", "volcengine/verl"),
    ("nonsense", "I don't know the command"),
    ("pr abc", "is not a PR number"),
]


def texts(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False)


def test_good_signature_gets_the_answer_in_the_ack(web: str, slack: FakeSlack) -> None:
    response = send_command(web, slack, "risks")
    assert response.status_code == 200
    payload = response.json()
    assert payload["response_type"] == "ephemeral"
    assert payload_violations(payload) == []
    assert "Risks · volcengine/verl · 2026-W04" in payload["text"]


@pytest.mark.parametrize(("text", "expected"), SUBCOMMANDS)
def test_every_read_subcommand_answers(
    web: str, slack: FakeSlack, text: str, expected: str
) -> None:
    response = send_command(web, slack, f"  {text.upper() if text == 'help' else text} ")
    assert response.status_code == 200
    payload = response.json()
    assert expected in texts(payload)
    assert payload_violations(payload) == []
    assert "Traceback" not in texts(payload)


def test_public_answers_go_in_channel(web: str, slack: FakeSlack) -> None:
    payload = send_command(web, slack, "top 2 public").json()
    assert payload["response_type"] == "in_channel"


def test_bad_signature_and_stale_timestamp_get_401(
    web: str, slack: FakeSlack, store: Store
) -> None:
    from tests.fakes.slack import form_body

    body = form_body(command_fields(slack, "subscribe", user=ADMIN))
    assert post_signed(web, body, secret="wrong-secret").status_code == 401
    stale = int(time.time()) - 301
    assert post_signed(web, body, timestamp=stale).status_code == 401
    tampered = post_signed(web, body, headers={"x-slack-signature": "v0=" + "0" * 64})
    assert tampered.status_code == 401
    assert store.subscriptions(REPO) == []  # nothing changed
    assert slack.responses_to(command_fields(slack, "")["response_url"]) == []


def test_subscribe_and_unsubscribe_by_admin(web: str, slack: FakeSlack, store: Store) -> None:
    assert (
        "now gets the weekly digest"
        in send_command(web, slack, "subscribe", user=ADMIN).json()["text"]
    )
    assert store.subscriptions(REPO, "slack") == [("slack", "C1")]
    assert "already" in send_command(web, slack, "subscribe", user=ADMIN).json()["text"]
    assert "no longer" in send_command(web, slack, "unsubscribe", user=ADMIN).json()["text"]
    assert store.subscriptions(REPO) == []


@pytest.mark.parametrize("text", ["subscribe", "unsubscribe", "regenerate"])
def test_admin_commands_denied_to_others(
    web: str, slack: FakeSlack, store: Store, rebuilds: Rebuilds, text: str
) -> None:
    payload = send_command(web, slack, text, user=USER).json()
    assert "Only admins" in payload["text"]
    assert store.subscriptions(REPO) == []
    assert rebuilds.calls == []


def _post_card(pipeline: Pipeline, digest: Digest) -> None:
    log = cast(DeliveryLog, pipeline.store)  # Store satisfies it structurally (frozen records)
    outcomes = deliver(digest, ["slack:C1"], pipeline.senders, log)
    assert [o.action for o in outcomes] == ["posted"]


def test_regenerate_acks_first_then_rebuilds_and_updates_the_card(
    web: str, slack: FakeSlack, pipeline: Pipeline, rebuilds: Rebuilds
) -> None:
    _post_card(pipeline, pipeline.store.get_digest(REPO, period("2026-W04"), "en") or real_digest())
    hook = slack.response_url()
    response = send_command(web, slack, "regenerate 2026-W04", user=ADMIN, response_url=hook)
    assert response.status_code == 200
    assert "Regenerating volcengine/verl 2026-W04" in response.json()["text"]
    assert rebuilds.finished == []  # the ack came back before the rebuild's work
    wait_for(rebuilds.entered.is_set)
    # a second admin at the same time: told it is running, nothing runs twice
    second = send_command(web, slack, "regenerate 2026-W04", user=ADMIN2)
    assert "already being regenerated" in second.json()["text"]
    rebuilds.gate.set()
    wait_for(lambda: len(slack.responses_to(hook)) == 1)
    result = slack.responses_to(hook)[0]
    assert "Regenerated volcengine/verl 2026-W04" in result["text"]
    assert result["replace_original"] is False
    assert rebuilds.calls == [(REPO, "2026-W04", ADMIN)]
    assert [o.action for o in rebuilds.finished[0].outcomes] == ["updated"]
    card = slack.messages("C1")[0]
    assert card["edits"] == 1
    assert len(slack.calls("chat.postMessage")) == 1
    assert len(slack.calls("chat.update")) == 1
    assert slack.violations == []


def test_regenerate_is_rate_limited_per_user(
    web: str, slack: FakeSlack, rebuilds: Rebuilds
) -> None:
    rebuilds.gate.set()
    hook = slack.response_url()
    send_command(web, slack, "regenerate 2026-W03", user=ADMIN, response_url=hook)
    wait_for(lambda: len(slack.responses_to(hook)) == 1)
    again = send_command(web, slack, "regenerate 2026-W03", user=ADMIN).json()
    assert "try again in" in again["text"]
    assert len(rebuilds.calls) == 1


def block_actions(
    slack: FakeSlack, action_id: str, *, user: str, hook: str, week: str = "2026-W04"
) -> dict[str, Any]:
    return {
        "type": "block_actions",
        "team": {"id": "T0001", "domain": "example"},
        "user": {"id": user, "username": "someone", "team_id": "T0001"},
        "api_app_id": "A0001",
        "token": "deprecated",
        "container": {
            "type": "message",
            "message_ts": "1700000000.000001",
            "channel_id": "C1",
            "is_ephemeral": False,
        },
        "trigger_id": "13345224609.738474920.8088930838d88f008e0",
        "channel": {"id": "C1", "name": "general"},
        "message": {"type": "message", "ts": "1700000000.000001", "text": "card"},
        "response_url": hook,
        "actions": [
            {
                "action_id": action_id,
                "block_id": "b1",
                "type": "button",
                "value": json.dumps({"repo": REPO, "week": week}),
                "action_ts": "1700000001.000000",
            }
        ],
    }


def test_risks_button_answers_ephemerally(web: str, slack: FakeSlack) -> None:
    hook = slack.response_url()
    body = action_body(block_actions(slack, ACTION_RISKS, user=USER, hook=hook, week="2025-W47"))
    assert post_signed(web, body).status_code == 200
    wait_for(lambda: len(slack.responses_to(hook)) == 1)
    reply = slack.responses_to(hook)[0]
    assert reply["response_type"] == "ephemeral"
    assert reply["replace_original"] is False
    assert "Risks · volcengine/verl · 2025-W47" in reply["text"]


def test_regenerate_button_runs_the_command_code(
    web: str, slack: FakeSlack, pipeline: Pipeline, rebuilds: Rebuilds
) -> None:
    _post_card(pipeline, pipeline.store.get_digest(REPO, period("2026-W04"), "en") or real_digest())
    denied_hook = slack.response_url()
    post_signed(
        web, action_body(block_actions(slack, ACTION_REGENERATE, user=USER, hook=denied_hook))
    )
    wait_for(lambda: len(slack.responses_to(denied_hook)) == 1)
    assert "Only admins" in slack.responses_to(denied_hook)[0]["text"]
    rebuilds.gate.set()
    hook = slack.response_url()
    response = post_signed(
        web, action_body(block_actions(slack, ACTION_REGENERATE, user=ADMIN, hook=hook))
    )
    assert response.status_code == 200
    wait_for(lambda: len(slack.responses_to(hook)) == 2)
    started, done = slack.responses_to(hook)
    assert "Regenerating" in started["text"]
    assert "Regenerated" in done["text"]
    assert slack.messages("C1")[0]["edits"] == 1


def test_report_button_is_acknowledged(web: str, slack: FakeSlack) -> None:
    hook = slack.response_url()
    response = post_signed(
        web, action_body(block_actions(slack, ACTION_REPORT, user=USER, hook=hook))
    )
    assert response.status_code == 200
    assert slack.responses_to(hook) == []


def test_live_pr_lookup_failure_is_an_answer_not_a_trace(web: str, slack: FakeSlack) -> None:
    payload = send_command(web, slack, "pr 999999").json()
    # this app has no GitHub to ask: the answer does not claim it asked
    assert "in no stored digest" in payload["text"]
    assert "GitHub was not asked" in payload["text"]


def test_socket_mode_handler_is_built(slack: FakeSlack, web: str) -> None:
    from slack_bolt import App

    from service.slack.sender import build_web_client
    from tests.fakes.slack import BOT_TOKEN

    app = App(
        client=build_web_client(BOT_TOKEN, slack.api_url),
        signing_secret=SECRET,
        token_verification_enabled=False,
    )
    handler = start_socket_mode(app, "xapp-1-test", connect=False).handler
    assert handler.app is app
    assert handler.client.app_token == "xapp-1-test"


def test_unexpected_failure_answers_with_an_incident_id(
    web: str, slack: FakeSlack, store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    from sqlalchemy import text

    with store.engine.begin() as conn:  # a corrupt row: the digest no longer validates
        conn.execute(
            text("UPDATE digests SET data = '{\"broken\": true}' WHERE period = '2026-W04'")
        )
    with caplog.at_level("ERROR"):
        response = send_command(web, slack, "risks 2026-W04")
    assert response.status_code == 200
    payload = response.json()
    assert "Something went wrong on our side (incident " in payload["text"]
    assert "Traceback" not in payload["text"]
    incident = payload["text"].split("incident ")[1].split(")")[0]
    assert any(getattr(r, "incident", None) == incident and r.exc_info for r in caplog.records)


def test_store_failure_is_told_as_a_retry_hint(web: str, slack: FakeSlack, store: Store) -> None:
    from sqlalchemy import text

    with store.engine.begin() as conn:
        conn.execute(text("DROP TABLE digests"))
    payload = send_command(web, slack, "risks").json()
    assert "temporarily unavailable" in payload["text"]


def test_command_text_containing_payload_still_answers(web: str, slack: FakeSlack) -> None:
    # bolt alone parses this body to {} and answers 404 (platform-facts §2.6)
    response = send_command(web, slack, "risks payload")
    assert response.status_code == 200
    assert "can't use `payload` here" in response.json()["text"]
