"""Where a repository's weekly cards go, and in which language: the chats the settings name
(SLACK_CHANNELS, FEISHU_CHAT_IDS, the Feishu custom-bot webhook) and the chats subscribed by
command. Built by wiring from the settings' values; knows no setting itself."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from service.delivery.outbox import Target

if TYPE_CHECKING:
    from service.store.repository import Store


@dataclass(frozen=True)
class Routes:
    """The chats the settings name (`platform:id` → the language they give it, None: the
    default) and the store's subscriptions."""

    store: Store
    configured: Mapping[str, str | None]

    def destinations_for(self, repo: str) -> list[Target]:
        """Every target of a repo's weekly card: the configured chats (the whole week), then
        the subscriptions, each with its filter and language (a subscription of a configured
        chat without a filter replaces it)."""
        found = {(d, ""): Target(d, "", lang) for d, lang in self.configured.items()}
        for sub in self.store.subscription_records(self.store.canonical_repo(repo)):
            lang = sub.language or self.configured.get(sub.destination)
            found[(sub.destination, sub.filter)] = Target(sub.destination, sub.filter, lang)
        return list(found.values())

    def named_targets(self, destinations: list[str]) -> list[Target]:
        """`post --to …`: the whole week to each destination, in the chat's own language."""
        return [Target(d, "", self.channel_language(*d.split(":", 1))) for d in destinations]

    def channel_language(self, platform: str, channel: str) -> str | None:
        """A chat's own language: the one its setting gives it, else the language of one of
        its subscriptions (answers in that channel use it)."""
        found = self.configured.get(f"{platform}:{channel}")
        if found:
            return found
        subscribed = self.store.channel_subscriptions(platform, channel)
        return next((s.language for s in subscribed if s.language), None)

    def is_configured(self, platform: str, channel: str) -> bool:
        """Whether the settings send the weekly card to this chat."""
        return f"{platform}:{channel}" in self.configured
