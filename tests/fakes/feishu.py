"""FakeFeishu: the Feishu/Lark open platform on 127.0.0.1, as platform-facts.md §3 describes it.

tenant_access_token with expiry (and `expire_token()` to revoke every issued token, answered
with 99991663 afterwards), im/v1 message create (uuid dedupe), reply and PATCH (shared cards
only), the custom-bot webhook with its sign check, the 30 KB / 20 KB body limits, 429 +
99991400 on demand. Every card it receives is also checked with `feishu_violations`.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from service.render.feishu_limits import feishu_violations
from service.render.limits import FEISHU
from tests.fakes._server import FakeAPI, Recorded, Reply, serve
from tests.fakes.feishu_signing import sign_feishu_webhook

TOKEN_PATH = "/open-apis/auth/v3/tenant_access_token/internal"
MESSAGES = "/open-apis/im/v1/messages"
HOOK_PREFIX = "/open-apis/bot/v2/hook/"
BOT_INFO = "/open-apis/bot/v3/info"
CHATS = "/open-apis/im/v1/chats/"
BOT_OPEN_ID = "ou_bot"
TOKEN_TTL = 7200
SAME_TOKEN_WHILE = 1800  # "≥ 30 minutes left: the same token comes back"
SIGN_WINDOW = 3600
HOLD_SECONDS = 60.0  # the longest a held webhook answer waits for its release


def _error(code: int, msg: str, status: int = 400) -> Reply:
    return status, {}, {"code": code, "msg": msg}


@dataclass
class Message:
    message_id: str
    chat_id: str
    card: dict[str, Any]
    uuid: str | None = None
    reply_to: str | None = None
    versions: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class FakeFeishu:
    app_id: str = "cli_test"
    app_secret: str = "app-secret"
    hook_token: str = "hook-token"
    hook_secret: str | None = None
    chats: set[str] = field(default_factory=lambda: {"oc_group1", "oc_group2"})
    api: FakeAPI = field(default_factory=FakeAPI)
    tokens: dict[str, float] = field(default_factory=dict)  # token → expires at (monotonic)
    revoked: set[str] = field(default_factory=set)
    messages: dict[str, Message] = field(default_factory=dict)
    hook_cards: list[dict[str, Any]] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    # set by hold_hook_answers(): the webhook keeps the card, then answers only once released
    hook_gate: threading.Event | None = None
    hook_received: threading.Event = field(default_factory=threading.Event)
    _ids: Iterator[int] = field(default_factory=itertools.count)
    _token_ids: Iterator[int] = field(default_factory=itertools.count)

    @property
    def url(self) -> str:
        return self.api.url

    @property
    def hook_url(self) -> str:
        return f"{self.api.url}{HOOK_PREFIX}{self.hook_token}"

    # --- scripted behaviour ----------------------------------------------------------------

    def expire_token(self) -> None:
        """Every token issued so far is now expired: API calls with it get 99991663."""
        self.revoked.update(self.tokens)

    def rate_limit(self, reset: int = 1, times: int = 1) -> None:
        self.api.fail_next(
            429,
            {"x-ogw-ratelimit-limit": "50", "x-ogw-ratelimit-reset": str(reset)},
            {"code": 99991400, "msg": "request trigger frequency limit"},
            times=times,
        )

    def hold_hook_answers(self) -> threading.Event:
        """From now on the webhook posts each card it gets and then keeps its answer until the
        returned event is set: the sender's process can die between the send and its record."""
        self.hook_gate = threading.Event()
        self.hook_received.clear()
        return self.hook_gate

    def posted(self, chat_id: str | None = None) -> list[Message]:
        return [
            m
            for m in self.messages.values()
            if m.reply_to is None and (chat_id is None or m.chat_id == chat_id)
        ]

    def replies(self, to: str | None = None) -> list[Message]:
        return [m for m in self.messages.values() if m.reply_to and to in (None, m.reply_to)]

    def token_fetches(self) -> int:
        return len(self.api.calls("POST", TOKEN_PATH))

    # --- routes ------------------------------------------------------------------------------

    def install(self) -> None:
        self.api.route("POST", TOKEN_PATH, self._token)
        self.api.route("POST", MESSAGES, self._create)
        self.api.route("GET", BOT_INFO, self._bot_info)
        self.api.route_prefix("GET", CHATS, self._in_chat)
        self.api.route_prefix("POST", MESSAGES + "/", self._reply)
        self.api.route_prefix("PATCH", MESSAGES + "/", self._patch)
        self.api.route_prefix("POST", HOOK_PREFIX, self._hook)

    def _token(self, rec: Recorded) -> Reply:
        body = rec.json() or {}
        if body.get("app_id") != self.app_id or body.get("app_secret") != self.app_secret:
            return 200, {}, {"code": 10014, "msg": "app secret invalid"}
        now = time.monotonic()
        live = [(t, exp) for t, exp in self.tokens.items() if t not in self.revoked and exp > now]
        if live and max(exp for _, exp in live) - now >= SAME_TOKEN_WHILE:
            token, expires = max(live, key=lambda item: item[1])
        else:
            token, expires = f"t-{next(self._token_ids):04d}", now + TOKEN_TTL
            self.tokens[token] = expires
        return (
            200,
            {},
            {"code": 0, "msg": "ok", "tenant_access_token": token, "expire": int(expires - now)},
        )

    def _auth(self, rec: Recorded) -> Reply | None:
        header = rec.header("authorization") or ""
        token = header.removeprefix("Bearer ")
        if not header.startswith("Bearer ") or token not in self.tokens:
            return _error(99991661, "Missing access token for authorization", 400)
        if token in self.revoked or self.tokens[token] <= time.monotonic():
            return _error(99991663, "Invalid access token for authorization", 400)
        return None

    def _card_from(self, rec: Recorded, limit: int) -> tuple[dict[str, Any] | None, Reply | None]:
        if len(rec.body) > limit:
            return None, _error(230025, "The message content exceeds the length limit")
        body = rec.json() or {}
        if body.get("msg_type", "interactive") != "interactive" or not isinstance(
            body.get("content"), str
        ):
            return None, _error(230001, "invalid message content")
        card = json.loads(body["content"])
        if card.get("schema") != "2.0" or card.get("config", {}).get("update_multi") is not True:
            return None, _error(230001, "invalid message content: not a shared 2.0 card")
        if any(k.startswith("_") for k in _keys(card)):
            return None, _error(200621, "card has unknown properties")
        self.violations.extend(feishu_violations(card, via="app"))
        return card, None

    def _bot_info(self, rec: Recorded) -> Reply:
        denied = self._auth(rec)
        if denied:
            return denied
        bot = {"activate_status": 2, "app_name": "verl-week", "open_id": BOT_OPEN_ID}
        return 200, {}, {"code": 0, "msg": "ok", "bot": bot}

    def _in_chat(self, rec: Recorded) -> Reply:
        """GET /im/v1/chats/:chat_id/members/is_in_chat: is the bot (the token's app) in it."""
        denied = self._auth(rec)
        if denied:
            return denied
        chat_id, _, rest = rec.path.removeprefix(CHATS).partition("/")
        if rest != "members/is_in_chat":
            return _error(1254000, "unsupported path in the fake", 404)
        return 200, {}, {"code": 0, "msg": "success", "data": {"is_in_chat": chat_id in self.chats}}

    def _new_id(self) -> str:
        return f"om_{next(self._ids):06d}"

    def _create(self, rec: Recorded) -> Reply:
        denied = self._auth(rec)
        if denied:
            return denied
        if rec.query.get("receive_id_type") != ["chat_id"]:
            return _error(99992402, "field validation failed: receive_id_type")
        body = rec.json() or {}
        uuid = body.get("uuid")
        for message in self.messages.values():
            if uuid and message.uuid == uuid:
                return self._ok(message)  # same uuid within the hour: delivered once
        card, bad = self._card_from(rec, FEISHU.app_message_body_bytes)
        if bad:
            return bad
        if body.get("receive_id") not in self.chats:
            return _error(230002, "Bot/User can NOT be out of the chat.")
        message = Message(self._new_id(), body["receive_id"], card or {}, uuid=uuid)
        self.messages[message.message_id] = message
        return self._ok(message)

    def _reply(self, rec: Recorded) -> Reply:
        denied = self._auth(rec)
        if denied:
            return denied
        parts = rec.path.removeprefix(MESSAGES + "/").split("/")
        if len(parts) != 2 or parts[1] != "reply":
            return 404, {}, {"code": 404, "msg": "not found"}
        card, bad = self._card_from(rec, FEISHU.app_message_body_bytes)
        if bad:
            return bad
        message = Message(self._new_id(), "oc_reply", card or {}, reply_to=parts[0])
        self.messages[message.message_id] = message
        return self._ok(message)

    def _patch(self, rec: Recorded) -> Reply:
        denied = self._auth(rec)
        if denied:
            return denied
        message_id = rec.path.removeprefix(MESSAGES + "/")
        message = self.messages.get(message_id)
        if message is None:
            return _error(230011, "The message was not found.")
        card, bad = self._card_from(rec, FEISHU.app_message_body_bytes)
        if bad:
            return bad
        message.versions.append(message.card)
        message.card = card or {}
        return 200, {}, {"code": 0, "msg": "success", "data": {}}

    @staticmethod
    def _ok(message: Message) -> Reply:
        return (
            200,
            {},
            {
                "code": 0,
                "msg": "success",
                "data": {
                    "message_id": message.message_id,
                    "chat_id": message.chat_id,
                    "msg_type": "interactive",
                },
            },
        )

    def _hook(self, rec: Recorded) -> Reply:
        if rec.path.removeprefix(HOOK_PREFIX) != self.hook_token:
            return (
                200,
                {},
                {"code": 19001, "msg": "param invalid: incoming webhook access token invalid"},
            )
        if len(rec.body) > FEISHU.webhook_body_bytes:
            return 200, {}, {"code": 9499, "msg": "Bad Request: body exceeds 20 KB"}
        body = rec.json() or {}
        if self.hook_secret is not None:
            stamp = str(body.get("timestamp", ""))
            fresh = stamp.isdigit() and abs(time.time() - int(stamp)) < SIGN_WINDOW
            if not fresh or body.get("sign") != sign_feishu_webhook(stamp, self.hook_secret):
                return (
                    200,
                    {},
                    {
                        "code": 19021,
                        "msg": "sign match fail or timestamp is not within one hour from current time",  # noqa: E501
                    },
                )
        card = body.get("card")
        if body.get("msg_type") != "interactive" or not isinstance(card, dict):
            return 200, {}, {"code": 9499, "msg": "Bad Request"}
        if any(k.startswith("_") for k in _keys(card)):
            return 200, {}, {"code": 9499, "msg": "Bad Request: unknown card property"}
        self.violations.extend(feishu_violations(card, via="webhook"))
        self.hook_cards.append(card)
        self.hook_received.set()
        if self.hook_gate is not None:
            self.hook_gate.wait(HOLD_SECONDS)
        return (
            200,
            {},
            {"StatusCode": 0, "StatusMessage": "success", "code": 0, "msg": "success", "data": {}},
        )


def _keys(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, child in value.items():
            yield key
            yield from _keys(child)
    elif isinstance(value, list):
        for child in value:
            yield from _keys(child)


@contextmanager
def serve_feishu(**options: Any) -> Iterator[FakeFeishu]:
    fake = FakeFeishu(**options)
    fake.install()
    with serve(fake.api):
        yield fake
