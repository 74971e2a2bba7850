"""What every aggregate of the store shares: the engine, a transaction, UTC now, and the
`period_kind` column of a row keyed by a period label."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from sqlalchemy import Connection, Engine

from service.core.periods import kind_of


def period_kind(label: str) -> str:
    """The `period_kind` column of a row keyed by `label` (`week` for anything else)."""
    return kind_of(label) or "week"


def utc_now() -> datetime:
    return datetime.now(UTC)


def aware(value: datetime) -> datetime:
    # SQLite hands back naive datetimes even for timezone=True columns; we only store UTC.
    return value if value.tzinfo else value.replace(tzinfo=UTC)


class Aggregate:
    """The tables of one aggregate, over the store's shared engine; safe to share between
    threads (each call takes its own connection)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        with self.engine.begin() as conn:
            yield conn
