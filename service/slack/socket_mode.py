"""Slack Socket Mode: the bolt app receives commands and button clicks over a websocket the
service opens to Slack (no public URL), with slack_sdk's built-in client (no extra dependency).

Talks to SLACK_API_URL (apps.connections.open with the app token) and then to the websocket URL
Slack answers with. The token is checked before anything starts: a refused one is an
AuthRefusedError naming SLACK_APP_TOKEN, never a traceback in a background thread.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse

from service.slack.probe import socket_url

logger = logging.getLogger(__name__)

# seconds between the client's websocket pings; a silent socket is replaced after this
PING_INTERVAL = 10.0
SEEN_ENVELOPES = 2048  # envelope ids remembered to drop a resent envelope


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


def start_socket_mode(app: App, app_token: str, *, connect: bool = True) -> SocketModeHandler:
    """Open Socket Mode for `app` (SLACK_APP_TOKEN set); the handler's `close()` ends it."""
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
    if url is None:
        return handler
    handler.client.wss_uri = url
    handler.connect()
    if handler.client.is_connected():
        logger.info("slack socket mode connected", extra={"session": handler.client.session_id()})
    else:
        logger.warning(
            "slack socket mode: the websocket did not open; retrying",
            extra={"retry_seconds": PING_INTERVAL},
        )
    return handler
