"""The few Feishu/Lark open-platform calls we make (im/v1 messages), over requests (§3.3).

Every answer with `code != 0` becomes a service error here: rate limits (HTTP 429, code
99991400) → RateLimitError; an expired or invalid tenant token → one refresh and one retry,
then AuthRefusedError; anything else → PlatformRejectedError with Feishu's code kept.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from enum import IntEnum, StrEnum
from typing import Any

import requests

from service.errors import (
    AuthRefusedError,
    PlatformRejectedError,
    RateLimitError,
    UnreachableError,
)
from service.feishu.auth import DEFAULT_TIMEOUT_SECONDS, TenantTokenCache
from service.render.feishu_limits import (
    app_message_body,
    patch_message_body,
    reply_message_body,
)
from service.render.limits import FEISHU, FeishuLimits

logger = logging.getLogger(__name__)

HTTP_TOO_MANY_REQUESTS = 429
RATE_LIMIT_RESET_HEADER = "x-ogw-ratelimit-reset"  # seconds (frequency-control doc, §3.3)
JSON_UTF8 = "application/json; charset=utf-8"


class Path(StrEnum):
    MESSAGES = "/open-apis/im/v1/messages"
    MESSAGE = "/open-apis/im/v1/messages/{message_id}"
    REPLY = "/open-apis/im/v1/messages/{message_id}/reply"
    BOT_INFO = "/open-apis/bot/v3/info"
    IN_CHAT = "/open-apis/im/v1/chats/{chat_id}/members/is_in_chat"


class Code(IntEnum):
    """Feishu answer codes we act on (generic error codes; §3.3)."""

    OK = 0
    RATE_LIMITED = 99991400
    TOKEN_MISSING = 99991661
    TOKEN_INVALID = 99991663
    TOKEN_INVALID_USER = 99991668


TOKEN_CODES = frozenset({Code.TOKEN_MISSING, Code.TOKEN_INVALID, Code.TOKEN_INVALID_USER})


class FeishuApi:
    """im/v1 message create / reply / PATCH as the app bot; returns message ids."""

    def __init__(
        self,
        tokens: TenantTokenCache,
        *,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        limits: FeishuLimits = FEISHU,
    ) -> None:
        self.tokens = tokens
        self.base_url = tokens.base_url
        self.session = tokens.session
        self.timeout = timeout
        self.limits = limits

    def create_card(self, chat_id: str, card: dict[str, Any], *, uuid: str | None) -> str:
        """Post `card` to a group chat; `uuid` makes Feishu drop a repeat within an hour."""
        body = app_message_body(
            card, receive_id=chat_id, uuid=uuid[: self.limits.uuid_chars] if uuid else None
        )
        answer = self._call("POST", Path.MESSAGES, body, params={"receive_id_type": "chat_id"})
        return _message_id(answer)

    def reply_card(self, message_id: str, card: dict[str, Any]) -> str:
        """Reply to a message (a command a user sent) with `card`."""
        path = Path.REPLY.format(message_id=message_id)
        return _message_id(self._call("POST", path, reply_message_body(card)))

    def patch_card(self, message_id: str, card: dict[str, Any]) -> str:
        """Replace the card of a message we sent (shared card, sent ≤ 14 days ago)."""
        self._call("PATCH", Path.MESSAGE.format(message_id=message_id), patch_message_body(card))
        return message_id

    def bot_open_id(self) -> str | None:
        """The bot's own open_id (to tell a mention of the bot from other mentions)."""
        bot = self._call("GET", Path.BOT_INFO, b"").get("bot")
        open_id = bot.get("open_id") if isinstance(bot, dict) else None
        return str(open_id) if open_id else None

    def bot_in_chat(self, chat_id: str) -> bool:
        """Whether the bot is a member of group `chat_id` (im:chat:readonly or
        im:chat.members:read); PlatformRejectedError names Feishu's reason otherwise."""
        data = self._call("GET", Path.IN_CHAT.format(chat_id=chat_id), b"").get("data")
        return bool(data.get("is_in_chat")) if isinstance(data, dict) else False

    def _call(
        self, method: str, path: str, body: bytes, params: dict[str, str] | None = None
    ) -> dict[str, Any]:
        token = self.tokens.token()
        payload = self._send(method, path, body, token, params)
        if payload.get("code") in TOKEN_CODES:
            # The token expired or was revoked before our cached expiry: refresh once, retry once.
            self.tokens.invalidate(token)
            payload = self._send(method, path, body, self.tokens.token(), params)
            if payload.get("code") in TOKEN_CODES:
                raise AuthRefusedError("Feishu refused a fresh tenant_access_token")
        return payload

    def _send(
        self, method: str, path: str, body: bytes, token: str, params: dict[str, str] | None
    ) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}", "Content-Type": JSON_UTF8}
        try:
            response = self.session.request(
                method,
                self.base_url + path,
                data=body or None,
                headers=headers,
                params=params,
                timeout=self.timeout,
            )
        except requests.RequestException as exc:
            raise UnreachableError(f"Feishu is unreachable: {type(exc).__name__}") from exc
        payload = _json(response)
        _raise_for(response, payload, reading=method == "GET")
        return payload


def _message_id(payload: dict[str, Any]) -> str:
    data = payload.get("data")
    message_id = data.get("message_id") if isinstance(data, dict) else None
    if not message_id:
        raise PlatformRejectedError("Feishu answered without a message id", code="no_message_id")
    return str(message_id)


def _json(response: requests.Response) -> dict[str, Any]:
    try:
        payload = response.json()
    except ValueError as exc:
        raise UnreachableError(f"Feishu answered HTTP {response.status_code} without JSON") from exc
    return payload if isinstance(payload, dict) else {}


def _reset_at(response: requests.Response) -> datetime | None:
    value = response.headers.get(RATE_LIMIT_RESET_HEADER, "")
    return datetime.now(UTC) + timedelta(seconds=int(value)) if value.isdigit() else None


def _raise_for(response: requests.Response, payload: dict[str, Any], *, reading: bool) -> None:
    """Raise for Feishu's refusal; `reading`: a read-only call (a GET), which has no message."""
    code = payload.get("code")
    if response.status_code == HTTP_TOO_MANY_REQUESTS or code == Code.RATE_LIMITED:
        raise RateLimitError("Feishu rate limit reached; try again shortly", _reset_at(response))
    if code in (Code.OK, *TOKEN_CODES):
        return
    message = str(payload.get("msg") or f"HTTP {response.status_code}")
    logger.warning("feishu rejected a call", extra={"code": code, "feishu_msg": message})
    what = "Feishu refused the request" if reading else "Feishu rejected the message"
    raise PlatformRejectedError(f"{what}: {message} (code {code})", code=str(code))
