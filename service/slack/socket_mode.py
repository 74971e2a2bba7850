"""Slack Socket Mode: the bolt app receives commands and button clicks over a websocket the
service opens to Slack (no public URL), with slack_sdk's built-in client (no extra dependency).

Talks to SLACK_API_URL (apps.connections.open with the app token) and then to the websocket URL
Slack answers with. The token is checked before anything starts: a refused one is an
AuthRefusedError naming SLACK_APP_TOKEN, never a traceback in a background thread.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse

from service.observe.connection_health import CONNECTED, RECONNECTING, STOPPED, ConnectionHealth
from service.slack.probe import socket_url

logger = logging.getLogger(__name__)

# seconds between the client's websocket pings; a silent socket is replaced after this
PING_INTERVAL = 10.0
SEEN_ENVELOPES = 2048  # envelope ids remembered to drop a resent envelope
PLATFORM = "slack"


class SocketModeWatch:
    """Socket Mode's state for /healthz and /metrics, and a log line when it opens or closes.

    slack_sdk reconnects by itself; this only watches: every message read is the last event,
    Slack's `hello` (sent on each new connection) marks it up, a close marks it down."""

    def __init__(self, handler: SocketModeHandler) -> None:
        self.handler = handler
        self.last_event_at: float | None = None
        self.down_since: float | None = None
        self._closed = False
        self._lock = threading.Lock()
        client = handler.client
        client.on_message_listeners.append(self._on_message)
        client.on_close_listeners.append(self._on_close)

    def _on_message(self, message: str) -> None:
        self.last_event_at = time.time()
        if '"hello"' not in message:
            return
        try:
            kind = json.loads(message).get("type")
        except (ValueError, AttributeError):
            return
        if kind == "hello":
            with self._lock:
                self.down_since = None
            logger.info(
                "slack socket mode connected", extra={"session": self.handler.client.session_id()}
            )

    def _on_close(self, code: int, reason: str | None = None) -> None:
        with self._lock:
            if self.down_since is None:
                self.down_since = time.time()
        if not self._closed:
            logger.warning(
                "slack socket mode closed; reconnecting",
                extra={"code": code, "reason": (reason or "")[:200]},
            )

    def health(self) -> ConnectionHealth:
        with self._lock:
            if self._closed:
                state = STOPPED
            elif self.handler.client.is_connected():
                state = CONNECTED
                self.down_since = None
            else:  # gone without a close frame (a dead TCP link): down since first seen so
                state = RECONNECTING
                self.down_since = self.down_since or time.time()
            return ConnectionHealth(PLATFORM, state, self.last_event_at, self.down_since)

    def close(self) -> None:
        self._closed = True
        close: Callable[[], None] = self.handler.close  # bolt's handler is unannotated
        close()
        logger.info("slack socket mode closed (shutting down)")


def deduped(handler: SocketModeHandler) -> SocketModeHandler:
    """Run each envelope once: one sent again (same envelope_id) is acknowledged, not re-run,
    as the HTTP path drops a retried event."""
    listeners = handler.client.socket_mode_request_listeners
    seen: OrderedDict[str, None] = OrderedDict()

    def once(inner: Callable[..., Any]) -> Callable[..., Any]:
        def listener(client: Any, req: SocketModeRequest) -> None:
            if req.envelope_id in seen:
                logger.info("slack socket mode: envelope sent again, acknowledged only")
                client.send_socket_mode_response(SocketModeResponse(req.envelope_id))
                return
            seen[req.envelope_id] = None
            if len(seen) > SEEN_ENVELOPES:
                seen.popitem(last=False)
            inner(client, req)

        return listener

    listeners[:] = [once(listener) for listener in listeners]
    return handler


def start_socket_mode(app: App, app_token: str, *, connect: bool = True) -> SocketModeWatch:
    """Open Socket Mode for `app` (SLACK_APP_TOKEN set); the watch's `close()` ends it."""
    # ask first, ourselves, before the client starts its threads: slack_sdk would raise a bare
    # SlackApiError from connect()
    url = socket_url(app.client, app_token) if connect else None
    handler = SocketModeHandler(
        app,
        app_token,
        logger=logging.getLogger("service.slack.socket"),
        ping_interval=PING_INTERVAL,
    )
    deduped(handler)
    watch = SocketModeWatch(handler)
    if url is None:
        return watch
    handler.client.wss_uri = url
    open_socket: Callable[[], None] = handler.connect  # bolt's handler is unannotated
    open_socket()
    if not handler.client.is_connected():
        watch.down_since = time.time()
        logger.warning(
            "slack socket mode: the websocket did not open; retrying",
            extra={"retry_seconds": PING_INTERVAL},
        )
    return watch
