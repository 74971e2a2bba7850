"""POST /feishu/events: Feishu/Lark event subscription and card callbacks (§3.5-§3.7).

Order of checks, before anything is acted on: X-Lark-Signature over the raw body when an
Encrypt Key is set (401 on mismatch, before parsing) and its timestamp within 5 minutes of ours
(a recorded request can't be replayed later); AES decryption; the Verification Token
(`header.token` in schema 2.0, `token` in url_verification / v1); the event seen before
(`header.event_id`, or when that is empty the message id or the payload's digest) → 200 and
nothing else (Feishu delivers at least once). Then:

- url_verification → {"challenge": …};
- im.message.receive_v1 (p2p, or a group message that mentions the bot) → the command engine
  → a reply card, sent from a background thread so the HTTP answer is immediate;
- card.action.trigger (the card buttons) → a toast within Feishu's 3 s, the work afterwards.

The same FeishuEvents handles events pushed over Feishu's long connection (longconn.py, with
FEISHU_EVENT_MODE=websocket): `handle_pushed` skips only the HTTP checks, which that
authenticated connection has no use for.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from service.commands import buttons
from service.commands.answer import (
    Answer,
    AnswerKind,
    Caller,
    EngineContext,
    answer,
    unavailable,
)
from service.commands.flow import CommandFlow, ObserveCommand, Regenerate
from service.commands.grammar import Command
from service.commands.kinds import Said
from service.commands.registry import card_buttons
from service.errors import AuthRefusedError, ServiceError, StoreUnavailableError
from service.feishu import crypto
from service.feishu.api import FeishuApi
from service.render import feishu as render
from service.render.environment import translator

logger = logging.getLogger(__name__)

Endpoint = Callable[[Request], Awaitable[Response]]
Spawn = Callable[[Callable[[], None]], None]

PLATFORM = "feishu"
URL_VERIFICATION = "url_verification"
MESSAGE_RECEIVED = "im.message.receive_v1"
CARD_ACTION = "card.action.trigger"
HEADER_TIMESTAMP = "x-lark-request-timestamp"
HEADER_NONCE = "x-lark-request-nonce"
HEADER_SIGNATURE = "x-lark-signature"
HTTP_UNAUTHORIZED = 401
GROUP_CHAT = "group"
# the same replay window Slack and lark-oapi's own examples use for signed requests
SIGNATURE_WINDOW_SECONDS = 5 * 60
TIMESTAMP_RE = re.compile(r"^[0-9]{1,12}$")
PRIVATE_CHAT = "p2p"
# the verbs a card's buttons stand for (commands/buttons.py writes and reads their values)
REGENERATE = "regenerate"


class EventLog(Protocol):
    def remember_event(self, event_id: str, platform: str) -> bool: ...


def spawn_thread(work: Callable[[], None]) -> None:
    """Run `work` after the HTTP answer: a daemon thread (Feishu wants 200 within 3 s)."""
    threading.Thread(target=work, name="feishu-event", daemon=True).start()


class RejectedError(Exception):
    """The request is not from Feishu (or not for us): answered 401, nothing done."""


@dataclass
class FeishuEvents:
    """The endpoint's state: who we are, how to answer, where to send replies."""

    events: EventLog
    api: FeishuApi
    engine: EngineContext
    verification_token: str | None = None
    encrypt_key: str | None = None
    bot_open_id: str | None = None
    regenerate: Regenerate | None = None
    spawn: Spawn = spawn_thread
    observe: ObserveCommand | None = None
    clock: Callable[[], float] = time.time
    flow: CommandFlow = field(init=False)

    def __post_init__(self) -> None:
        self.flow = CommandFlow(
            engine=self.engine, platform=PLATFORM, regenerate=self.regenerate, observe=self.observe
        )

    # --- authentication ------------------------------------------------------------------

    def open(self, headers: dict[str, str], body: bytes) -> dict[str, Any]:
        """Check signature, decrypt, check token; the event as a dict, or RejectedError."""
        signed = self._check_signature(headers, body)
        try:
            payload: dict[str, Any] = json.loads(body)
        except (ValueError, RecursionError) as exc:  # deep nesting overflows the parser
            raise RejectedError("body is not JSON") from exc
        if not isinstance(payload, dict):
            raise RejectedError("body is not a JSON object")
        if "encrypt" in payload:
            payload = self._decrypt(str(payload["encrypt"]))
        if self.encrypt_key and not signed and payload.get("type") != URL_VERIFICATION:
            # lark-oapi skips the signature only for url_verification; so do we.
            raise RejectedError("unsigned event")
        self._check_token(payload)
        return payload

    def _check_signature(self, headers: dict[str, str], body: bytes) -> bool:
        if not self.encrypt_key:
            return False
        signature = headers.get(HEADER_SIGNATURE)
        if signature is None:
            return False
        timestamp = headers.get(HEADER_TIMESTAMP, "")
        matches = crypto.signature_matches(
            signature,
            timestamp=timestamp,
            nonce=headers.get(HEADER_NONCE, ""),
            encrypt_key=self.encrypt_key,
            body=body,
        )
        if not matches:
            raise RejectedError("bad signature")
        if not TIMESTAMP_RE.match(timestamp):
            raise RejectedError("bad timestamp")
        if abs(self.clock() - int(timestamp)) > SIGNATURE_WINDOW_SECONDS:
            raise RejectedError("stale timestamp")
        return True

    def _decrypt(self, encrypted: str) -> dict[str, Any]:
        if not self.encrypt_key:
            raise RejectedError("encrypted event but no FEISHU_ENCRYPT_KEY")
        try:
            payload = json.loads(crypto.decrypt_event(encrypted, self.encrypt_key))
        except (AuthRefusedError, ValueError, RecursionError) as exc:
            raise RejectedError("cannot decrypt") from exc
        if not isinstance(payload, dict):
            raise RejectedError("decrypted event is not an object")
        return payload

    def _check_token(self, payload: dict[str, Any]) -> None:
        header = payload.get("header")
        token = header.get("token") if isinstance(header, dict) else payload.get("token")
        if self.verification_token:
            if not isinstance(token, str) or not crypto.hmac_equal(token, self.verification_token):
                raise RejectedError("bad verification token")
        elif not self.encrypt_key:
            raise RejectedError("neither FEISHU_VERIFICATION_TOKEN nor FEISHU_ENCRYPT_KEY is set")

    # --- dispatch --------------------------------------------------------------------------

    async def respond(self, request: Request) -> Response:
        """The endpoint: 401 for anything not from Feishu, else the event's JSON answer."""
        body = await request.body()
        headers = {k.lower(): v for k, v in request.headers.items()}
        try:
            payload = self.open(headers, body)
        except RejectedError as exc:
            logger.warning("feishu event rejected", extra={"reason": str(exc)})
            return JSONResponse({"msg": "unauthorized"}, status_code=HTTP_UNAUTHORIZED)
        return JSONResponse(await run_in_threadpool(self.handle_pushed, payload))

    def handle_pushed(self, payload: dict[str, Any]) -> dict[str, Any]:
        """`handle` for an event already authenticated (a signed request, or one pushed over
        the long connection): a failure is logged and answered `{}`, never raised."""
        try:
            return self.handle(payload)
        except ServiceError as exc:
            logger.warning("feishu event not handled", extra={"error": exc.message})
        except Exception:
            # Answer 200 anyway: the event id is remembered, so a retry would be dropped.
            logger.exception("feishu event failed", extra={"incident": uuid.uuid4().hex[:12]})
        return {}

    def handle(self, payload: dict[str, Any]) -> dict[str, Any]:
        """The JSON answer to an authenticated event (runs in a worker thread)."""
        if payload.get("type") == URL_VERIFICATION:
            return {"challenge": payload.get("challenge", "")}
        header = payload.get("header") or {}
        event = payload.get("event") or {}
        event_id = dedupe_key(payload)
        try:
            fresh = self.events.remember_event(event_id, PLATFORM)
        except StoreUnavailableError:  # logged once per outage by the store
            return self._unavailable(header.get("event_type"), event)
        if not fresh:
            logger.info("feishu event already handled", extra={"event_id": event_id})
            return {}
        event_type = header.get("event_type")
        if event_type == MESSAGE_RECEIVED:
            self._on_message(event)
        elif event_type == CARD_ACTION:
            return self._on_action(event)
        return {}

    def _unavailable(self, event_type: object, event: dict[str, Any]) -> dict[str, Any]:
        """The database is down (no event can be remembered): a message addressed to us gets
        "temporarily unavailable" as its reply, a button a toast saying so; nothing is run."""
        if event_type == CARD_ACTION:
            return self._toast("warning", "cmd.error.unavailable")
        message = event.get("message") or {}
        if event_type == MESSAGE_RECEIVED and self._addressed(message):
            message_id = str(message.get("message_id") or "")
            self.spawn(lambda: self._safe_reply(message_id, unavailable()))
        return {}

    # --- messages --------------------------------------------------------------------------

    def _on_message(self, event: dict[str, Any]) -> None:
        message = event.get("message") or {}
        sender = event.get("sender") or {}
        if sender.get("sender_type") not in (None, "user") or not self._addressed(message):
            return
        text = command_text(message)
        if text is None:
            return
        caller = Caller(
            user_id=str((sender.get("sender_id") or {}).get("open_id") or ""),
            platform=PLATFORM,
            channel=str(message.get("chat_id") or ""),
        )
        message_id = str(message.get("message_id") or "")
        self.spawn(lambda: self._answer_message(text, caller, message_id))

    def _addressed(self, message: dict[str, Any]) -> bool:
        """A p2p message always; a group message only when it mentions the bot."""
        if message.get("chat_type") == PRIVATE_CHAT:
            return True
        mentions = message.get("mentions") or []
        if message.get("chat_type") != GROUP_CHAT or not mentions:
            return False
        if self.bot_open_id is None:
            return True  # only @bot messages reach us without im:message.group_msg (§3.6)
        return any((m.get("id") or {}).get("open_id") == self.bot_open_id for m in mentions)

    def _answer_message(self, text: str, caller: Caller, message_id: str) -> None:
        talk = FeishuTalk(self, message_id)
        try:
            self.flow.on_text(text, caller, talk)
        except Exception as exc:
            self.flow.failed(talk, "feishu event failed", exc)

    def reply_card(self, message_id: str, reply: Answer) -> None:
        lang = reply.language or self.engine.language
        self.api.reply_card(message_id, render.render_answer(reply, lang))

    # --- card buttons ------------------------------------------------------------------------

    def _on_action(self, event: dict[str, Any]) -> dict[str, Any]:
        value = (event.get("action") or {}).get("value") or {}
        operator = str((event.get("operator") or {}).get("open_id") or "")
        context = event.get("context") or {}
        message_id = str(context.get("open_message_id") or "")
        command = buttons.decode(value)
        if command is None or command.verb not in dict(card_buttons()):
            return self._toast("warning", "feishu.event.unknown_action")
        if command.verb == REGENERATE:
            return self._on_regenerate(command, operator, message_id)
        chat = str(context.get("open_chat_id") or "")  # the card's chat: its language
        shown = answer(command, Caller(operator, PLATFORM, chat), self.engine)
        self.spawn(lambda: self._safe_reply(message_id, shown))
        return self._toast("info", self._shown_key(command.verb))

    def _shown_key(self, verb: str) -> str:
        """The toast of a button that answers in the chat: the verb's own, else the generic."""
        own = f"feishu.event.{verb}_shown"
        return own if translator(self.engine.language).has(own) else "feishu.event.answer_shown"

    def _on_regenerate(self, command: Command, operator: str, message_id: str) -> dict[str, Any]:
        gate = answer(command, Caller(operator, PLATFORM), self.engine)
        params = {
            "repo": gate.repo,
            "week": gate.period,
            **(gate.params if isinstance(gate, Said) else {}),
        }
        if gate.kind is AnswerKind.DENIED:
            return self._toast("error", "feishu.event.admin_only")
        if gate.kind is AnswerKind.RATE_LIMITED:
            return self._toast("warning", "feishu.event.rate_limited", **params)
        if gate.kind is AnswerKind.REGENERATE_BUSY:
            return self._toast("info", "feishu.event.regenerate_busy", **params)
        if gate.kind is not AnswerKind.REGENERATE_STARTED:
            return self._toast("warning", "feishu.event.unknown_action")
        self.spawn(lambda: self._regenerate_safely(gate, operator, message_id))
        return self._toast("success", "feishu.event.regenerate_started", **params)

    def _regenerate_safely(self, gate: Answer, operator: str, message_id: str) -> None:
        talk = FeishuTalk(self, message_id)
        try:
            self.flow.run_regenerate(gate, operator, talk)
        except Exception as exc:
            self.flow.failed(talk, "feishu event failed", exc)

    def _safe_reply(self, message_id: str, reply: Answer) -> None:
        talk = FeishuTalk(self, message_id)
        try:
            talk.later(reply)
        except Exception as exc:
            self.flow.failed(talk, "feishu event failed", exc)

    def _toast(self, kind: str, key: str, **params: Any) -> dict[str, Any]:
        text = render.say(translator(self.engine.language), key, params)
        return {"toast": {"type": kind, "content": text}}


