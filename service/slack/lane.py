"""Slash commands answered without bolt's per-request dispatch (issue 30).

bolt runs a request through its middleware chain, matches it against every listener, copies
and injects kwargs, then starts the listener in an executor thread while the request's thread
polls every 10 ms for the ack: with 50 commands in flight that polling alone wakes hundreds of
times a second and holds the GIL the event loop (and `/livez`) waits for. A signed slash command
of our own after the app has authorized once takes the lane instead: the same signature check
(slack_sdk's SignatureVerifier, bolt's own, on the untouched raw body, with the 5-minute
window), the same listener code (`on_slash`: the flow, bolt's `Ack` and `Respond`) in the same
listener executor, and the endpoint awaits the ack on the event loop instead of a thread
polling for it. Anything else (buttons, other payloads, the first command, which makes bolt
call auth.test) goes through bolt as before.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from slack_bolt import App, BoltResponse
from slack_bolt.adapter.starlette.handler import to_starlette_response
from slack_bolt.middleware.authorization.single_team_authorization import SingleTeamAuthorization
from slack_sdk.signature import SignatureVerifier
from starlette.requests import Request
from starlette.responses import Response

# bolt waits this long for a listener's ack, then answers 404 (Slack gives up after 3 s anyway)
ACK_TIMEOUT_SECONDS = 3.0
HTTP_NOT_FOUND = 404
HTTP_UNAUTHORIZED = 401
TIMESTAMP_HEADER = "x-slack-request-timestamp"
SIGNATURE_HEADER = "x-slack-signature"

# (the command's form fields, deliver(ack response)): runs the listener, acks through deliver
Listener = Callable[[dict[str, str], Callable[[BoltResponse], None]], None]


@dataclass(frozen=True)
class CommandLane:
    """The slash command `command` of `app`, answered by `listener` in `executor`."""

    app: App
    command: str
    verifier: SignatureVerifier
    executor: Executor
    listener: Listener

    def fields(self, body: bytes) -> dict[str, str] | None:
        """The form fields of `body` when it is our slash command and the lane may take it:
        no interactivity payload, no SSL check, and the app already authorized once."""
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return None
        if text.lstrip().startswith(("{", "[")):
            return None
        fields = dict(parse_qsl(text, keep_blank_values=True))
        plain = "payload" not in fields and "ssl_check" not in fields
        ours = fields.get("command") == self.command
        return fields if plain and ours and _authorized(self.app) else None

    async def answer(self, request: Request, body: bytes, fields: dict[str, str]) -> Response:
        """Check the signature as bolt does, run the listener, answer with its ack."""
        stamp = request.headers.get(TIMESTAMP_HEADER, "0")
        signature = request.headers.get(SIGNATURE_HEADER, "")
        if not self.verifier.is_valid(body.decode("utf-8"), stamp, signature):
            refused = BoltResponse(status=HTTP_UNAUTHORIZED, body={"error": "invalid request"})
            return to_starlette_response(refused)
        loop = asyncio.get_running_loop()
        acked: asyncio.Future[BoltResponse] = loop.create_future()

        def deliver(response: BoltResponse) -> None:
            loop.call_soon_threadsafe(_settle, acked, response)

        self.executor.submit(self.listener, fields, deliver)
        try:
            response = await asyncio.wait_for(asyncio.shield(acked), ACK_TIMEOUT_SECONDS)
        except TimeoutError:  # as bolt: no ack in time is an unhandled request
            response = BoltResponse(status=HTTP_NOT_FOUND, body={"error": "unhandled request"})
        return to_starlette_response(response)


def _settle(acked: asyncio.Future[BoltResponse], response: BoltResponse) -> None:
    if not acked.done():  # the first ack counts, as bolt's
        acked.set_result(response)


def _authorized(app: App) -> bool:
    """Whether bolt's single-team authorization already holds its auth.test result: until it
    does, commands go through bolt, which calls auth.test and answers its error itself."""
    middleware: list[Any] = getattr(app, "_middleware_list", [])
    found = [m for m in middleware if isinstance(m, SingleTeamAuthorization)]
    return bool(found) and all(m.auth_test_result is not None for m in found)
