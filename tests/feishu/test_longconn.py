"""LongConnection on its own against the fake long connection: start-up failures are errors the
caller can name, a payload that is no event is answered 500, reconnecting never stops
whatever the server says, hostile frames and timings are bounded, and stop() ends it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from service.errors import AuthRefusedError, UnreachableError
from service.feishu.longconn import (
    PING_SECONDS,
    RECONNECT_CEILING_SECONDS,
    RECONNECT_FLOOR_SECONDS,
    ClientConfig,
    LongConnection,
)
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
from tests.waiting import wait_for


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


def test_reconnecting_never_gives_up_whatever_the_server_says(
    feishu: FakeFeishu, socket: FakeLongConnection
) -> None:
    # ReconnectCount 2 used to end the connection for good after two refused attempts
    socket.config = {**socket.config, "ReconnectCount": 2, "ReconnectInterval": 0}
    conn = connection(feishu, Handled(), reconnect_floor=0.05)
    conn.start()
    try:
        socket.wait_connected()
        secret = feishu.app_secret
        feishu.app_secret = "rotated-in-the-console"  # every new URL is refused for a while
        socket.drop()
        wait_for(lambda: socket.endpoint_calls() >= 4, WAIT_SECONDS)
        assert not conn.finished.is_set()
        assert conn.state == "reconnecting"
        assert conn.down_since is not None
        feishu.app_secret = secret
        socket.wait_connected(2)
        wait_for(lambda: conn.state == "connected", WAIT_SECONDS)
        assert conn.down_since is None
    finally:
        conn.stop()
    assert conn.finished.wait(WAIT_SECONDS)
    assert conn.state == "stopped"


def test_the_backoff_has_a_floor_and_a_ceiling() -> None:
    conn = LongConnection(
        base_url="http://127.0.0.1:9", app_id="a", app_secret="s", handle=Handled()
    )
    conn.config.update({"ReconnectInterval": 0})
    assert conn.backoff(1) == RECONNECT_FLOOR_SECONDS  # not 228 endpoint calls in 10 s
    assert conn.backoff(2) == 2 * RECONNECT_FLOOR_SECONDS
    assert conn.backoff(10_000) == RECONNECT_CEILING_SECONDS


@pytest.mark.parametrize(
    "said",
    [
        {"PingInterval": float("nan")},
        {"PingInterval": 0},
        {"PingInterval": -5},
        {"PingInterval": "1"},
        {"PingInterval": True},
        {"ReconnectCount": float("inf"), "ReconnectInterval": -1, "ReconnectNonce": 10**30},
        {"ReconnectInterval": 10**400, "PingInterval": float("-inf")},
    ],
)
def test_server_timing_is_bounded(said: dict[str, Any]) -> None:
    config = ClientConfig()
    config.update(said)
    assert PING_SECONDS[0] <= config.ping_interval <= PING_SECONDS[1]
    assert RECONNECT_FLOOR_SECONDS <= config.reconnect_interval <= RECONNECT_CEILING_SECONDS
    assert 0 <= config.reconnect_nonce <= RECONNECT_CEILING_SECONDS


def _data(message_id: str, total: str, payload: bytes = b"{}") -> dict[str, Any]:
    headers = [("type", "event"), ("message_id", message_id), ("sum", total), ("seq", "0")]
    return {
        "SeqID": 1,
        "LogID": 1,
        "service": SERVICE_ID,
        "method": DATA,
        "headers": headers,
        "payload": payload,
    }


def test_hostile_frames_do_not_end_the_reader(
    feishu: FakeFeishu, socket: FakeLongConnection
) -> None:
    handled = Handled()
    conn = connection(feishu, handled)
    conn.start()
    try:
        sock = socket.wait_connected()
        nested = b"[" * 200_000 + b"]" * 200_000
        sock.send(
            encode_frame({"method": CONTROL, "headers": [("type", "pong")], "payload": nested})
        )
        sock.send(encode_frame(_data("m-huge", str(10**30))))
        sock.send(encode_frame(_data("m-big", str(10**9))))
        pong = b'{"ReconnectCount": Infinity, "PingInterval": NaN}'
        sock.send(encode_frame({"method": CONTROL, "headers": [("type", "pong")], "payload": pong}))
        good = socket.push({"schema": "2.0", "header": {"event_type": "x"}})
        assert socket.ack(good)["code"] == 200
        assert conn.connected
        assert len(socket.connections) == 1  # the same socket, still read
        assert conn.config.ping_interval >= PING_SECONDS[0]
        assert conn.last_event_at is not None
    finally:
        conn.stop()


def test_a_refused_upgrade_names_feishus_reason(
    feishu: FakeFeishu, socket: FakeLongConnection
) -> None:
    socket.refuse_upgrade = (514, "exceed  connection\tlimit")
    with pytest.raises(UnreachableError) as refused:
        connection(feishu, Handled()).start()
    assert refused.value.message == "Feishu refused the websocket: exceed connection limit"
    assert socket.connections == []
