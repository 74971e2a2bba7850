"""The log as an attacker would like to write it, against the running app: a request path
carrying CR, LF or ESC can't start a forged line in the text log, and at DEBUG (where urllib3
and slack_sdk print the URLs they call) the custom-bot webhook token and the secret part of a
Slack response_url are masked."""

from __future__ import annotations

import io
import logging
import re
import secrets
from collections.abc import Iterator
from urllib.parse import quote

import pytest
import requests

from service.feishu.webhook import WebhookSender
from service.observe.logs import build_handler
from tests.abuse.conftest import SLACK_ADMIN, Service, seeded_digest
from tests.fakes.feishu import serve_feishu
from tests.waiting import wait_for

RECORD_START = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3} [A-Z]+ ")
FORGED = "2026-12-02 18:00:00,000 ERROR service.pipeline.jobs [-] run failed: pay me"


@pytest.fixture
def text_log() -> Iterator[io.StringIO]:
    """The production text handler on the root logger, at DEBUG."""
    stream = io.StringIO()
    handler = build_handler("text", stream)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    yield stream
    root.removeHandler(handler)
    root.setLevel(old_level)


@pytest.mark.parametrize("breaker", ["%0a", "%0d", "%0d%0a", "%1b[2K%0d", "%e2%80%a8", "%c2%85"])
def test_a_request_path_cannot_forge_a_log_line(
    service: Service, text_log: io.StringIO, breaker: str
) -> None:
    path = f"/reports/x{breaker}{quote(FORGED)}"
    response = service.keep(requests.get(service.url + path, timeout=10))
    assert response.status_code == 404

    def access_lines() -> list[str]:
        lines = text_log.getvalue().splitlines()
        return [
            line for line in lines if "service.runtime.web.access" in line and "/reports/x" in line
        ]

    # The access line is written once the response has gone out, so it may trail the reply.
    wait_for(lambda: len(access_lines()) > 0)
    lines = text_log.getvalue().splitlines()
    assert not any(line.startswith(FORGED[:23]) for line in lines)
    assert all(RECORD_START.match(line) or line.startswith("  ") for line in lines)
    assert len(access_lines()) == 1
    assert "\x1b" not in text_log.getvalue()


def test_webhook_token_and_response_url_secret_are_masked_at_debug(
    service: Service, text_log: io.StringIO
) -> None:
    token = f"{secrets.token_hex(4)}-{secrets.token_hex(2)}-{secrets.token_hex(6)}"
    with serve_feishu(hook_token=token) as feishu:
        sender = WebhookSender(
            url=feishu.hook_url, secret=None, public_base_url="http://r.test", language="en"
        )
        sender.post("feishu", seeded_digest("2026-W04"), idempotency_key="k")
        assert len(feishu.hook_cards) == 1
    hook = service.slack.response_url()
    secret_part = hook.rsplit("/", 1)[1]
    body = service.command_body("regenerate 2026-W04", user=SLACK_ADMIN, response_url=hook)
    assert service.slack_post(body).status_code == 200
    wait_for(lambda: len(service.slack.responses_to(hook)) >= 1)
    log = text_log.getvalue()
    assert "/open-apis/bot/v2/hook/***" in log  # urllib3 did log the call, masked
    assert "Sending a request - url: " in log  # slack_sdk did log the response_url, masked
    assert token not in log
    assert secret_part not in log
    assert secret_part not in service.log.getvalue()  # nor in the JSON log
