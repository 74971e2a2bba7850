"""A third chat platform, "fake-chat", in one package: its settings, card renderer and limits
(render.py, templates/, strings.toml), its sender (sender.py) and its inbound endpoint
(inbound.py), composed behind the platform seam here. Registering it
(`service.platforms.registry.register(FAKE_CHAT)`) is the only step outside this package.

Its API, served by tests/platforms/test_third_platform.py's fake on 127.0.0.1, is shaped like a
small chat service: POST /messages (bearer token) → {"id"}, PATCH /messages/{id}, GET
/messages?key=… (the message posted with an idempotency key), and a reply URL per event."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic_settings import BaseSettings, SettingsConfigDict

from service.delivery.destination import Destination
from service.errors import InputError
from service.platforms.base import Inbound, InboundDeps
from service.render.cards import CardFormat
from tests.platforms.fake_chat.render import FAKE_CHAT_CARD

if TYPE_CHECKING:
    from service.delivery.outbox import Sender
    from service.ops.doctor import Finding
    from service.render.links import ReportLinks
    from service.settings import Settings

NAME = "fake-chat"
EVENTS_PATH = "/fake-chat/events"


class FakeChatSettings(BaseSettings):
    """Its own settings (FAKE_CHAT_*): a new platform adds none to service/settings.py."""

    model_config = SettingsConfigDict(env_prefix="FAKE_CHAT_", extra="ignore")

    api_url: str | None = None
    token: str | None = None
    signing_secret: str | None = None
    rooms: str = ""  # `room1,room2:en`

    def room_list(self) -> dict[str, str | None]:
        found: dict[str, str | None] = {}
        for item in filter(None, (part.strip() for part in self.rooms.split(","))):
            room, _, lang = item.partition(":")
            found[room] = lang or None
        return found


class FakeChatPlatform:
    name = NAME
    card: CardFormat = FAKE_CHAT_CARD
    paths: tuple[str, ...] = (EVENTS_PATH,)
    syntax = "fake-chat:ROOM"

    def configured(self, settings: Settings) -> bool:
        return bool(FakeChatSettings().api_url)

    def destinations(self, settings: Settings) -> list[Destination]:
        rooms = FakeChatSettings().room_list()
        return [Destination(NAME, room, lang) for room, lang in rooms.items()]

    def parse_target(self, target: str) -> str:
        if not target.isidentifier():
            raise InputError(f"bad --to item {NAME}:{target}: expected {self.syntax}")
        return target

    def sender(self, settings: Settings, links: ReportLinks | None) -> Sender | None:
        own = FakeChatSettings()
        if not (own.api_url and own.token):
            return None
        from tests.platforms.fake_chat.sender import FakeChatSender

        report_url = links.url if links is not None else None
        return FakeChatSender(own.api_url, own.token, settings.digest_language, report_url)

    def check_settings(self, settings: Settings) -> None:
        return None

    def inbound(self, settings: Settings, deps: InboundDeps) -> Inbound | None:
        own = FakeChatSettings()
        if not own.signing_secret:
            return None
        from tests.platforms.fake_chat.inbound import build_endpoint

        return Inbound(routes={EVENTS_PATH: build_endpoint(own.signing_secret, deps)})

    def doctor(self, settings: Settings, subscribed: list[str]) -> list[Finding]:
        from service.ops.doctor import ok, problem

        own = FakeChatSettings()
        if not own.api_url:
            return []
        rooms = [*own.room_list(), *subscribed]
        if own.token:
            return [ok(NAME, f"token set; rooms: {', '.join(rooms) or 'none'}")]
        return [problem(NAME, "FAKE_CHAT_API_URL is set without FAKE_CHAT_TOKEN")]


FAKE_CHAT = FakeChatPlatform()
