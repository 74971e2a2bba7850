"""Slack Socket Mode: the bolt app receives commands and button clicks over a websocket the
service opens to Slack (no public URL), with slack_sdk's built-in client (no extra dependency).

Talks to SLACK_API_URL (apps.connections.open with the app token) and then to the websocket URL
Slack answers with. The token is checked before anything starts: a refused one is an
AuthRefusedError naming SLACK_APP_TOKEN, never a traceback in a background thread.
"""

from __future__ import annotations

import logging

from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler

from service.slack.probe import socket_url

logger = logging.getLogger(__name__)

# seconds between the client's websocket pings; a silent socket is replaced after this
PING_INTERVAL = 10.0


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
