"""Slash commands after the first one skip bolt's per-request dispatch (service/slack/lane.py,
issue 30): the same signature check, the same answers in the ack, the same work after it (a
regenerate, a failure told with its incident id). The first command of an app goes through
bolt, which calls auth.test; until that has succeeded the lane takes nothing."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from slack_bolt import App

from service.commands.answer import EngineContext
from service.runtime.web import build_web_app
from service.slack.app import build_slack_app, build_slack_endpoint, command_lane
from service.slack.sender import build_web_client
from service.store.repository import Store
from tests.fakes.asgi import run_app
from tests.fakes.slack import BOT_TOKEN, FakeSlack, form_body
from tests.slack.conftest import ADMIN, REPO, SECRET, Rebuilds, command_fields, post_signed
from tests.waiting import wait_for


@pytest.fixture
def app(slack: FakeSlack, engine: EngineContext, rebuilds: Rebuilds) -> App:
    client = build_web_client(BOT_TOKEN, slack.api_url)
    return build_slack_app(
        client=client, signing_secret=SECRET, engine=engine, regenerate=rebuilds, language="en"
    )


@pytest.fixture
def served(app: App, store: Store) -> Iterator[str]:
    endpoints = {"/slack/events": build_slack_endpoint(app)}
    with run_app(build_web_app(store=store, endpoints=endpoints, language="en")) as url:
        yield url


def _send(url: str, slack: FakeSlack, text: str, **kwargs: str) -> tuple[int, str, object]:
    response = post_signed(url, form_body(command_fields(slack, text, **kwargs)))
    return response.status_code, response.headers.get("content-type", ""), response.json()


def test_the_lane_takes_our_commands_once_bolt_has_authorized(
    app: App, served: str, slack: FakeSlack
) -> None:
    lane = command_lane(app)
    assert lane is not None
    fields = command_fields(slack, "risks")
    ours = form_body(fields)
    other = form_body({**fields, "command": "/other"})
    assert lane.fields(ours) is None  # nothing authorized yet: bolt calls auth.test first
    _send(served, slack, "help")
    assert len(slack.calls("auth.test")) == 1
    assert lane.fields(ours) == fields
    assert lane.fields(other) is None
    assert lane.fields(form_body({"payload": "{}"})) is None
    assert lane.fields(b'{"command": "/verl-week"}') is None


@pytest.mark.parametrize(
    "text", ["risks", "risks 2025-W47 high", "top 3 public", "pr #4280", "pr 999999", "nonsense"]
)
def test_the_lane_answers_as_bolt_did(served: str, slack: FakeSlack, text: str) -> None:
    through_bolt = _send(served, slack, text)
    through_lane = _send(served, slack, text)
    assert through_bolt[0] == 200
    assert through_lane == through_bolt
    assert len(slack.calls("auth.test")) == 1


def test_the_lane_refuses_bad_signatures(served: str, slack: FakeSlack, store: Store) -> None:
    _send(served, slack, "help")
    body = form_body(command_fields(slack, "subscribe", user=ADMIN))
    assert post_signed(served, body, secret="wrong-secret").status_code == 401
    assert post_signed(served, body, timestamp=int(time.time()) - 301).status_code == 401
    forged = post_signed(served, body, headers={"x-slack-signature": "v0=" + "0" * 64})
    assert forged.status_code == 401
    unsigned = post_signed(served, body, headers={"x-slack-signature": ""})
    assert unsigned.status_code == 401
    assert store.subscriptions(REPO) == []


def test_a_regenerate_through_the_lane_acks_first(
    served: str, slack: FakeSlack, rebuilds: Rebuilds
) -> None:
    _send(served, slack, "help")
    hook = slack.response_url()
    status, _, payload = _send(served, slack, "regenerate 2026-W04", user=ADMIN, response_url=hook)
    assert status == 200
    assert "Regenerating volcengine/verl 2026-W04" in str(payload)
    assert rebuilds.finished == []  # the ack came back before the rebuild's work
    rebuilds.gate.set()
    wait_for(lambda: len(slack.responses_to(hook)) == 1)
    assert "Regenerated volcengine/verl 2026-W04" in slack.responses_to(hook)[0]["text"]


def test_a_failure_in_the_lane_answers_with_an_incident_id(
    served: str, slack: FakeSlack, store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    from sqlalchemy import text

    _send(served, slack, "help")
    with store.engine.begin() as conn:  # a corrupt row: the digest no longer validates
        conn.execute(
            text("UPDATE digests SET data = '{\"broken\": true}' WHERE period = '2026-W04'")
        )
    with caplog.at_level("ERROR"):
        status, kind, payload = _send(served, slack, "risks 2026-W04")
    assert (status, kind) == (200, "application/json")
    said = str(payload)
    assert "Something went wrong on our side (incident " in said
    incident = said.split("incident ")[1].split(")")[0]
    assert any(getattr(r, "incident", None) == incident and r.exc_info for r in caplog.records)
