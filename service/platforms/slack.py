"""Slack behind the seam: channels `slack:C0123`, Block Kit cards, the bolt app over signed HTTP
requests (POST /slack/events) and/or Socket Mode, and doctor's checks. The Slack code itself
stays in service/slack and service/render/slack.py; this module composes it from the settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.delivery.destination import Destination, split_language
from service.errors import ConfigError, InputError
from service.platforms.base import Inbound, InboundDeps, secret
from service.render.cards import SLACK_CARD, CardFormat
from service.settings import Settings

if TYPE_CHECKING:
    from slack_bolt import App

    from service.delivery.outbox import Sender
    from service.ops.doctor import Finding
    from service.render.links import ReportLinks
    from service.slack.socket_mode import SocketModeWatch

EVENTS_PATH = "/slack/events"


class SlackPlatform:
    name = "slack"
    card: CardFormat = SLACK_CARD
    paths: tuple[str, ...] = (EVENTS_PATH,)
    syntax = "slack:CHANNEL"

    def configured(self, settings: Settings) -> bool:
        return bool(settings.slack_bot_token)

    def destinations(self, settings: Settings) -> list[Destination]:
        pairs = (split_language(item) for item in settings.slack_channels)
        return [Destination(self.name, self.parse_target(c), lang) for c, lang in pairs]

    def parse_target(self, target: str) -> str:
        channel = target.lstrip("#")
        if not channel:
            raise InputError(f"bad --to item {self.name}:{target}: expected {self.syntax}")
        return channel

    def sender(self, settings: Settings, links: ReportLinks | None) -> Sender | None:
        if not settings.slack_bot_token:
            return None
        from service.slack.sender import SlackSender, build_web_client

        client = build_web_client(secret(settings.slack_bot_token) or "", settings.slack_api_url)
        return SlackSender(
            client,
            public_base_url=settings.public_base_url,
            language=settings.digest_language,
            report_url=links.url if links is not None else None,
        )

    def check_settings(self, settings: Settings) -> None:
        if settings.slack_app_token and not settings.slack_bot_token:
            raise ConfigError(
                "invalid setting SLACK_APP_TOKEN: Socket Mode needs SLACK_BOT_TOKEN too (to answer)"
            )

    def inbound(self, settings: Settings, deps: InboundDeps) -> Inbound | None:
        """Signed requests at POST /slack/events (only with SLACK_SIGNING_SECRET: unsigned
        requests are never served) and/or Socket Mode (SLACK_APP_TOKEN)."""
        app = _slack_app(settings, deps)
        if app is None:
            return None
        from service.slack.app import build_slack_endpoint

        routes = {EVENTS_PATH: build_slack_endpoint(app)} if settings.slack_signing_secret else {}
        connections = (
            [lambda: _start_socket_mode(settings, app)] if settings.slack_app_token else []
        )
        return Inbound(routes=routes, connections=connections)

    def doctor(self, settings: Settings, subscribed: list[str]) -> list[Finding]:
        from service.operator_text import SOCKET_MODE_WITHOUT_BOT
        from service.ops.doctor import guarded, problem

        if settings.slack_bot_token:
            return guarded("slack", lambda: _doctor_slack(settings, subscribed))
        if settings.slack_app_token:
            return [problem("slack", SOCKET_MODE_WITHOUT_BOT)]
        return []


def _slack_app(settings: Settings, deps: InboundDeps) -> App | None:
    """The bolt app when commands can reach it: signed HTTP requests (SLACK_SIGNING_SECRET) or
    Socket Mode (SLACK_APP_TOKEN), either or both."""
    if not (
        settings.slack_bot_token and (settings.slack_signing_secret or settings.slack_app_token)
    ):
        return None
    from service.slack.app import build_slack_app
    from service.slack.sender import build_web_client

    return build_slack_app(
        client=build_web_client(secret(settings.slack_bot_token) or "", settings.slack_api_url),
        signing_secret=secret(settings.slack_signing_secret) or "",
        engine=deps.engine,
        regenerate=deps.regenerate,
        command=settings.slack_command,
        language=deps.language,
        observe=deps.observe,
    )


def _start_socket_mode(settings: Settings, app: App) -> SocketModeWatch:
    """Socket Mode on (SLACK_APP_TOKEN set): a refused token stops start-up in one line."""
    from service.errors import AuthRefusedError
    from service.slack.socket_mode import start_socket_mode

    try:
        return start_socket_mode(app, secret(settings.slack_app_token) or "")
    except AuthRefusedError as exc:
        raise ConfigError(f"invalid setting SLACK_APP_TOKEN: {exc.message}") from None


def _doctor_slack(settings: Settings, subscribed: list[str]) -> list[Finding]:
    from service.platforms.slack_doctor import check_slack
    from service.slack.probe import bot_identity, channel_access, socket_url
    from service.slack.sender import build_web_client

    client = build_web_client(secret(settings.slack_bot_token) or "", settings.slack_api_url)
    configured = [split_language(c)[0] for c in settings.slack_channels]
    app_token = secret(settings.slack_app_token)
    return check_slack(
        lambda: bot_identity(client),
        lambda channel: channel_access(client, channel),
        list(dict.fromkeys([*configured, *subscribed])),
        signing_secret=bool(settings.slack_signing_secret),
        socket=(lambda: socket_url(client, app_token)) if app_token else None,
    )


SLACK = SlackPlatform()
