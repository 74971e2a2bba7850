"""A TCP proxy on 127.0.0.1 in front of the test PostgreSQL server that can be cut: every open
connection dropped and new ones refused (the database is down), then healed."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.engine import make_url

CHUNK = 65536


class CuttableProxy:
    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.down = False
        self.refused = 0
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._accept, name="proxy", daemon=True)

    def url_for(self, database_url: str) -> str:
        """`database_url` pointed at the proxy instead of the server."""
        url = make_url(database_url).set(host="127.0.0.1", port=self.port)
        return url.render_as_string(hide_password=False)

    def start(self) -> CuttableProxy:
        self._thread.start()
        return self

    def cut(self) -> None:
        with self._lock:
            self.down = True
            sockets, self._open = self._open, set()
        for sock in sockets:
            _close(sock)

    def heal(self) -> None:
        with self._lock:
            self.down = False

    def close(self) -> None:
        self.cut()
        _close(self.listener)

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self._lock:
                down = self.down
            if down:
                self.refused += 1
                _close(client)
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=10)
            except OSError:
                _close(client)
                continue
            upstream.settimeout(None)
            with self._lock:
                self._open.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pump, args=(a, b), daemon=True).start()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(CHUNK):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        _close(source)
        _close(sink)


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()


@contextmanager
def proxied(database_url: str) -> Iterator[CuttableProxy]:
    url = make_url(database_url)
    proxy = CuttableProxy(url.host or "127.0.0.1", url.port or 5432).start()
    try:
        yield proxy
    finally:
        proxy.close()
