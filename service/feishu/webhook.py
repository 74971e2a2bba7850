"""WebhookSender: the weekly card through a Feishu/Lark custom group bot (bot/v2/hook, §3.2).

Platform "feishu-webhook", target "default" (`webhook:feishu` before). A custom bot can't edit
what it sent, can't receive callbacks and has no message ids: update() posts a fresh card, ids
are our own markers, and only the 完整报告 link button works in its cards (callback buttons
need the app bot).
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

import requests

from service.core.models import Digest
from service.errors import (
    PlatformRejectedError,
    RateLimitError,
    UnconfirmedSendError,
    UnreachableError,
)
from service.feishu.crypto import webhook_sign
from service.feishu.sender import check_card, report_url_for
from service.render import feishu as render
from service.render.feishu_limits import webhook_body

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT_SECONDS = 10.0
CODE_OK = 0
CODE_RATE_LIMITED = 11232  # custom bot: 100/min, 5/s per bot (§3.2)
HTTP_TOO_MANY_REQUESTS = 429
MARKER_PREFIX = "webhook-"


class WebhookSender:
    """Posts the card to one group through its custom bot URL, signed when a secret is set."""

    platform = "feishu-webhook"
    can_confirm = False  # no message id, no dedupe: a repeat is a second card in the group

    def __init__(
        self,
        *,
        url: str,
        secret: str | None,
        public_base_url: str,
        language: str,
        session: requests.Session | None = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        clock: Callable[[], float] = time.time,
        report_url: Callable[[str, str], str] | None = None,
    ) -> None:
        self.url = url
        self._secret = secret or None
        self.report_url = report_url_for(public_base_url, report_url)
        self.language = language
        self.session = session or requests.Session()
        self.timeout = timeout
        self.clock = clock

    def post(
        self, target: str, digest: Digest, *, idempotency_key: str, language: str | None = None
    ) -> str:
        """Post the card; returns a marker id (custom bots return no message id)."""
        card = render.render_digest(
            digest,
            report_url=self.report_url(digest),
            lang=language or self.language,
            via="webhook",
        )
        card = _without_callbacks(card)
        check_card(card, via="webhook", target=target)
        self._send(card)
        return f"{MARKER_PREFIX}{uuid.uuid4().hex[:16]}"

    def update(
        self, target: str, message_id: str, digest: Digest, *, language: str | None = None
    ) -> str:
        """A custom bot can't edit: post a fresh card and return its marker."""
        return self.post(target, digest, idempotency_key=message_id, language=language)

    def find_posted(self, target: str, idempotency_key: str) -> str | None:
        return None

    def probe(self) -> int:
        """Send a signed message with no content, which the custom bot refuses without posting
        anything: Feishu checks the signature first, so 19021 means the signature (or its
        absence) is refused, and 9499 (bad request) means it passed. Returns Feishu's code."""
        timestamp, sign = None, None
        if self._secret:
            timestamp = str(int(self.clock()))
            sign = webhook_sign(timestamp, self._secret)
        body = {key: value for key, value in (("timestamp", timestamp), ("sign", sign)) if value}
        try:
            response = self.session.post(self.url, json=body, timeout=self.timeout)
            payload = response.json()
        except (requests.RequestException, ValueError) as exc:
            raise UnreachableError(f"Feishu webhook unreachable: {type(exc).__name__}") from exc
        code = payload.get("code", payload.get("StatusCode")) if isinstance(payload, dict) else None
        return int(code) if isinstance(code, int) else -1

    def _send(self, card: dict[str, Any]) -> None:
        timestamp, sign = None, None
        if self._secret:
            timestamp = str(int(self.clock()))
            sign = webhook_sign(timestamp, self._secret)
        body = webhook_body(card, timestamp=timestamp, sign=sign)
        headers = {"Content-Type": "application/json; charset=utf-8"}
        try:
            response = self.session.post(self.url, data=body, headers=headers, timeout=self.timeout)
        except requests.ReadTimeout as exc:
            raise UnconfirmedSendError(
                "Feishu webhook took the card and did not answer in time: it may have been posted"
            ) from exc
        except requests.RequestException as exc:
            raise UnreachableError(f"Feishu webhook unreachable: {type(exc).__name__}") from exc
        _check_answer(response)


def _without_callbacks(card: dict[str, Any]) -> dict[str, Any]:
    """Drop callback buttons: a custom bot's cards can only open URLs (§3.2)."""
    elements = card["body"]["elements"]
    for element in elements:
        for column in element.get("columns", []):
            column["elements"] = [e for e in column["elements"] if not _is_callback(e)]
        if "columns" in element:
            element["columns"] = [c for c in element["columns"] if c["elements"]]
    return card


def _is_callback(element: dict[str, Any]) -> bool:
    return any(b.get("type") == "callback" for b in element.get("behaviors", []))


def _check_answer(response: requests.Response) -> None:
    try:
        payload = response.json()
    except ValueError as exc:
        raise UnreachableError(f"Feishu webhook answered HTTP {response.status_code}") from exc
    code = payload.get("code", payload.get("StatusCode"))
    if response.status_code == HTTP_TOO_MANY_REQUESTS or code == CODE_RATE_LIMITED:
        raise RateLimitError("Feishu webhook rate limit reached; try again in a minute")
    if code != CODE_OK:
        message = str(payload.get("msg") or payload.get("StatusMessage") or "rejected")
        logger.warning("feishu webhook rejected", extra={"code": code, "feishu_msg": message})
        raise PlatformRejectedError(f"Feishu webhook rejected the card: {message}", code=str(code))
