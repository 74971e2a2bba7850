"""Inbound events already handled, by id: a platform's retry of one is recognised and dropped
(satisfies feishu.events.EventLog)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, insert
from sqlalchemy.exc import IntegrityError

from service.store import tables as t
from service.store.aggregate import Aggregate, utc_now
from service.store.translate import translated


class InboundEvents(Aggregate):
    """The `processed_events` table."""

    @translated
    def remember_event(self, event_id: str, platform: str) -> bool:
        """True the first time `event_id` is seen; False for a retry of a handled event."""
        try:
            with self._tx() as conn:
                conn.execute(
                    insert(t.processed_events).values(
                        event_id=event_id, platform=platform, received_at=utc_now()
                    )
                )
        except IntegrityError:
            return False
        return True

    @translated
    def prune_before(self, before: datetime) -> int:
        """Drop the ids received before `before`; returns how many."""
        with self._tx() as conn:
            result = conn.execute(
                delete(t.processed_events).where(t.processed_events.c.received_at < before)
            )
        return int(result.rowcount)
