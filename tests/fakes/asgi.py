"""Run an ASGI app (our real web app) with uvicorn on 127.0.0.1 in a thread, for tests."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from tests.waiting import wait_for

STARTUP_SECONDS = 10.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def run_app(app: Any) -> Iterator[str]:
    """Serve `app` for the duration of the block; yields its base URL.

    The socket is bound here (port 0) and handed to uvicorn, so no other test process (xdist
    workers run side by side) can take the port between choosing it and listening on it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = int(sock.getsockname()[1])
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()

    def started() -> bool:
        if not thread.is_alive():
            raise RuntimeError("uvicorn stopped before it started")
        return server.started

    wait_for(started, STARTUP_SECONDS, "uvicorn started")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=STARTUP_SECONDS)
        sock.close()
