"""Feishu's long connection (FEISHU_EVENT_MODE=websocket): events and card callbacks arrive over
a websocket the service opens, so no public URL is needed.

Talks to FEISHU_BASE_URL: POST /callback/ws/endpoint with the app id and secret answers the
websocket URL and a ClientConfig (ping and reconnect timing, in seconds). Over the socket every
binary message is a pbbp2 Frame (frames.py): control frames are our ping and Feishu's pong (which
may carry a new ClientConfig); data frames carry an event's JSON, split into `sum` parts when
large, and each is answered with the same frame whose payload is
`{"code": 200, "headers": {...}, "data": base64(JSON answer)}` — the answer of a card callback
(a toast) travels in `data`. Payloads are plaintext: no decryption, no signature. When the socket
drops, the service asks for a new URL and reconnects after the configured interval.

Everything the server sends is bounded: ClientConfig values outside sane limits are clamped
(non-numbers and non-finite numbers ignored), a split frame has at most MAX_PARTS parts, and one
bad frame is logged and dropped without ending the reader. The server's ReconnectCount is not
obeyed: a replica that stops reconnecting is deaf for good, so it retries forever with a backoff
between RECONNECT_FLOOR_SECONDS and RECONNECT_CEILING_SECONDS.
"""

from __future__ import annotations

import base64
import json
import logging
import math
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import requests
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from service.errors import AuthRefusedError, UnreachableError
from service.feishu.frames import Frame, FrameError, FrameMethod, HeaderKey, MessageType, ping_frame
from service.observe.connection_health import ConnectionHealth

logger = logging.getLogger(__name__)

PLATFORM = "feishu"
ENDPOINT_PATH = "/callback/ws/endpoint"
ENDPOINT_OK = 0
# lark-oapi ws/const.py: these endpoint codes are the server's trouble, worth retrying;
# any other code refuses the app's credentials (or its long-connection mode)
ENDPOINT_BUSY = 1
ENDPOINT_INTERNAL_ERROR = 1000040343
HTTP_OK = 200
HTTP_FAILED = 500
DEFAULT_TIMEOUT_SECONDS = 10.0
PART_TTL_SECONDS = 5.0  # lark-oapi keeps the parts of a split frame this long
HANDLER_THREADS = 4
MESSAGE_CHARS = 200
MAX_PARTS = 64  # a split event has a handful of parts; `[None] * sum` must stay small
PING_SECONDS = (5.0, 600.0)  # the bounds a server-set PingInterval is clamped to
RECONNECT_FLOOR_SECONDS = 1.0  # never call the endpoint in a tight loop
RECONNECT_CEILING_SECONDS = 600.0

# An event's JSON → the JSON answer (a card callback's toast, or {}): FeishuEvents.handle_pushed
Handler = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass
class ClientConfig:
    """Timing the server sets (seconds); lark-oapi's defaults until it says otherwise, each
    value clamped to LIMITS. ReconnectCount is read but never obeyed (see the module doc)."""

    reconnect_count: int = -1
    reconnect_interval: float = 120.0
    reconnect_nonce: float = 30.0  # the first retry waits a random part of this
    ping_interval: float = 120.0

    KEYS = (
        ("reconnect_count", "ReconnectCount", (-1.0, 1e6)),
        ("reconnect_interval", "ReconnectInterval", (RECONNECT_FLOOR_SECONDS, 600.0)),
        ("reconnect_nonce", "ReconnectNonce", (0.0, 600.0)),
        ("ping_interval", "PingInterval", PING_SECONDS),
    )

    def update(self, data: Any) -> None:
        if not isinstance(data, dict):
            return
        for name, key, (low, high) in self.KEYS:
            value = data.get(key)
            if not isinstance(value, int | float) or isinstance(value, bool):
                continue
            if isinstance(value, float) and not math.isfinite(value):
                continue
            kind = type(getattr(self, name))
            setattr(self, name, kind(min(max(value, low), high)))