@dataclass(frozen=True)
class FeishuTalk:
    """A command's way back in Feishu: every answer is a reply card to the user's message."""

    events: FeishuEvents
    message_id: str

    def first(self, reply: Answer) -> None:
        self.events.reply_card(self.message_id, reply)

    def later(self, reply: Answer) -> None:
        self.events.reply_card(self.message_id, reply)


def command_text(message: dict[str, Any]) -> str | None:
    """The text of a text message with every @mention placeholder (`@_user_1`) removed."""
    if message.get("message_type") != "text":
        return None
    try:
        content = json.loads(message.get("content") or "{}")
    except (ValueError, RecursionError):
        return None
    text = str(content.get("text") or "") if isinstance(content, dict) else ""
    for mention in message.get("mentions") or []:
        key = mention.get("key")
        if key:
            text = text.replace(str(key), " ")
    return " ".join(text.split())


def dedupe_key(payload: dict[str, Any]) -> str:
    """The id a retry of this event shares: `header.event_id` (v1: `uuid`); when Feishu sends
    it empty, the message id, else a digest of the whole payload (retries repeat it as is)."""
    header = payload.get("header") or {}
    found = header.get("event_id") or payload.get("uuid")
    if found:
        return str(found)
    message = (payload.get("event") or {}).get("message") or {}
    if message.get("message_id"):
        return f"message:{message['message_id']}"
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()
    return f"sha256:{hashlib.sha256(canonical).hexdigest()}"


