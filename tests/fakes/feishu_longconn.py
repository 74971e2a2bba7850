"""Feishu's long connection on 127.0.0.1, built from the protocol the official SDKs implement
(lark-oapi ws/client.py, pbbp2.proto): POST /callback/ws/endpoint on a FakeFeishu checks the app
id and secret and answers a websocket URL (device_id, service_id) and a ClientConfig; on the
websocket every message is a protobuf Frame — the client's pings are answered with a pong that
carries the ClientConfig, events are pushed as data frames (split into `sum` parts when asked),
and the client's acknowledgement frames are kept.

The protobuf encoding here is written independently of service/feishu/frames.py, so a mistake
in one does not hide in the other.
"""

from __future__ import annotations

import base64
import itertools
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.sync.server import Server, ServerConnection, serve

from tests.fakes._server import Recorded, Reply
from tests.fakes.feishu import FakeFeishu

ENDPOINT = "/callback/ws/endpoint"
SERVICE_ID = 33
WAIT_SECONDS = 90.0  # a `serve` subprocess on a busy two-core machine starts slowly
CONTROL, DATA = 0, 1


# --- pbbp2.Frame, encoded and decoded the plain protobuf way --------------------------------


def _varint(value: int) -> bytes:
    out = bytearray()
    value &= (1 << 64) - 1
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _tag(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def _len(number: int, data: bytes) -> bytes:
    return _tag(number, 2) + _varint(len(data)) + data


def encode_frame(frame: dict[str, Any]) -> bytes:
    out = b"".join(
        _tag(n, 0) + _varint(frame.get(k, 0))
        for n, k in ((1, "SeqID"), (2, "LogID"), (3, "service"), (4, "method"))
    )
    for key, value in frame.get("headers", []):
        out += _len(5, _len(1, key.encode()) + _len(2, value.encode()))
    if frame.get("payload") is not None:
        out += _len(8, frame["payload"])
    return out


def _read(data: bytes) -> Iterator[tuple[int, int | bytes]]:
    at = 0
    while at < len(data):
        key, at = _read_varint(data, at)
        if key & 7 == 0:
            value, at = _read_varint(data, at)
            yield key >> 3, value
        else:
            size, at = _read_varint(data, at)
            yield key >> 3, data[at : at + size]
            at += size


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def decode_frame(data: bytes) -> dict[str, Any]:
    names = {1: "SeqID", 2: "LogID", 3: "service", 4: "method", 8: "payload"}
    frame: dict[str, Any] = {"headers": []}
    for number, value in _read(data):
        if number == 5 and isinstance(value, bytes):
            parts = dict(_read(value))
            frame["headers"].append((bytes(parts[1]).decode(), bytes(parts[2]).decode()))
        elif number in names:
            frame[names[number]] = value
    return frame


def header(frame: dict[str, Any], key: str) -> str | None:
    return next((v for k, v in frame["headers"] if k == key), None)


# --- the fake ----------------------------------------------------------------------------------


@dataclass
class FakeLongConnection:
    feishu: FakeFeishu
    url: str = ""
    config: dict[str, int] = field(
        default_factory=lambda: {
            "ReconnectCount": -1,
            "ReconnectInterval": 1,
            "ReconnectNonce": 0,
            "PingInterval": 120,
        }
    )
    pong_config: dict[str, int] | None = None  # what a pong carries (None: `config`)
    # (handshake-status, handshake-msg): the upgrade is refused with these headers, as Feishu
    # refuses a 51st connection of one app (514, auth error code 1000040350)
    refuse_upgrade: tuple[int, str] | None = None
    connections: list[ServerConnection] = field(default_factory=list)
    pings: list[dict[str, Any]] = field(default_factory=list)
    acks: dict[str, dict[str, Any]] = field(default_factory=dict)
    changed: threading.Condition = field(default_factory=threading.Condition)
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def install(self) -> None:
        self.feishu.api.route("POST", ENDPOINT, self._endpoint)

    def endpoint_calls(self) -> int:
        return len(self.feishu.api.calls("POST", ENDPOINT))

    def _endpoint(self, rec: Recorded) -> Reply:
        body = rec.json() or {}
        if (
            body.get("AppID") != self.feishu.app_id
            or body.get("AppSecret") != self.feishu.app_secret
        ):
            return 200, {}, {"code": 10014, "msg": "app secret invalid", "data": None}
        device = f"dev-{next(self._ids)}"
        url = f"{self.url}/ws?device_id={device}&service_id={SERVICE_ID}&ticket=t-{device}"
        return 200, {}, {"code": 0, "msg": "ok", "data": {"URL": url, "ClientConfig": self.config}}

    def process_request(self, conn: ServerConnection, request: Request) -> Response | None:
        if self.refuse_upgrade is None:
            return None
        status, text = self.refuse_upgrade
        response = conn.respond(HTTPStatus.FORBIDDEN, text)
        response.headers["handshake-status"] = str(status)
        response.headers["handshake-msg"] = text
        response.headers["handshake-autherrcode"] = "1000040350"
        return response

    def handler(self, conn: ServerConnection) -> None:
        with self.changed:
            self.connections.append(conn)
            self.changed.notify_all()
        try:
            for message in conn:
                if isinstance(message, bytes):
                    self._on_frame(conn, decode_frame(message))
        except ConnectionClosed:
            return

    def _on_frame(self, conn: ServerConnection, frame: dict[str, Any]) -> None:
        with self.changed:
            if frame.get("method", 0) == CONTROL and header(frame, "type") == "ping":
                self.pings.append(frame)
                pong = {
                    "service": frame.get("service", 0),
                    "method": CONTROL,
                    "headers": [("type", "pong")],
                    "payload": json.dumps(self.pong_config or self.config).encode(),
                }
                conn.send(encode_frame(pong))
            elif frame.get("method") == DATA:
                self.acks[header(frame, "message_id") or ""] = frame
            self.changed.notify_all()

    # --- what a test does ---------------------------------------------------------------------

    def wait(self, condition: Any, what: str) -> None:
        with self.changed:
            if not self.changed.wait_for(condition, WAIT_SECONDS):
                raise AssertionError(f"not in time: {what}")

    def wait_connected(self, count: int = 1) -> ServerConnection:
        self.wait(lambda: len(self.connections) >= count, f"{count} connection(s)")
        return self.connections[-1]

    def push(self, event: dict[str, Any], *, parts: int = 1, kind: str = "event") -> str:
        """Send `event` as data frame(s) on the newest connection; the frames' message id."""
        message_id = f"msg-{next(self._ids)}"
        data = json.dumps(event).encode()
        size = -(-len(data) // parts)
        conn = self.wait_connected()
        for seq in range(parts):
            frame = {
                "SeqID": next(self._ids),
                "LogID": 7,
                "service": SERVICE_ID,
                "method": DATA,
                "headers": [
                    ("type", kind),
                    ("message_id", message_id),
                    ("sum", str(parts)),
                    ("seq", str(seq)),
                    ("trace_id", f"trace-{message_id}"),
                ],
                "payload": data[seq * size : (seq + 1) * size],
            }
            conn.send(encode_frame(frame))
        return message_id

    def ack(self, message_id: str) -> dict[str, Any]:
        """The client's answer to `message_id`: its payload, with `data` decoded from base64."""
        self.wait(lambda: message_id in self.acks, f"the ack of {message_id}")
        frame = self.acks[message_id]
        answer: dict[str, Any] = json.loads(frame["payload"])
        if answer.get("data"):
            answer["data"] = json.loads(base64.b64decode(answer["data"]))
        answer["frame"] = frame
        return answer

    def drop(self) -> None:
        """Close the newest connection from the server's side."""
        self.wait_connected().close(code=1011, reason="server restarting")


@contextmanager
def long_connection(feishu: FakeFeishu) -> Iterator[FakeLongConnection]:
    fake = FakeLongConnection(feishu)
    server: Server = serve(fake.handler, "127.0.0.1", 0, process_request=fake.process_request)
    fake.url = f"ws://127.0.0.1:{server.socket.getsockname()[1]}"
    fake.install()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        thread.join(timeout=WAIT_SECONDS)
