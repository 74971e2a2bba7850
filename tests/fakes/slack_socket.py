"""Slack Socket Mode on 127.0.0.1: `apps.connections.open` on a FakeSlack (the app token checked,
a websocket URL answered) and the websocket behind that URL, as Slack's Socket Mode docs describe
it: a `hello` on connect, envelopes pushed to the app, acknowledgements
`{"envelope_id": …, "payload": …}` back.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.server import Server, ServerConnection, serve

from tests.fakes._server import Recorded, Reply
from tests.fakes.slack import FakeSlack

APP_TOKEN = "xapp-1-A0001-1234-socketmodetesttoken"
APP_ID = "A0001"
WAIT_SECONDS = 90.0  # a `serve` subprocess on a busy two-core machine starts slowly


@dataclass
class FakeSocketMode:
    slack: FakeSlack
    app_token: str = APP_TOKEN
    url: str = ""
    connections: list[ServerConnection] = field(default_factory=list)
    received: list[dict[str, Any]] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def install(self) -> None:
        self.slack.api.route("POST", "/api/apps.connections.open", self._open)

    def _open(self, rec: Recorded) -> Reply:
        if rec.header("authorization") != f"Bearer {self.app_token}":
            error = (
                "not_allowed_token_type"
                if "xoxb-" in (rec.header("authorization") or "")
                else "invalid_auth"
            )
            return 200, {}, {"ok": False, "error": error}
        ticket = f"ticket-{next(self._ids)}"
        return 200, {}, {"ok": True, "url": f"{self.url}/link/?ticket={ticket}&app_id={APP_ID}"}

    # --- the websocket ----------------------------------------------------------------------

    def handler(self, conn: ServerConnection) -> None:
        with self.changed:
            self.connections.append(conn)
            self.changed.notify_all()
        hello = {
            "type": "hello",
            "num_connections": 1,
            "connection_info": {"app_id": APP_ID},
            "debug_info": {"host": "applink-fake", "approximate_connection_time": 18060},
        }
        conn.send(json.dumps(hello))
        try:
            for message in conn:
                with self.changed:
                    self.received.append(json.loads(message))
                    self.changed.notify_all()
        except ConnectionClosed:
            return  # the app went away (serve stopped): nothing more to read

    def wait_connected(self, count: int = 1) -> ServerConnection:
        with self.changed:
            if not self.changed.wait_for(lambda: len(self.connections) >= count, WAIT_SECONDS):
                raise AssertionError(f"the app opened {len(self.connections)} websockets")
            return self.connections[-1]

    def push(self, kind: str, payload: dict[str, Any]) -> str:
        """Send an envelope (`slash_commands`, `interactive`…) to the app; its envelope id."""
        envelope_id = f"env-{next(self._ids)}"
        envelope = {
            "envelope_id": envelope_id,
            "type": kind,
            "payload": payload,
            "accepts_response_payload": kind != "events_api",
            "retry_attempt": 0,
        }
        self.wait_connected().send(json.dumps(envelope))
        return envelope_id

    def ack(self, envelope_id: str) -> dict[str, Any]:
        """The app's acknowledgement of `envelope_id` (waits for it)."""

        def found() -> dict[str, Any] | None:
            return next((m for m in self.received if m.get("envelope_id") == envelope_id), None)

        with self.changed:
            if not self.changed.wait_for(lambda: found() is not None, WAIT_SECONDS):
                raise AssertionError(f"no ack for {envelope_id}; got {self.received}")
            return found() or {}


def slash_payload(
    text: str, response_url: str, *, user: str = "UPLAIN", channel: str = "C1"
) -> dict[str, str]:
    """A slash command as Slack puts it in a Socket Mode envelope."""
    return {
        "token": "legacy-verification-token",
        "team_id": "T0001",
        "team_domain": "example",
        "channel_id": channel,
        "channel_name": "general",
        "user_id": user,
        "user_name": "reader",
        "command": "/verl-week",
        "text": text,
        "api_app_id": APP_ID,
        "is_enterprise_install": "false",
        "response_url": response_url,
        "trigger_id": "1.2.3",
    }


@contextmanager
def socket_mode(slack: FakeSlack) -> Iterator[FakeSocketMode]:
    fake = FakeSocketMode(slack)
    server: Server = serve(fake.handler, "127.0.0.1", 0)
    fake.url = f"ws://127.0.0.1:{server.socket.getsockname()[1]}"
    fake.install()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        thread.join(timeout=WAIT_SECONDS)
