"""The fake platform's inbound events: POST /fake-chat/events, signed with HMAC-SHA256 of the
body (header x-fake-signature); the answer goes back in the response body, later answers to the
event's reply_url. The command flow is the service's (service/commands/flow.py)."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from dataclasses import dataclass, field
from typing import Any

import requests
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from service.commands.answer import Answer, Caller
from service.commands.flow import CommandFlow
from service.platforms.base import Endpoint, InboundDeps
from tests.platforms.fake_chat.render import render_answer

SIGNATURE_HEADER = "x-fake-signature"
HTTP_UNAUTHORIZED = 401
TIMEOUT = 10
ACK_SECONDS = 3.0  # like Slack's: the event is answered within this, the rest comes later


def sign(body: bytes, secret: str) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


@dataclass
class FakeTalk:
    """The first answer is kept for the HTTP response; later ones are POSTed to reply_url."""

    reply_url: str
    language: str
    first_card: dict[str, Any] | None = None
    acked: threading.Event = field(default_factory=threading.Event)

    def card(self, reply: Answer) -> dict[str, Any]:
        return render_answer(reply, reply.language or self.language)

    def first(self, reply: Answer) -> None:
        self.first_card = self.card(reply)
        self.acked.set()

    def later(self, reply: Answer) -> None:
        requests.post(self.reply_url, json=self.card(reply), timeout=TIMEOUT)


def build_endpoint(secret: str, deps: InboundDeps) -> Endpoint:
    flow = CommandFlow(
        engine=deps.engine, platform="fake-chat", regenerate=deps.regenerate, observe=deps.observe
    )

    def run(text: str, caller: Caller, talk: FakeTalk) -> None:
        try:
            flow.on_text(text, caller, talk)
        except Exception as exc:
            flow.failed(talk, "fake-chat event failed", exc)
        finally:
            talk.acked.set()

    def handle(event: dict[str, Any]) -> dict[str, Any]:
        """Acknowledge with the first answer; what it promised runs on after the response."""
        caller = Caller(str(event["user"]), "fake-chat", str(event["room"]))
        talk = FakeTalk(str(event["reply_url"]), deps.language)
        text = str(event.get("text", ""))
        threading.Thread(target=run, args=(text, caller, talk), daemon=True).start()
        talk.acked.wait(ACK_SECONDS)
        return talk.first_card or {}

    async def endpoint(request: Request) -> Response:
        body = await request.body()
        given = request.headers.get(SIGNATURE_HEADER, "")
        if not hmac.compare_digest(given, sign(body, secret)):
            return JSONResponse({"error": "bad signature"}, status_code=HTTP_UNAUTHORIZED)
        return JSONResponse(await run_in_threadpool(handle, json.loads(body)))

    return endpoint
