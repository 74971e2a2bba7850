"""Unsigned junk (issue 19, item 7): 100 KB of nested JSON on /slack/events and /feishu/events
used to overflow the JSON parser into a 500 with a traceback, and a non-ASCII X-Slack-Signature
made bolt's compare_digest raise into an "incident" answer. Each is refused with 401 before
anything runs: no traceback or incident in the log, nothing sent to a platform, the store as
it was."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
import requests

from service.feishu import crypto
from tests.abuse.conftest import (
    FEISHU_ENCRYPT_KEY,
    SLACK_SECRET,
    Service,
    feishu_message,
    snapshot,
)
from tests.fakes.feishu_signing import encrypt_feishu, event_headers
from tests.fakes.signing import sign_slack

DEPTH = 50_000  # 100 KB of brackets: far deeper than Python's recursion limit
NESTED_LIST = "[" * DEPTH + "]" * DEPTH
NESTED_OBJECT = '{"a":' * (DEPTH // 2) + "1" + "}" * (DEPTH // 2)
REFUSED = (400, 401)


def quiet(service: Service) -> None:
    """No traceback, no incident, nothing sent to Slack or Feishu."""
    log = service.log.getvalue()
    assert "Traceback" not in log
    assert "incident" not in log
    assert service.slack.api.requests == []
    assert not [r for r in service.feishu.api.requests if "/im/v1/messages" in r.path]


def post(service: Service, path: str, body: bytes, headers: dict[str, str]) -> requests.Response:
    return service.keep(
        requests.post(f"{service.url}{path}", data=body, headers=headers, timeout=30)
    )


@pytest.mark.parametrize("junk", [NESTED_LIST, NESTED_OBJECT], ids=["list", "object"])
@pytest.mark.parametrize("shape", ["json", "form payload", "signed form payload"])
def test_nested_json_on_the_slack_endpoint_is_refused(
    service: Service, junk: str, shape: str
) -> None:
    before = snapshot(service.store)
    if shape == "json":
        body, headers = junk.encode(), {"Content-Type": "application/json"}
    else:
        body = b"payload=" + quote(junk).encode()
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        if shape.startswith("signed"):
            headers.update(sign_slack(body, SLACK_SECRET))
    response = post(service, "/slack/events", body, headers)
    assert response.status_code in REFUSED
    assert "Traceback" not in response.text
    quiet(service)
    assert snapshot(service.store) == before


@pytest.mark.parametrize("junk", [NESTED_LIST, NESTED_OBJECT], ids=["list", "object"])
@pytest.mark.parametrize("shape", ["plain", "signed", "encrypted and signed"])
def test_nested_json_on_the_feishu_endpoint_is_refused(
    service: Service, junk: str, shape: str
) -> None:
    before = snapshot(service.store)
    body = junk.encode()
    if shape == "encrypted and signed":  # right key: decrypted, and then too deep to parse
        iv = b"0123456789abcdef"
        body = json.dumps({"encrypt": crypto.encrypt_event(body, FEISHU_ENCRYPT_KEY, iv)}).encode()
    headers = {"Content-Type": "application/json"}
    if shape != "plain":
        headers = event_headers(body, FEISHU_ENCRYPT_KEY)
    response = post(service, "/feishu/events", body, headers)
    assert response.status_code in REFUSED
    assert "Traceback" not in response.text
    quiet(service)
    assert snapshot(service.store) == before


@pytest.mark.parametrize(
    "signature",
    [
        "v0=" + "é" * 64,  # latin-1, as Starlette decodes header bytes
        ("v0=" + "密" * 21).encode("utf-8"),  # raw UTF-8 bytes
        "v0=" + "a" * 63 + "\u00ff",
        "v0=\u00a0" + "0" * 63,
    ],
    ids=["latin-1", "utf-8", "last byte", "nbsp"],
)
def test_a_non_ascii_slack_signature_is_401_not_an_incident(
    service: Service, signature: str | bytes
) -> None:
    before = snapshot(service.store)
    body = service.command_body("risks")
    headers: dict[str, str | bytes] = {
        **sign_slack(body, SLACK_SECRET),
        "X-Slack-Signature": signature,
    }
    response = service.keep(
        requests.post(f"{service.url}/slack/events", data=body, headers=headers, timeout=10)
    )
    assert response.status_code == 401
    assert "incident" not in response.text
    quiet(service)
    assert snapshot(service.store) == before


@pytest.mark.parametrize("header", ["X-Lark-Signature", "X-Lark-Request-Timestamp"])
def test_non_ascii_feishu_signature_headers_are_401(service: Service, header: str) -> None:
    before = snapshot(service.store)
    body = encrypt_feishu(feishu_message("risks"), FEISHU_ENCRYPT_KEY)
    headers = event_headers(body, FEISHU_ENCRYPT_KEY)
    headers[header] = "é١٧" * 8 if header.endswith("Signature") else "١٧٠٠٠٠٠٠٠٠"
    response = service.keep(
        requests.post(
            f"{service.url}/feishu/events",
            data=body,
            headers={k: v.encode("utf-8") for k, v in headers.items()},
            timeout=10,
        )
    )
    assert response.status_code == 401
    quiet(service)
    assert snapshot(service.store) == before


def test_a_signed_command_still_answers_after_the_junk(service: Service) -> None:
    """The control: junk first, then an ordinary signed command gets its answer."""
    post(service, "/slack/events", NESTED_LIST.encode(), {"Content-Type": "application/json"})
    response = service.command("risks")
    assert response.status_code == 200
    assert "volcengine/verl" in response.json()["text"]
