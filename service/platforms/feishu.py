"""Feishu / Lark behind the seam, as two platforms: the app bot (`feishu:oc_…` chats, cards
edited in place, commands over POST /feishu/events or the long connection) and the custom-bot
webhook (`feishu-webhook:default`, the card only). The Feishu code itself stays in service/feishu
and service/render/feishu.py; this module composes it from the settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.delivery.destination import Destination, split_language
from service.delivery.outbox import RECORDED_AS
from service.errors import ConfigError, InputError
from service.platforms.base import Inbound, InboundDeps, secret
from service.render.cards import FEISHU_CARD, CardFormat
from service.settings import Settings

if TYPE_CHECKING:
    from service.delivery.outbox import Sender
    from service.feishu.auth import TenantTokenCache
    from service.feishu.events import FeishuEvents
    from service.feishu.longconn import LongConnection
    from service.ops.doctor import Finding
    from service.render.links import ReportLinks

EVENTS_PATH = "/feishu/events"
WEBHOOK = "feishu-webhook"
# FEISHU_WEBHOOK_URL is the one custom bot: its destination is `feishu-webhook:default`
DEFAULT_HOOK = "default"
WEBHOOK_DESTINATION = f"{WEBHOOK}:{DEFAULT_HOOK}"


class FeishuAppPlatform:
    name = "feishu"
    card: CardFormat = FEISHU_CARD
    paths: tuple[str, ...] = (EVENTS_PATH,)
    syntax = "feishu:CHAT_ID"

    def configured(self, settings: Settings) -> bool:
        return bool(settings.feishu_app_id)

    def destinations(self, settings: Settings) -> list[Destination]:
        pairs = (split_language(item) for item in settings.feishu_chat_ids)
        return [Destination(self.name, chat, lang) for chat, lang in pairs]

    def parse_target(self, target: str) -> str:
        return target

    def sender(self, settings: Settings, links: ReportLinks | None) -> Sender | None:
        if not (settings.feishu_app_id and settings.feishu_app_secret):
            return None
        from service.feishu.sender import FeishuSender

        return FeishuSender(
            base_url=settings.feishu_base_url,
            app_id=settings.feishu_app_id,
            app_secret=secret(settings.feishu_app_secret) or "",
            public_base_url=settings.public_base_url,
            language=settings.digest_language,
            report_url=links.url if links is not None else None,
        )

    def check_settings(self, settings: Settings) -> None:
        if settings.feishu_event_mode == "websocket" and not (
            settings.feishu_app_id and settings.feishu_app_secret
        ):
            raise ConfigError(
                "invalid setting FEISHU_EVENT_MODE: websocket needs FEISHU_APP_ID and "
                "FEISHU_APP_SECRET"
            )

    def inbound(self, settings: Settings, deps: InboundDeps) -> Inbound | None:
        """POST /feishu/events, and with FEISHU_EVENT_MODE=websocket the long connection too,
        both through the same event handling."""
        events = _feishu_events(settings, deps)
        if events is None:
            return None
        connections = []
        if settings.feishu_event_mode == "websocket":
            connections.append(lambda: _start_long_connection(settings, events))
        return Inbound(routes={EVENTS_PATH: events.respond}, connections=connections)

    def doctor(self, settings: Settings, subscribed: list[str]) -> list[Finding]:
        from service.ops.doctor import guarded

        found: list[Finding] = []
        if settings.feishu_app_id and settings.feishu_app_secret:
            found += guarded("feishu", lambda: _doctor_feishu(settings, subscribed))
        if settings.feishu_app_id or settings.feishu_event_mode == "websocket":
            found += guarded("feishu", lambda: _doctor_feishu_events(settings))
        return found


class FeishuWebhookPlatform:
    name = WEBHOOK
    card: CardFormat = FEISHU_CARD
    paths: tuple[str, ...] = ()  # a custom bot takes no commands
    syntax = WEBHOOK_DESTINATION

    def configured(self, settings: Settings) -> bool:
        return bool(settings.feishu_webhook_url)

    def destinations(self, settings: Settings) -> list[Destination]:
        if not settings.feishu_webhook_url:
            return []
        return [Destination(self.name, DEFAULT_HOOK, settings.feishu_webhook_language)]

    def parse_target(self, target: str) -> str:
        if target != DEFAULT_HOOK:
            raise InputError(
                f"bad --to item {self.name}:{target}: FEISHU_WEBHOOK_URL is the one custom "
                f"bot, named {WEBHOOK_DESTINATION}"
            )
        return target

    def sender(self, settings: Settings, links: ReportLinks | None) -> Sender | None:
        if not settings.feishu_webhook_url:
            return None
        from service.feishu.webhook import WebhookSender

        return WebhookSender(
            url=settings.feishu_webhook_url,
            secret=secret(settings.feishu_webhook_secret),
            public_base_url=settings.public_base_url,
            language=settings.feishu_webhook_language or settings.digest_language,
            report_url=links.url if links is not None else None,
        )

    def check_settings(self, settings: Settings) -> None:
        return None

    def inbound(self, settings: Settings, deps: InboundDeps) -> Inbound | None:
        return None

    def doctor(self, settings: Settings, subscribed: list[str]) -> list[Finding]:
        from service.operator_text import DESTINATION_RENAMED
        from service.ops.doctor import guarded, ok

        if not settings.feishu_webhook_url:
            return []
        found = guarded("webhook", lambda: _doctor_webhook(settings))
        old = RECORDED_AS[WEBHOOK_DESTINATION]
        return [*found, ok("webhook", DESTINATION_RENAMED.format(old=old, new=self.syntax))]


def _feishu_events(settings: Settings, deps: InboundDeps) -> FeishuEvents | None:
    if not (settings.feishu_app_id and settings.feishu_app_secret):
        return None
    from service.feishu.api import FeishuApi
    from service.feishu.events import build_feishu_events

    return build_feishu_events(
        events=deps.store.events,
        api=FeishuApi(_tokens(settings)),
        engine=deps.engine,
        verification_token=secret(settings.feishu_verification_token),
        encrypt_key=secret(settings.feishu_encrypt_key),
        regenerate=deps.regenerate,
        observe=deps.observe,
    )


def _tokens(settings: Settings) -> TenantTokenCache:
    from service.feishu.auth import TenantTokenCache

    return TenantTokenCache(
        base_url=settings.feishu_base_url,
        app_id=settings.feishu_app_id or "",
        app_secret=secret(settings.feishu_app_secret) or "",
    )


def _start_long_connection(settings: Settings, events: FeishuEvents) -> LongConnection:
    """FEISHU_EVENT_MODE=websocket: events over Feishu's long connection, through the same
    handling as POST /feishu/events; refused credentials stop start-up in one line."""
    from service.errors import AuthRefusedError
    from service.feishu.longconn import LongConnection

    connection = LongConnection(
        base_url=settings.feishu_base_url,
        app_id=settings.feishu_app_id or "",
        app_secret=secret(settings.feishu_app_secret) or "",
        handle=events.handle_pushed,
    )
    try:
        connection.start()
    except AuthRefusedError as exc:
        raise ConfigError(f"invalid setting FEISHU_APP_SECRET: {exc.message}") from None
    return connection


def _doctor_feishu(settings: Settings, subscribed: list[str]) -> list[Finding]:
    from service.feishu.api import FeishuApi
    from service.platforms.feishu_doctor import check_feishu

    configured = [split_language(c)[0] for c in settings.feishu_chat_ids]
    return check_feishu(
        FeishuApi(_tokens(settings)), list(dict.fromkeys([*configured, *subscribed]))
    )


def _doctor_webhook(settings: Settings) -> list[Finding]:
    from service.feishu.webhook import WebhookSender
    from service.platforms.feishu_doctor import check_webhook

    sender = WebhookSender(
        url=settings.feishu_webhook_url or "",
        secret=secret(settings.feishu_webhook_secret),
        public_base_url=settings.public_base_url,
        language=settings.digest_language,
    )
    return check_webhook(sender, signed=bool(settings.feishu_webhook_secret))


def _doctor_feishu_events(settings: Settings) -> list[Finding]:
    from service.feishu.longconn import LongConnection
    from service.platforms.feishu_doctor import FeishuEventSettings, check_feishu_events

    endpoint = None
    if settings.feishu_app_id and settings.feishu_app_secret:
        connection = LongConnection(
            base_url=settings.feishu_base_url,
            app_id=settings.feishu_app_id,
            app_secret=secret(settings.feishu_app_secret) or "",
            handle=lambda _event: {},  # never connected: the endpoint is only asked for a URL
        )
        endpoint = connection.endpoint
    events = FeishuEventSettings(
        mode=settings.feishu_event_mode,
        verification_token=bool(settings.feishu_verification_token),
        encrypt_key=bool(settings.feishu_encrypt_key),
        public_base_url=settings.public_base_url,
        token=secret(settings.feishu_verification_token),
    )
    return check_feishu_events(events, endpoint)


FEISHU_APP = FeishuAppPlatform()
FEISHU_WEBHOOK = FeishuWebhookPlatform()
