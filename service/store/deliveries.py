"""The outbox log: each card's delivery to a destination, from intent to sent, failed or
unknown (satisfies delivery.outbox.DeliveryLog)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError

from service.core.models import Period
from service.store import tables as t
from service.store.aggregate import Aggregate, period_kind, utc_now
from service.store.translate import translated

ERROR_TEXT_LIMIT = 2000  # characters of an error kept with a delivery


@dataclass(frozen=True)
class DeliveryRecord:
    id: int
    repo: str
    period: str
    destination: str
    status: str
    message_id: str | None
    idempotency_key: str
    attempts: int
    error: str | None
    filter: str = ""


def _record(row: Any) -> DeliveryRecord:
    m = row._mapping
    return DeliveryRecord(
        m["id"],
        m["repo"],
        m["period"],
        m["destination"],
        m["status"],
        m["message_id"],
        m["idempotency_key"],
        m["attempts"],
        m["error"],
        m["filter"],
    )


class Deliveries(Aggregate):
    """The `deliveries` table."""

    @translated
    def get_delivery(
        self, repo: str, period: Period, destination: str, filter_text: str = ""
    ) -> DeliveryRecord | None:
        c = t.deliveries.c
        query = select(t.deliveries).where(
            c.repo == repo,
            c.period == period.label,
            c.destination == destination,
            c.filter == filter_text,
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return _record(row) if row else None

    @translated
    def record_intent(
        self, repo: str, period: Period, destination: str, key: str, filter_text: str = ""
    ) -> DeliveryRecord:
        """Record that we are about to post; returns the existing record if there is one."""
        now = utc_now()
        try:
            with self._tx() as conn:
                conn.execute(
                    insert(t.deliveries).values(
                        repo=repo,
                        period=period.label,
                        period_kind=period_kind(period.label),
                        destination=destination,
                        filter=filter_text,
                        status="intent",
                        idempotency_key=key,
                        attempts=0,
                        created_at=now,
                        updated_at=now,
                    )
                )
        except IntegrityError:
            pass  # another process or an earlier run recorded it first
        record = self.get_delivery(repo, period, destination, filter_text)
        assert record is not None  # noqa: S101 - inserted or already present just above
        return record

    @translated
    def mark_attempt(self, delivery_id: int) -> None:
        self._update(delivery_id, attempts=t.deliveries.c.attempts + 1)

    @translated
    def record_sent(self, delivery_id: int, message_id: str) -> None:
        self._update(delivery_id, status="sent", message_id=message_id, error=None)

    @translated
    def record_failed(self, delivery_id: int, error: str) -> None:
        self._update(delivery_id, status="failed", error=error[:ERROR_TEXT_LIMIT])

    @translated
    def record_unknown(self, delivery_id: int, reason: str) -> None:
        """A send whose arrival can't be known (left unconfirmed by a dead process)."""
        self._update(delivery_id, status="unknown", error=reason[:ERROR_TEXT_LIMIT])

    def _update(self, delivery_id: int, **values: Any) -> None:
        with self._tx() as conn:
            conn.execute(
                update(t.deliveries)
                .where(t.deliveries.c.id == delivery_id)
                .values(**values, updated_at=utc_now())
            )

    @translated
    def list_deliveries(self, repo: str, period: Period) -> list[DeliveryRecord]:
        c = t.deliveries.c
        query = select(t.deliveries).where(c.repo == repo, c.period == period.label).order_by(c.id)
        with self.engine.connect() as conn:
            return [_record(row) for row in conn.execute(query)]
