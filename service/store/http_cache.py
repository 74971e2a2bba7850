"""The HTTP cache: ETag and body of each REST GET, by request key (satisfies
github.http.HttpCache)."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, select

from service.store import tables as t
from service.store.aggregate import Aggregate, utc_now
from service.store.translate import translated
from service.store.upsert import upsert


class HttpCacheTable(Aggregate):
    """The `http_cache` table."""

    @translated
    def cache_get(self, key: str) -> tuple[str, str] | None:
        """(etag, body) stored for `key`, if any."""
        query = select(t.http_cache.c.etag, t.http_cache.c.body).where(t.http_cache.c.key == key)
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return (row[0], row[1]) if row else None

    @translated
    def cache_put(self, key: str, etag: str, body: str) -> None:
        row = {"key": key, "etag": etag, "body": body, "updated_at": utc_now()}
        with self._tx() as conn:
            upsert(conn, t.http_cache, ("key",), [row])

    @translated
    def cache_fresh(self, key: str, max_age: timedelta) -> str | None:
        """The body stored for `key` if it was stored less than `max_age` ago."""
        c = t.http_cache.c
        query = select(c.body).where(c.key == key, c.updated_at > utc_now() - max_age)
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return row[0] if row else None

    @translated
    def prune_before(self, before: datetime) -> int:
        """Drop the entries written before `before`; returns how many."""
        with self._tx() as conn:
            result = conn.execute(delete(t.http_cache).where(t.http_cache.c.updated_at < before))
        return int(result.rowcount)
