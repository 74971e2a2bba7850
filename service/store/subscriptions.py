"""Subscriptions: which channels get a scope's cards, with a filter, a language and a cadence
(satisfies commands.context.Subscriptions)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from service.store import tables as t
from service.store.aggregate import Aggregate, utc_now
from service.store.translate import translated


@dataclass(frozen=True)
class SubscriptionRecord:
    """A channel's subscription to a scope's card (`repo`: a repository or a family): its
    filter ("" for every PR), its language (None: the channel's or the default) and its
    cadence (`weekly`, `monthly`)."""

    platform: str
    channel: str
    repo: str
    filter: str
    language: str | None
    cadence: str = "weekly"

    @property
    def destination(self) -> str:
        return f"{self.platform}:{self.channel}"


def _record(row: Any) -> SubscriptionRecord:
    m = row._mapping
    return SubscriptionRecord(
        m["platform"], m["channel"], m["repo"], m["filter"], m["language"], m["cadence"]
    )


class Subscribers(Aggregate):
    """The `subscriptions` table."""

    @translated
    def subscribe(
        self,
        platform: str,
        channel: str,
        repo: str,
        added_by: str | None,
        *,
        filter_text: str = "",
        language: str | None = None,
        cadence: str = "weekly",
    ) -> bool:
        """Add a channel's subscription (scope + filter + cadence); False when it was already
        there (its language then becomes `language`, when one is given)."""
        try:
            with self._tx() as conn:
                conn.execute(
                    insert(t.subscriptions).values(
                        platform=platform,
                        channel=channel,
                        repo=repo,
                        filter=filter_text,
                        language=language,
                        added_by=added_by,
                        created_at=utc_now(),
                        cadence=cadence,
                    )
                )
        except IntegrityError:
            if language:
                c = t.subscriptions.c
                where = (c.platform == platform, c.channel == channel, c.repo == repo)
                with self._tx() as conn:
                    conn.execute(
                        update(t.subscriptions)
                        .where(*where, c.filter == filter_text, c.cadence == cadence)
                        .values(language=language)
                    )
            return False
        return True

    @translated
    def unsubscribe(
        self,
        platform: str,
        channel: str,
        repo: str,
        *,
        filter_text: str | None = None,
        cadence: str | None = None,
    ) -> int:
        """Remove a channel's subscription with that filter and cadence (every one of the
        scope when `filter_text` / `cadence` is None); returns how many went."""
        c = t.subscriptions.c
        query = delete(t.subscriptions).where(
            c.platform == platform, c.channel == channel, c.repo == repo
        )
        if filter_text is not None:
            query = query.where(c.filter == filter_text)
        if cadence is not None:
            query = query.where(c.cadence == cadence)
        with self._tx() as conn:
            result = conn.execute(query)
        return int(result.rowcount)

    @translated
    def subscription_records(
        self, repo: str | None = None, platform: str | None = None
    ) -> list[SubscriptionRecord]:
        """Subscriptions (of `repo`, of `platform`), oldest first."""
        c = t.subscriptions.c
        query = select(t.subscriptions).order_by(c.id)
        if repo:
            query = query.where(c.repo == repo)
        if platform:
            query = query.where(c.platform == platform)
        with self.engine.connect() as conn:
            return [_record(row) for row in conn.execute(query)]

    def subscriptions(self, repo: str, platform: str | None = None) -> list[tuple[str, str]]:
        """(platform, channel) pairs subscribed to `repo`, each once."""
        pairs = [(s.platform, s.channel) for s in self.subscription_records(repo, platform)]
        return list(dict.fromkeys(pairs))

    @translated
    def channel_subscriptions(self, platform: str, channel: str) -> list[SubscriptionRecord]:
        """Every subscription of one channel, any repo, oldest first."""
        c = t.subscriptions.c
        query = (
            select(t.subscriptions)
            .where(c.platform == platform, c.channel == channel)
            .order_by(c.id)
        )
        with self.engine.connect() as conn:
            return [_record(row) for row in conn.execute(query)]
