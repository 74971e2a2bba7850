"""Where a scope's cards go, at which cadence and in which language: the destinations the
settings name (SLACK_CHANNELS, FEISHU_CHAT_IDS, the Feishu custom-bot webhook weekly,
DIGEST_MONTHLY_DESTINATIONS monthly) and the chats subscribed by command, one table of
Destinations. Built by wiring from the settings' values; knows no setting itself."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from service.delivery.destination import WEEKLY, Destination
from service.delivery.outbox import Target

if TYPE_CHECKING:
    from service.store.repository import Store, SubscriptionRecord


def subscribed(sub: SubscriptionRecord) -> Destination:
    """A subscription made by command, as a Destination of its scope and cadence."""
    return Destination(
        sub.platform, sub.channel, sub.language, sub.filter, cadence=sub.cadence, scope=sub.repo
    )


@dataclass(frozen=True)
class Routes:
    """The destinations the settings name and the store's subscriptions. A configured
    destination without a scope gets the cards of every scope of `every` (DIGEST_REPOS; empty:
    of any scope), not those of a scope only subscribed to by command (a family, say)."""

    store: Store
    configured: Sequence[Destination]
    every: Sequence[str] = ()

    def destinations(self, scope: str | None = None) -> list[Destination]:
        """Every route: the configured ones, then the subscriptions (of `scope`), oldest first."""
        repo = self.store.canonical_repo(scope) if scope else None
        subs = self.store.subscription_records(repo)
        return [*self.configured, *map(subscribed, subs)]

    def destinations_for(self, scope: str, cadence: str = WEEKLY) -> list[Target]:
        """Every target of a scope's card of `cadence`: the configured chats (the whole period),
        then the subscriptions, each with its filter and language (a subscription of a
        configured chat without a filter replaces it)."""
        found: dict[tuple[str, str], Target] = {}
        current = self.store.canonical_repo(scope)
        for route in self.destinations(scope):
            if route.serves(current, cadence) and (route.scope or self._every(current)):
                found[(route.name, route.filter)] = route.as_target(self._configured(route.name))
        return list(found.values())

    def _every(self, scope: str) -> bool:
        """Whether the configured routes (those of no scope of their own) serve `scope`."""
        return not self.every or scope in {self.store.canonical_repo(s) for s in self.every}

    def scopes(self, cadence: str, every: Sequence[str]) -> list[str]:
        """The scopes with routes of `cadence`, each once: `every` (DIGEST_REPOS) when a
        configured route of that cadence takes every scope, then those subscribed to."""
        found = list(every) if any(d.serves("", cadence) for d in self.configured) else []
        routes = [subscribed(s) for s in self.store.subscription_records()]
        found += [r.scope for r in routes if r.cadence == cadence and r.scope]
        return list(dict.fromkeys(found))

    def named_targets(self, destinations: list[str]) -> list[Target]:
        """`post --to …`: the whole period to each destination, in the chat's own language."""
        return [Target(d, "", self.channel_language(*d.split(":", 1))) for d in destinations]

    def channel_language(self, platform: str, channel: str) -> str | None:
        """A chat's own language: the one its setting gives it, else the language of one of
        its subscriptions (answers in that channel use it)."""
        found = self._configured(f"{platform}:{channel}")
        if found:
            return found
        subscribed = self.store.channel_subscriptions(platform, channel)
        return next((s.language for s in subscribed if s.language), None)

    def is_configured(self, platform: str, channel: str) -> bool:
        """Whether the settings send cards (of any cadence) to this chat."""
        return any(d.name == f"{platform}:{channel}" for d in self.configured)

    def _configured(self, name: str) -> str | None:
        """The language the settings give the chat `name` (None: none, or not configured)."""
        return next((d.language for d in self.configured if d.name == name and d.language), None)
