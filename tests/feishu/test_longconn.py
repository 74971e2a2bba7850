"""LongConnection on its own against the fake long connection: start-up failures are errors the
caller can name, a payload that is no event is answered 500, reconnecting stops after
ReconnectCount attempts, and stop() ends it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from service.errors import AuthRefusedError, UnreachableError
from service.feishu.longconn import LongConnection
from tests.fakes.feishu import FakeFeishu, serve_feishu
from tests.fakes.feishu_longconn import (
    CONTROL,
    DATA,
    SERVICE_ID,
    WAIT_SECONDS,
    FakeLongConnection,
    encode_frame,
    long_connection,
)


@pytest.fixture
def feishu() -> Iterator[FakeFeishu]:
    with serve_feishu() as fake:
        yield fake


@pytest.fixture
def socket(feishu: FakeFeishu) -> Iterator[FakeLongConnection]:
    with long_connection(feishu) as fake:
        yield fake


class Handled:
    """The events the connection hands over, each answered with a toast."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.seen = threading.Event()

    def __call__(self, event: dict[str, Any]) -> dict[str, Any]:
        self.events.append(event)
        self.seen.set()
        return {"toast": {"type": "info", "content": "ok"}}


def connection(feishu: FakeFeishu, handled: Handled, **options: Any) -> LongConnection:
    return LongConnection(
        base_url=feishu.url,
        app_id=feishu.app_id,
        app_secret=options.pop("app_secret", feishu.app_secret),
        handle=handled,
        jitter=lambda: 0.0,
        **options,
    )


def test_refused_credentials_fail_start(feishu: FakeFeishu, socket: FakeLongConnection) -> None:
    with pytest.raises(AuthRefusedError, match="code 10014: app secret invalid"):
        connection(feishu, Handled(), app_secret="wrong").start()
    assert socket.connections == []


def test_an_unreachable_endpoint_fails_start() -> None:
    lost = LongConnection(
        base_url="http://127.0.0.1:9", app_id="cli_x", app_secret="s", handle=Handled(), timeout=2.0
    )
    with pytest.raises(UnreachableError, match="unreachable"):
        lost.start()


def test_a_busy_endpoint_is_unreachable_not_refused(
    feishu: FakeFeishu, socket: FakeLongConnection
) -> None:
    feishu.api.fail_next(200, payload={"code": 1, "msg": "system busy"})
    with pytest.raises(UnreachableError, match=r"busy \(1: system busy\)"):
        connection(feishu, Handled()).start()


def test_a_payload_that_is_no_event_is_answered_500(
    feishu: FakeFeishu, socket: FakeLongConnection
) -> None:
    handled = Handled()
    conn = connection(feishu, handled)
    conn.start()
    try:
        frame = {
            "SeqID": 1,
            "LogID": 1,
            "service": SERVICE_ID,
            "method": DATA,
            "headers": [("type", "event"), ("message_id", "m-bad"), ("sum", "1"), ("seq", "0")],
            "payload": b"not json",
        }
        socket.wait_connected().send(encode_frame(frame))
        assert socket.ack("m-bad")["code"] == 500
        assert handled.events == []
        good = socket.push({"schema": "2.0", "header": {"event_type": "x"}})
        assert socket.ack(good)["data"] == {"toast": {"type": "info", "content": "ok"}}
        # a control frame the client does not know is ignored, the socket stays up
        socket.wait_connected().send(encode_frame({"method": CONTROL, "headers": [("type", "x")]}))
        assert socket.ack(socket.push({"n": 2}))["code"] == 200
    finally:
        conn.stop()
    assert conn.finished.wait(WAIT_SECONDS)


def test_reconnecting_gives_up_after_the_configured_attempts(
    feishu: FakeFeishu, socket: FakeLongConnection
) -> None:
    socket.config = {**socket.config, "ReconnectCount": 2, "ReconnectInterval": 0}
    conn = connection(feishu, Handled())
    conn.start()
    socket.wait_connected()
    feishu.app_secret = "rotated-in-the-console"  # every new URL is refused from now on
    socket.drop()
    assert conn.finished.wait(WAIT_SECONDS)
    assert socket.endpoint_calls() == 3  # the first URL, then two refused attempts
    assert len(socket.connections) == 1
    assert not conn.connected


def test_a_refused_upgrade_names_feishus_reason(
    feishu: FakeFeishu, socket: FakeLongConnection
) -> None:
    socket.refuse_upgrade = (514, "exceed  connection\tlimit")
    with pytest.raises(UnreachableError) as refused:
        connection(feishu, Handled()).start()
    assert refused.value.message == "Feishu refused the websocket: exceed connection limit"
    assert socket.connections == []
