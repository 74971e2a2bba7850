"""The one interface every chat platform implements, and the small values it trades in.

A platform is the composition of one adapter package (service/slack, service/feishu, …) from the
settings: how its destinations are named, the card format it renders (and the limits that card
is fitted to), the sender that posts it, the receivers that bring its commands in (HTTP routes
and/or connections it opens itself), and what `doctor` asks it. wiring.py, web.py, the CLI's
formats and doctor loop over the registered platforms (registry.py) and name none of them.

Every method gets the service's Settings (public URL, default language, and the built-in
platforms' own fields). A platform added later reads its own settings with a pydantic-settings
model in its package (env prefix of its own), so that it adds nothing to service/settings.py.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from service.observe.connection_health import ConnectionHealth

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from service.commands.answer import EngineContext
    from service.commands.flow import ObserveCommand, Regenerate
    from service.delivery.destination import Destination
    from service.delivery.outbox import Sender
    from service.ops.doctor import Finding
    from service.render.cards import CardFormat
    from service.render.links import ReportLinks
    from service.settings import Settings
    from service.store.repository import Store

Endpoint = Callable[["Request"], Awaitable["Response"]]
Close = Callable[[], None]


class OpenConnection(Protocol):
    """A socket or long connection a platform opened to bring its events in."""

    def close(self) -> None: ...

    def health(self) -> ConnectionHealth: ...


# opens a socket or long connection that brings events in
Connect = Callable[[], OpenConnection]


@dataclass(frozen=True)
class InboundDeps:
    """What a platform's receivers are given: the command engine, the rebuild, where events are
    remembered (at-least-once platforms deliver some twice) and where answers are counted."""

    engine: EngineContext
    store: Store
    regenerate: Regenerate
    observe: ObserveCommand | None
    language: str


@dataclass(frozen=True)
class Inbound:
    """How commands reach the service: POST routes of the web app, connections opened at start."""

    routes: Mapping[str, Endpoint] = field(default_factory=dict)
    connections: Sequence[Connect] = ()


class Platform(Protocol):
    """One chat platform behind the seam."""

    # the destination prefix (`slack:C0123`): the platform's name everywhere (senders, metrics)
    name: str
    # the card the platform posts and answers with, and its size limits
    card: CardFormat
    # POST routes it owns on the web app (answered 503 while it is not configured)
    paths: tuple[str, ...]
    # how a destination names a target, for help and errors (`slack:CHANNEL`)
    syntax: str

    def configured(self, settings: Settings) -> bool:
        """Whether the settings deliver to this platform at all (its cards link to the web)."""
        ...

    def destinations(self, settings: Settings) -> list[Destination]:
        """Its destinations the settings configure (weekly, every scope), each with its
        language (None: the default)."""
        ...

    def parse_target(self, target: str) -> str:
        """A target as typed after `name:` → as stored; InputError with the syntax when bad."""
        ...

    def sender(self, settings: Settings, links: ReportLinks | None) -> Sender | None:
        """The sender of its cards, None when the settings don't configure one."""
        ...

    def check_settings(self, settings: Settings) -> None:
        """ConfigError when a receiver is asked for without what it needs (checked at start)."""
        ...

    def inbound(self, settings: Settings, deps: InboundDeps) -> Inbound | None:
        """Its receivers, None when it takes no commands (or the settings don't let it)."""
        ...

    def doctor(self, settings: Settings, subscribed: list[str]) -> list[Finding]:
        """`verl-week doctor`'s lines about it; `subscribed`: its channels subscribed by command.
        Empty when the settings don't name it."""
        ...


def secret(value: object) -> str | None:
    """The plain value of an optional SecretStr (only where clients are built)."""
    getter = getattr(value, "get_secret_value", None)
    return getter() if getter else None
