"""Counts each HTTP request by its route template (`/reports/{owner}/{repo}/{week}`, never the
raw path: bounded series, no user text in labels) and status, with its latency."""

from __future__ import annotations

import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.observe.metrics import UNMATCHED_ROUTE, Metrics


class HttpMetricsMiddleware:
    """Pure ASGI, outermost but the request id: it sees the status the client gets (413, 503
    included) and the route Starlette's router matched (`scope["route"]`, set while routing)."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = {"code": 500}
        started = time.perf_counter()

        async def send_recording(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_recording)
        finally:
            self.metrics.http_answered(
                scope["method"],
                route_template(scope),
                status["code"],
                time.perf_counter() - started,
            )


def route_template(scope: Scope) -> str:
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) and path else UNMATCHED_ROUTE