@dataclass
class _Parts:
    chunks: list[bytes | None]
    expires: float


@dataclass
class LongConnection:
    """One app's long connection; `start()` connects (or raises), `stop()` ends it."""

    base_url: str
    app_id: str
    app_secret: str = field(repr=False)
    handle: Handler = field(repr=False)
    timeout: float = DEFAULT_TIMEOUT_SECONDS
    session: requests.Session = field(default_factory=requests.Session)
    jitter: Callable[[], float] = random.random
    config: ClientConfig = field(default_factory=ClientConfig)
    reconnect_floor: float = RECONNECT_FLOOR_SECONDS
    connections: int = field(default=0, init=False)  # sockets opened so far
    # wall-clock times for /healthz and the gauges: the last frame read, the last drop
    last_event_at: float | None = field(default=None, init=False)
    down_since: float | None = field(default=None, init=False)
    # set when the connection is over for good: stopped, or reconnecting gave up
    finished: threading.Event = field(default_factory=threading.Event, init=False, repr=False)
    _conn: ClientConnection | None = field(default=None, init=False, repr=False)
    _service: int = field(default=0, init=False, repr=False)
    _stopped: threading.Event = field(default_factory=threading.Event, init=False, repr=False)
    _wakeup: threading.Event = field(default_factory=threading.Event, init=False, repr=False)
    _fresh: threading.Event = field(default_factory=threading.Event, init=False, repr=False)
    _send_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _parts: dict[str, _Parts] = field(default_factory=dict, init=False, repr=False)
    _workers: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(HANDLER_THREADS, "feishu-longconn"),
        init=False,
        repr=False,
    )

    # --- lifecycle ----------------------------------------------------------------------------

    def start(self) -> None:
        """Open the first connection here (AuthRefusedError / UnreachableError at once), then
        read it, ping it and reconnect it in background threads."""
        self._open()
        threading.Thread(target=self._run, name="feishu-longconn", daemon=True).start()
        threading.Thread(target=self._ping_loop, name="feishu-longconn-ping", daemon=True).start()

    def stop(self) -> None:
        self._stopped.set()
        self._wakeup.set()
        conn = self._conn
        if conn is not None:
            conn.close()
        self._workers.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        self.stop()

    def health(self) -> ConnectionHealth:
        """The connection's state, its last frame and since when it is down (/healthz)."""
        return ConnectionHealth(PLATFORM, self.state, self.last_event_at, self.down_since)

    @property
    def connected(self) -> bool:
        return self._conn is not None

    @property
    def state(self) -> str:
        """ "connected", "reconnecting" or "stopped"."""
        if self.finished.is_set():
            return "stopped"
        return "connected" if self._conn is not None else "reconnecting"

    # --- connecting -----------------------------------------------------------------------------

    def endpoint(self) -> str:
        """POST /callback/ws/endpoint: the websocket URL (and the server's ClientConfig)."""
        try:
            response = self.session.post(
                self.base_url.rstrip("/") + ENDPOINT_PATH,
                json={"AppID": self.app_id, "AppSecret": self.app_secret},
                headers={"locale": "zh"},
                timeout=self.timeout,
            )
            payload = response.json() if response.status_code == HTTP_OK else None
        except (requests.RequestException, ValueError) as exc:
            raise UnreachableError(
                f"Feishu's long-connection endpoint is unreachable: {type(exc).__name__}"
            ) from None
        if not isinstance(payload, dict):
            raise UnreachableError(
                f"Feishu's long-connection endpoint answered HTTP {response.status_code}"
            )
        code = payload.get("code")
        message = " ".join(str(payload.get("msg") or "").split())[:MESSAGE_CHARS]
        if code in (ENDPOINT_BUSY, ENDPOINT_INTERNAL_ERROR):
            raise UnreachableError(f"Feishu's long-connection endpoint is busy ({code}: {message})")
        data = payload.get("data") or {}
        url = data.get("URL") if isinstance(data, dict) else None
        if code != ENDPOINT_OK or not isinstance(url, str) or not url:
            raise AuthRefusedError(
                f"Feishu refused a long connection for app {self.app_id} (code {code}: "
                f"{message}): check FEISHU_APP_ID and FEISHU_APP_SECRET, and that the app "
                "subscribes to events through a long connection"
            )
        self.config.update(data.get("ClientConfig"))
        self._wakeup.set()
        return url

    def _open(self) -> None:
        url = self.endpoint()
        query = parse_qs(urlsplit(url).query)
        try:
            conn = connect(url, open_timeout=self.timeout, max_size=None)
        except InvalidStatus as exc:
            headers = exc.response.headers
            said = " ".join(str(headers.get("handshake-msg") or "").split())[:MESSAGE_CHARS]
            reason = said or f"HTTP {exc.response.status_code}"
            raise UnreachableError(f"Feishu refused the websocket: {reason}") from None
        except (InvalidHandshake, OSError, TimeoutError) as exc:
            raise UnreachableError(
                f"Feishu's websocket could not be opened: {type(exc).__name__}"
            ) from None
        self._service = _int(query.get("service_id", ["0"])[0])
        self._conn = conn
        self.down_since = None
        self.connections += 1
        self._fresh.set()
        self._wakeup.set()
        logger.info(
            "feishu long connection open",
            extra={"app_id": self.app_id, "connection": query.get("device_id", [""])[0]},
        )

    def _run(self) -> None:
        try:
            while not self._stopped.is_set():
                conn = self._conn
                if conn is not None:
                    self._read(conn)
                    self._conn = None
                    self.down_since = time.time()
                if self._stopped.is_set() or not self._reconnect():
                    return
        finally:
            self._stopped.set()  # the ping loop ends with the connection
            self._close_opened()
            self._wakeup.set()
            self.finished.set()

    def _close_opened(self) -> None:
        """Close a connection a reconnect opened while `stop` ran (stop saw none to close)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def _reconnect(self) -> bool:
        """Open a new connection, waiting longer after each failure; False only once stopped."""
        logger.warning("feishu long connection lost; reconnecting", extra={"app_id": self.app_id})
        if self._stopped.wait(self.jitter() * self.config.reconnect_nonce):
            return False
        attempt = 0
        while not self._stopped.is_set():
            attempt += 1
            try:
                self._open()
                return True
            except (AuthRefusedError, UnreachableError) as exc:
                error = exc.message
            except Exception as exc:  # never let one odd failure end the reconnecting
                error = type(exc).__name__
            logger.error(
                "feishu long connection: reconnect failed",
                extra={"app_id": self.app_id, "attempt": attempt, "error": error},
            )
            if self._stopped.wait(self.backoff(attempt)):
                return False
        return False

    def backoff(self, attempt: int) -> float:
        """The wait after the `attempt`-th failed reconnect: the interval, doubling, bounded."""
        base = max(self.config.reconnect_interval, self.reconnect_floor)
        return float(min(base * 2 ** min(attempt - 1, 16), RECONNECT_CEILING_SECONDS))

    # --- reading --------------------------------------------------------------------------------

    def _read(self, conn: ClientConnection) -> None:
        try:
            with conn:  # closed on the way out, whatever ends the reading
                for message in conn:
                    if isinstance(message, bytes):
                        self.last_event_at = time.time()
                        self._on_frame(message)
        except ConnectionClosed:
            pass
        except Exception:  # whatever ends the reading, the connection is reopened
            logger.warning("feishu long connection: read failed", exc_info=True)
        logger.info("feishu long connection closed", extra={"app_id": self.app_id})

    def _on_frame(self, message: bytes) -> None:
        """One frame; whatever it holds, the reader goes on to the next."""
        try:
            self._on_message(message)
        except Exception:  # a deeply nested pong (RecursionError), a bad part count...
            logger.warning("feishu long connection: a frame could not be handled", exc_info=True)

    def _on_message(self, message: bytes) -> None:
        try:
            frame = Frame.decode(message)
        except FrameError:
            logger.warning("feishu long connection: a message that is not a frame")
            return
        if frame.method == FrameMethod.CONTROL:
            self._on_control(frame)
        elif frame.method == FrameMethod.DATA:
            payload = self._assemble(frame)
            if payload is not None:
                self._workers.submit(self._answer, frame, payload)

    def _on_control(self, frame: Frame) -> None:
        if frame.header(HeaderKey.TYPE) != MessageType.PONG or not frame.payload:
            return
        try:
            self.config.update(json.loads(frame.payload))
        except ValueError:
            return
        self._wakeup.set()

    def _assemble(self, frame: Frame) -> bytes | None:
        """The whole payload once every part of a split data frame is in, else None."""
        total = _int(frame.header(HeaderKey.SUM) or "1")
        if total <= 1:
            return frame.payload or b""
        if total > MAX_PARTS:
            logger.warning(
                "feishu long connection: a frame in too many parts", extra={"sum": total}
            )
            return None
        key = frame.header(HeaderKey.MESSAGE_ID) or ""
        index = _int(frame.header(HeaderKey.SEQ) or "0")
        now = time.monotonic()
        self._parts = {k: p for k, p in self._parts.items() if p.expires > now}
        parts = self._parts.setdefault(key, _Parts([None] * total, now + PART_TTL_SECONDS))
        if not 0 <= index < len(parts.chunks):
            return None
        parts.chunks[index] = frame.payload or b""
        if any(chunk is None for chunk in parts.chunks):
            return None
        del self._parts[key]
        return b"".join(chunk or b"" for chunk in parts.chunks)

    # --- answering ------------------------------------------------------------------------------

    def _answer(self, frame: Frame, payload: bytes) -> None:
        """Hand the event to the service, then send the acknowledgement frame back."""
        started = time.perf_counter()
        code, result = HTTP_OK, None
        kind = frame.header(HeaderKey.TYPE)
        try:
            event = json.loads(payload)
            if not isinstance(event, dict):
                raise ValueError("not an object")
            # card callbacks arrive as type "event" (header.event_type card.action.trigger);
            # older apps may still push type "card" frames: both carry the same JSON
            if kind in (MessageType.EVENT, MessageType.CARD):
                result = self.handle(event)
        except ValueError:
            logger.warning("feishu long connection: an event that is not JSON")
            code = HTTP_FAILED
        except Exception:  # the socket must outlive any one event
            logger.exception("feishu long connection: event failed")
            code = HTTP_FAILED
        elapsed = str(int((time.perf_counter() - started) * 1000))
        self._send_ack(frame, code, result, elapsed)

    def _send_ack(self, frame: Frame, code: int, result: Any, elapsed: str) -> None:
        answer: dict[str, Any] = {"code": code, "headers": {HeaderKey.BIZ_RT.value: elapsed}}
        if result:
            text = json.dumps(result, ensure_ascii=False).encode()
            answer["data"] = base64.b64encode(text).decode()
        frame.headers.append((HeaderKey.BIZ_RT, elapsed))
        frame.payload = json.dumps(answer).encode()
        self._send(frame)

    def _send(self, frame: Frame) -> None:
        conn = self._conn
        if conn is None:
            return
        with self._send_lock:
            try:
                conn.send(frame.encode())
            except (ConnectionClosed, OSError):
                logger.warning("feishu long connection: send failed; the socket is gone")

    def _ping_loop(self) -> None:
        while not self._stopped.is_set():
            self._fresh.clear()
            self._send(ping_frame(self._service))
            sent = time.monotonic()
            # wait out the interval; a pong with a new interval shortens or stretches the wait,
            # a new socket is pinged at once
            while not (self._stopped.is_set() or self._fresh.is_set()):
                left = sent + self.config.ping_interval - time.monotonic()
                if left <= 0:
                    break
                self._wakeup.wait(left)
                self._wakeup.clear()


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 0
