"""A Socket Mode envelope sent again (same envelope_id) runs once and is acknowledged each time."""

from __future__ import annotations

from typing import Any

from slack_bolt import App
from slack_sdk.socket_mode.request import SocketModeRequest

from service.slack.socket_mode import deduped, start_socket_mode


class Client:
    def __init__(self) -> None:
        self.acks: list[str] = []

    def send_socket_mode_response(self, response: Any) -> None:
        self.acks.append(response.envelope_id)


def test_an_envelope_sent_three_times_runs_once() -> None:
    app = App(token="xoxb-test", signing_secret="s", token_verification_enabled=False)
    handler = start_socket_mode(app, "xapp-1-test", connect=False).handler
    ran: list[str] = []
    # the bolt listener stands in for one that records what it runs
    handler.client.socket_mode_request_listeners[:] = [lambda c, r: ran.append(r.envelope_id)]
    deduped(handler)
    client = Client()
    request = SocketModeRequest(type="slash_commands", envelope_id="env-1", payload={})
    for _ in range(3):
        for listener in handler.client.socket_mode_request_listeners:
            listener(client, request)  # type: ignore[call-arg, arg-type, misc]
    assert ran == ["env-1"]
    assert client.acks == ["env-1", "env-1"]  # the resent copies are acknowledged, not run