def build_feishu_endpoint(
    *,
    events: EventLog,
    api: FeishuApi,
    engine: EngineContext,
    verification_token: str | None,
    encrypt_key: str | None,
    bot_open_id: str | None = None,
    regenerate: Regenerate | None = None,
    spawn: Spawn = spawn_thread,
    observe: ObserveCommand | None = None,
    clock: Callable[[], float] = time.time,
) -> Endpoint:
    """The async Starlette endpoint for POST /feishu/events."""
    return build_feishu_events(
        events=events,
        api=api,
        engine=engine,
        verification_token=verification_token,
        encrypt_key=encrypt_key,
        bot_open_id=bot_open_id,
        regenerate=regenerate,
        spawn=spawn,
        observe=observe,
        clock=clock,
    ).respond


def build_feishu_events(
    *,
    events: EventLog,
    api: FeishuApi,
    engine: EngineContext,
    verification_token: str | None,
    encrypt_key: str | None,
    bot_open_id: str | None = None,
    regenerate: Regenerate | None = None,
    spawn: Spawn = spawn_thread,
    observe: ObserveCommand | None = None,
    clock: Callable[[], float] = time.time,
) -> FeishuEvents:
    """The event handling shared by POST /feishu/events (`respond`) and the long connection
    (`handle_pushed`): one command flow whichever way an event arrives."""
    return FeishuEvents(
        events=events,
        api=api,
        engine=engine,
        verification_token=verification_token or None,
        encrypt_key=encrypt_key or None,
        bot_open_id=bot_open_id or None,
        regenerate=regenerate,
        spawn=spawn,
        observe=observe,
        clock=clock,
    )
