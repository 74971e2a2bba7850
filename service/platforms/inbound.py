"""Every platform's receivers started for `serve`: the web routes (each platform's paths, served
503 while it is not configured) and the connections it opens itself (Slack's Socket Mode,
Feishu's long connection), closed in turn at shutdown."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from service.errors import ServiceError
from service.observe.connection_health import RECONNECTING, ConnectionHealth
from service.platforms import registry
from service.platforms.base import Close, Endpoint, InboundDeps, OpenConnection

if TYPE_CHECKING:
    from service.settings import Settings


@dataclass
class StartedInbound:
    """POST path → its endpoint (None: the platform owning it is not configured here), and the
    connections opened (their health for /healthz and /metrics, and how to close them)."""

    endpoints: dict[str, Endpoint | None] = field(default_factory=dict)
    connections: list[OpenConnection] = field(default_factory=list)
    platforms: list[str] = field(default_factory=list)  # each connection's platform, in order

    @property
    def closes(self) -> list[Close]:
        return [connection.close for connection in self.connections]

    def health(self) -> list[ConnectionHealth]:
        return [
            _probed(connection, platform)
            for connection, platform in zip(self.connections, self.platforms, strict=True)
        ]


def _probed(connection: OpenConnection, platform: str) -> ConnectionHealth:
    """A connection's health; a probe that fails (a client torn down half-way) reads as
    reconnecting from now: /healthz reports it, never fails on it."""
    try:
        return connection.health()
    except Exception:  # a health probe reports, it never crashes the endpoint
        return ConnectionHealth(platform, RECONNECTING, down_since=time.time())


def start_inbound(settings: Settings, deps: InboundDeps) -> StartedInbound:
    """Check every platform's receiver settings, build its receivers, open its connections; one
    refused, those already open are closed before the error goes up (start-up stops)."""
    for platform in registry.platforms():
        platform.check_settings(settings)
    started = StartedInbound()
    try:
        for platform in registry.platforms():
            started.endpoints.update(dict.fromkeys(platform.paths))
            inbound = platform.inbound(settings, deps)
            if inbound is None:
                continue
            started.endpoints.update(inbound.routes)
            for connect in inbound.connections:
                started.connections.append(connect())
                started.platforms.append(platform.name)
    except ServiceError:
        in_turn(started.closes)()
        raise
    return started


def in_turn(calls: list[Callable[[], None]]) -> Callable[[], None]:
    def run() -> None:
        for call in calls:
            call()

    return run
