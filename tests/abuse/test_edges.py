"""Input at the edges, against the running app: Slack bodies bolt cannot parse and timestamps
that are not numbers (401, no traceback in the log), weeks that have not begun (a usage reply,
nothing built), Feishu events signed too long ago or with an empty event id."""

from __future__ import annotations

import time

import pytest
import requests

from service.core.weeks import parse_week
from tests.abuse.conftest import (
    FEISHU_ADMIN,
    FEISHU_ENCRYPT_KEY,
    SLACK_ADMIN,
    SLACK_SECRET,
    Service,
    feishu_message,
    said,
    snapshot,
)
from tests.fakes.feishu_signing import encrypt_feishu, event_headers
from tests.fakes.signing import sign_slack

FUTURE = "2030-W01"
FORM = {"content-type": "application/x-www-form-urlencoded"}


def no_traceback(service: Service) -> None:
    log = service.log.getvalue()
    assert "Traceback" not in log
    assert '"level": "ERROR"' not in log


@pytest.mark.parametrize(
    "body",
    [b"payload=[]", b"payload=null", b"payload=1", b'payload="x"', b"payload=%5B%5D", b"payload="],
)
@pytest.mark.parametrize("signed", [True, False])
def test_a_slack_body_bolt_cannot_use_is_401_without_a_traceback(
    service: Service, body: bytes, signed: bool
) -> None:
    before = snapshot(service.store)
    secret = SLACK_SECRET if signed else "not-the-secret"
    response = service.slack_post(body, secret=secret, headers=FORM)
    assert response.status_code == 401
    assert "went wrong" not in response.text
    assert len(service.slack.api.requests) == 0
    assert snapshot(service.store) == before
    no_traceback(service)


@pytest.mark.parametrize("stamp", ["abc", "", "1e9", "0x10", "12a", "1.5", "-1", "9" * 40])
def test_a_non_numeric_slack_timestamp_is_401_without_a_traceback(
    service: Service, stamp: str
) -> None:
    body = service.command_body("risks")
    headers = sign_slack(body, SLACK_SECRET, int(time.time()))
    headers["x-slack-request-timestamp"] = stamp
    response = service.keep(
        requests.post(f"{service.url}/slack/events", data=body, headers=headers, timeout=10)
    )
    assert response.status_code == 401
    assert len(service.slack.api.requests) == 0
    no_traceback(service)


@pytest.mark.parametrize("text", [f"regenerate {FUTURE}", f"risks {FUTURE}", f"week {FUTURE}"])
def test_a_week_that_has_not_begun_gets_the_usage_reply_in_slack(
    service: Service, text: str
) -> None:
    before = snapshot(service.store)
    response = service.command(text, user=SLACK_ADMIN)
    assert response.status_code == 200
    answer = said(response)
    assert f"{FUTURE} has not begun yet" in answer
    assert "`" + text.split()[0] in answer  # the verb's usage line
    service.settle()
    assert service.observed.kinds["slack"] == ["usage_error"]
    assert snapshot(service.store) == before
    assert service.store.list_periods("volcengine/verl")[0] != FUTURE


def test_a_week_that_has_not_begun_gets_the_usage_reply_in_feishu(service: Service) -> None:
    before = snapshot(service.store)
    event = feishu_message(f"regenerate {FUTURE}", sender=FEISHU_ADMIN)
    assert service.feishu_post(event).status_code == 200
    reply = service.replies_to(event["event"]["message"]["message_id"])
    assert f"{FUTURE} has not begun yet" in reply
    assert snapshot(service.store) == before


def test_this_week_has_begun_and_is_not_refused(service: Service) -> None:
    this = parse_week("this", "Asia/Shanghai", service.pipeline.clock()).label
    answer = said(service.command(f"risks {this}"))
    assert "has not begun" not in answer


def feishu_signed_at(service: Service, payload: dict[str, object], stamp: str) -> int:
    body = encrypt_feishu(payload, FEISHU_ENCRYPT_KEY)
    headers = event_headers(body, FEISHU_ENCRYPT_KEY, timestamp=stamp)
    response = service.keep(
        requests.post(f"{service.url}/feishu/events", data=body, headers=headers, timeout=10)
    )
    return response.status_code


@pytest.mark.parametrize("age", [6 * 60, -6 * 60, 86_400])
def test_a_feishu_event_signed_beyond_five_minutes_is_401(service: Service, age: int) -> None:
    event = feishu_message("risks")
    assert feishu_signed_at(service, event, str(int(time.time()) - age)) == 401
    service.settle()
    assert service.spawned.threads == []
    assert service.feishu.replies() == []


@pytest.mark.parametrize("stamp", ["", "abc", "1e9"])
def test_a_feishu_event_with_a_bad_timestamp_is_401(service: Service, stamp: str) -> None:
    assert feishu_signed_at(service, feishu_message("risks"), stamp) == 401
    no_traceback(service)


def test_a_feishu_event_signed_now_is_answered(service: Service) -> None:
    event = feishu_message("risks")
    assert feishu_signed_at(service, event, str(int(time.time()) - 60)) == 200
    assert "2026-W04" in service.replies_to(event["event"]["message"]["message_id"])


def test_a_feishu_event_with_an_empty_event_id_is_answered_once(service: Service) -> None:
    event = feishu_message("risks 2025-W48")
    event["header"]["event_id"] = ""
    for _ in range(3):
        assert service.feishu_post(event).status_code == 200
    message_id = event["event"]["message"]["message_id"]
    assert "2025-W48" in service.replies_to(message_id)
    service.settle()
    assert len(service.spawned.threads) == 1
    assert len(service.feishu.replies(message_id)) == 1
