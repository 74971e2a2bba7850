"""HTTP-level abuse of the running app: oversized bodies (declared or streamed) are 413 before
any handler reads them, path traversal in report URLs is 404 with nothing of the disk shown, and
a sweep of good and bad requests leaks no secret in any response or log line."""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests

from tests.abuse.conftest import (
    SECRETS,
    SLACK_ADMIN,
    Service,
    feishu_action,
    feishu_message,
    leaked_secrets,
    snapshot,
)
from tests.fakes.signing import sign_slack

TOO_BIG = 2_000_000  # the app's limit is 1 MB
TRAVERSALS = [
    "/reports/../../../../etc/passwd",
    "/reports/volcengine/verl/../../../etc/passwd",
    "/reports/volcengine/verl/..%2F..%2F..%2Fetc%2Fpasswd",
    "/reports/%2e%2e/%2e%2e/etc/passwd",
    "/reports/volcengine/%2e%2e/2026-W04",
    "/reports/volcengine/..%2fverl/2026-W04",
    "/reports/volcengine/verl/2026-W04%2F..%2F..%2Fabuse.db",
    "/reports/volcengine/verl/2026-W04/../../../abuse.db",
    "/reports/..%5c..%5cabuse.db",
    "/reports/volcengine/verl/2026-W04.html%00.db",
    "/reports/volcengine/verl/....//....//abuse.db",
    "/reports/%252e%252e/%252e%252e/etc/passwd",
    "/reports/volcengine/.git/config",
    "/reports/volcengine/verl/2026-W04.py",
    "/../abuse.db",
    "/static/../../abuse.db",
]


def raw(service: Service, method: str, target: str, body: bytes = b"",
        headers: dict[str, str] | None = None) -> tuple[int, bytes]:  # fmt: skip
    """A request sent byte for byte (no client-side path cleanup or body framing)."""
    parts = urlsplit(service.url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=10)
    try:
        conn.putrequest(method, target, skip_accept_encoding=True)
        for key, value in (headers or {}).items():
            conn.putheader(key, value)
        if body and "content-length" not in {k.lower() for k in headers or {}}:
            conn.putheader("content-length", str(len(body)))
        conn.endheaders()
        if body:
            conn.send(body)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


@pytest.mark.parametrize("path", ["/slack/events", "/feishu/events"])
def test_oversized_declared_body_is_413(service: Service, path: str) -> None:
    before = snapshot(service.store)
    body = b"x" * TOO_BIG
    headers = {**sign_slack(body, "irrelevant"), "content-type": "application/json"}
    response = service.keep(
        requests.post(f"{service.url}{path}", data=body, headers=headers, timeout=30)
    )
    assert response.status_code == 413
    assert snapshot(service.store) == before


def _chunks() -> Iterator[bytes]:
    for _ in range(TOO_BIG // 65536 + 1):
        yield b"y" * 65536


@pytest.mark.parametrize("path", ["/slack/events", "/feishu/events"])
def test_oversized_streamed_body_is_413(service: Service, path: str) -> None:
    response = service.keep(requests.post(f"{service.url}{path}", data=_chunks(), timeout=30))
    assert response.status_code == 413
    assert "chunked" in (response.request.headers.get("transfer-encoding") or "")


def test_lying_content_length_is_refused(service: Service) -> None:
    try:
        status, _ = raw(service, "POST", "/slack/events", b"x", {"content-length": "-1"})
    except ConnectionResetError:
        # The server refuses at the header and closes with our byte unread: the kernel may
        # then reset the connection before the 400 is read. Refused either way.
        status = 400
    assert status in (400, 413)
    assert requests.get(f"{service.url}/livez", timeout=10).status_code == 200
    status, _ = raw(service, "POST", "/slack/events", b"x", {"content-length": "99999999999"})
    assert status == 413


@pytest.mark.parametrize("target", TRAVERSALS)
def test_path_traversal_in_report_urls_is_404(service: Service, target: str) -> None:
    status, body = raw(service, "GET", target)
    assert status == 404
    assert b"root:" not in body
    assert b"SQLite format" not in body
    assert b"[core]" not in body


def test_the_database_file_is_next_to_nothing_served(service: Service, tmp_path: Path) -> None:
    """The store's file is real and readable, yet no URL serves it."""
    assert (tmp_path / "abuse.db").read_bytes().startswith(b"SQLite format")
    for target in ("/abuse.db", "/reports/abuse.db", "/reports/volcengine/verl/abuse.db"):
        status, body = raw(service, "GET", target)
        assert status == 404
        assert b"SQLite format" not in body


@pytest.mark.parametrize("body", [b"payload=%7Bnot-json", b"payload=%5B1%2C"])
def test_malformed_unsigned_slack_payload_is_refused_not_500(service: Service, body: bytes) -> None:
    headers = {"content-type": "application/x-www-form-urlencoded"}
    response = service.slack_post(body, secret="wrong", headers=headers)
    assert response.status_code in (400, 401)


def test_no_secret_leaks_from_a_sweep_of_requests(service: Service) -> None:
    """Good, bad, forged, failing and denied requests: no secret in any answer or log line."""
    service.command("help")
    service.command("regenerate 2026-W04")  # denied
    service.command("subscribe", user=SLACK_ADMIN)
    service.slack_post(service.command_body("risks"), secret="wrong")
    service.feishu_post(feishu_message("risks"))
    service.feishu_post(feishu_message("risks"), signing_key="wrong")
    service.feishu_post(feishu_message("risks", token="forged"))
    service.feishu_post(feishu_action("regenerate", "ou_reader", "om_none"))
    service.feishu_post({"type": "url_verification", "challenge": "c", "token": "forged"})
    service.keep(requests.post(f"{service.url}/feishu/events", data=b"{not json", timeout=10))
    service.keep(requests.get(f"{service.url}/healthz", timeout=10))
    service.keep(requests.get(f"{service.url}/reports", timeout=10))
    service.keep(requests.get(f"{service.url}/reports/volcengine/verl/2026-W04", timeout=10))
    service.keep(requests.get(f"{service.url}/reports/volcengine/verl/1999-W01", timeout=10))
    service.feishu.expire_token()  # the sender meets an expired token and fetches a new one
    service.feishu_post(feishu_message("top 3"))
    service.settle()  # the answers after the HTTP answers: slash listeners, Feishu threads
    assert len(service.spawned.threads) == 2  # the two authentic Feishu messages
    assert len(service.responses) >= 15
    assert all(r.status_code < 500 for r in service.responses)
    assert leaked_secrets(service) == []
    log = service.log.getvalue()
    assert log  # the log was captured
    assert all(secret not in log for secret in SECRETS)
