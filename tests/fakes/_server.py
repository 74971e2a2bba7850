"""A small threaded HTTP server on 127.0.0.1 (port 0) that the fakes of GitHub, Slack and
Feishu build on: routes by (method, path), a log of every request, scripted faults."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Recorded:
    """One request as the fake received it."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body or b"null")

    def header(self, name: str) -> str | None:
        lowered = name.lower()
        return next((v for k, v in self.headers.items() if k.lower() == lowered), None)


# A route answers (status, headers, payload); payload dict/list → JSON, bytes/str → as is.
Reply = tuple[int, dict[str, str], Any]
Route = Callable[[Recorded], Reply]


@dataclass
class FakeAPI:
    """Routes, the request log, and scripted faults served before the routes."""

    routes: dict[tuple[str, str], Route] = field(default_factory=dict)
    prefix_routes: list[tuple[str, str, Route]] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)
    faults: list[Reply] = field(default_factory=list)
    latency: float = 0.0
    url: str = ""
    # the time the `Date` header of every answer says (a fake with its own clock); None: no Date
    date_clock: Callable[[], float] | None = time.time
    lock: threading.Lock = field(default_factory=threading.Lock)

    def route(self, method: str, path: str, handler: Route) -> None:
        self.routes[(method, path)] = handler

    def route_prefix(self, method: str, prefix: str, handler: Route) -> None:
        self.prefix_routes.append((method, prefix, handler))

    def fail_next(
        self,
        status: int,
        headers: dict[str, str] | None = None,
        payload: Any = None,
        times: int = 1,
    ) -> None:
        """The next `times` requests get this reply instead of their route's."""
        for _ in range(times):
            self.faults.append((status, headers or {}, payload or {"message": "fault"}))

    def dispatch(self, rec: Recorded) -> Reply:
        with self.lock:
            self.requests.append(rec)
            fault = self.faults.pop(0) if self.faults else None
        if fault is not None:
            return fault
        route = self.routes.get((rec.method, rec.path))
        if route is None:
            route = next(
                (h for m, p, h in self.prefix_routes if m == rec.method and rec.path.startswith(p)),
                None,
            )
        if route is None:
            return 404, {}, {"message": "Not Found"}
        return route(rec)

    def calls(self, method: str | None = None, path: str | None = None) -> list[Recorded]:
        return [
            r
            for r in self.requests
            if (method is None or r.method == method) and (path is None or r.path == path)
        ]


def _encode(payload: Any) -> tuple[bytes, str]:
    if isinstance(payload, bytes):
        return payload, "application/octet-stream"
    if isinstance(payload, str):
        return payload.encode(), "text/plain; charset=utf-8"
    return json.dumps(payload).encode(), "application/json; charset=utf-8"


def _handler_for(api: FakeAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms stall

        def _handle(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            parts = urlsplit(self.path)
            rec = Recorded(
                self.command, parts.path, parse_qs(parts.query), dict(self.headers), body
            )
            if api.latency:
                threading.Event().wait(api.latency)
            status, headers, payload = api.dispatch(rec)
            data, ctype = _encode(payload) if status != 304 else (b"", "")
            self.send_response(status)
            merged = {"content-type": ctype, **headers} if ctype else dict(headers)
            for key, value in merged.items():
                self.send_header(key, value)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            if data:
                self.wfile.write(data)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _handle  # noqa: N815 - stdlib names

        def send_response(self, code: int, message: str | None = None) -> None:
            self.log_request(code)
            self.send_response_only(code, message)
            self.send_header("Server", self.version_string())
            if api.date_clock is not None:
                self.send_header("Date", self.date_time_string(int(api.date_clock())))

        def log_message(self, format: str, *args: object) -> None:
            return

    return Handler


@contextmanager
def serve(api: FakeAPI) -> Iterator[FakeAPI]:
    """Run `api` on 127.0.0.1 on a port the OS picks; `api.url` is its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(api))
    server.daemon_threads = True
    api.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
