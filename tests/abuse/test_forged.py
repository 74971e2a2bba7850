"""Replayed and forged Slack and Feishu requests against the running app: 401, nothing answered,
nothing sent to the platforms, the store untouched."""

from __future__ import annotations

import time

import pytest
import requests

from tests.abuse.conftest import (
    FEISHU_ENCRYPT_KEY,
    SLACK_ADMIN,
    SLACK_SECRET,
    Service,
    feishu_action,
    feishu_message,
    said,
    snapshot,
)
from tests.fakes.feishu_signing import encrypt_feishu, event_headers
from tests.fakes.signing import sign_slack

STALE_SECONDS = 6 * 60  # Slack's window is 5 minutes


def slack_sent(service: Service) -> int:
    """Requests the app made to Slack (API calls and response_url posts)."""
    return len(service.slack.api.requests)


def test_a_replayed_slack_request_beyond_five_minutes_is_401(service: Service) -> None:
    before = snapshot(service.store)
    body = service.command_body("regenerate 2026-W04", user=SLACK_ADMIN)
    recorded = sign_slack(body, SLACK_SECRET, int(time.time()) - STALE_SECONDS)
    for _ in range(3):  # the same bytes and signature, replayed
        replay = service.keep(
            requests.post(f"{service.url}/slack/events", data=body, headers=recorded, timeout=10)
        )
        assert replay.status_code == 401
        assert "regenerat" not in replay.text.lower()
    assert slack_sent(service) == 0
    assert snapshot(service.store) == before


def test_a_fresh_slack_request_is_answered(service: Service) -> None:
    """The control: the same kind of request, signed now, gets its answer."""
    response = service.command("risks")
    assert response.status_code == 200
    assert "Risks · volcengine/verl · 2026-W04" in said(response)


@pytest.mark.parametrize(
    "forgery",
    ["wrong secret", "tampered body", "no signature", "no timestamp", "future", "not v0"],
)
def test_forged_slack_requests_are_401(service: Service, forgery: str) -> None:
    before = snapshot(service.store)
    body = service.command_body("subscribe", user=SLACK_ADMIN)
    now = int(time.time())
    headers = sign_slack(body, SLACK_SECRET, now)
    if forgery == "wrong secret":
        headers = sign_slack(body, "not-the-secret", now)
    elif forgery == "tampered body":
        body = body.replace(b"subscribe", b"unsubscribe")
    elif forgery == "no signature":
        del headers["x-slack-signature"]
    elif forgery == "no timestamp":
        del headers["x-slack-request-timestamp"]
    elif forgery == "future":
        headers = sign_slack(body, SLACK_SECRET, now + STALE_SECONDS)
    else:
        headers["x-slack-signature"] = headers["x-slack-signature"].replace("v0=", "v1=")
    response = service.keep(
        requests.post(f"{service.url}/slack/events", data=body, headers=headers, timeout=10)
    )
    assert response.status_code == 401
    assert slack_sent(service) == 0
    assert snapshot(service.store) == before


def test_forged_slack_button_is_401(service: Service) -> None:
    before = snapshot(service.store)
    payload = (
        b'payload={"type":"block_actions","user":{"id":"UADMIN"},'
        b'"actions":[{"action_id":"regenerate","value":"{}"}]}'
    )
    response = service.slack_post(payload, secret="guessed")
    assert response.status_code == 401
    assert snapshot(service.store) == before


def test_feishu_wrong_verification_token_is_401(service: Service) -> None:
    before = snapshot(service.store)
    event = feishu_message("regenerate 2026-W04", sender="ou_admin", token="forged-token")
    response = service.feishu_post(event)
    assert response.status_code == 401
    action = feishu_action("regenerate", "ou_admin", "om_x")
    action["header"]["token"] = "forged-token"
    assert service.feishu_post(action).status_code == 401
    service.settle()
    assert service.spawned.threads == []  # refused before any work was started
    assert service.feishu.replies() == []
    assert snapshot(service.store) == before


@pytest.mark.parametrize("key", ["wrong-key", None])
def test_feishu_wrong_or_missing_signature_is_401(service: Service, key: str | None) -> None:
    before = snapshot(service.store)
    response = service.feishu_post(feishu_message("risks"), signing_key=key)
    assert response.status_code == 401
    service.settle()
    assert service.spawned.threads == []
    assert service.feishu.replies() == []
    assert snapshot(service.store) == before


def test_feishu_tampered_ciphertext_is_401(service: Service) -> None:
    body = encrypt_feishu(feishu_message("risks"), FEISHU_ENCRYPT_KEY)
    headers = event_headers(body, FEISHU_ENCRYPT_KEY)
    tampered = body.replace(b'"encrypt": "', b'"encrypt": "AAAA')
    response = service.keep(
        requests.post(f"{service.url}/feishu/events", data=tampered, headers=headers, timeout=10)
    )
    assert response.status_code == 401


def test_feishu_event_encrypted_with_another_key_is_401(service: Service) -> None:
    body = encrypt_feishu(feishu_message("risks"), "another-key")
    response = service.keep(
        requests.post(
            f"{service.url}/feishu/events",
            data=body,
            headers=event_headers(body, FEISHU_ENCRYPT_KEY),
            timeout=10,
        )
    )
    assert response.status_code == 401


def test_a_replayed_feishu_event_is_answered_once(service: Service) -> None:
    """Feishu delivers at least once: the same event id is acted on once, the rest are 200 {}."""
    event = feishu_message("risks 2025-W48")
    for _ in range(3):
        assert service.feishu_post(event).status_code == 200
    message_id = event["event"]["message"]["message_id"]
    assert "2025-W48" in service.replies_to(message_id)
    service.settle()
    assert len(service.spawned.threads) == 1  # the replays were dropped before any work
    assert len(service.feishu.replies(message_id)) == 1
