"""Every platform's receivers started for `serve`: the web routes (each platform's paths, served
503 while it is not configured) and the connections it opens itself (Slack's Socket Mode,
Feishu's long connection), closed in turn at shutdown."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from service.connection_health import ConnectionHealth
from service.errors import ServiceError
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

    @property
    def closes(self) -> list[Close]:
        return [connection.close for connection in self.connections]

    def health(self) -> list[ConnectionHealth]:
        return [connection.health() for connection in self.connections]


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
    except ServiceError:
        in_turn(started.closes)()
        raise
    return started


def in_turn(calls: list[Callable[[], None]]) -> Callable[[], None]:
    def run() -> None:
        for call in calls:
            call()

    return run
