"""Keys the service makes for itself (the report links' key): made once, by whichever process
asks first, and read by every other."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from service.store import tables as t
from service.store.aggregate import Aggregate, utc_now
from service.store.translate import translated


class ServiceKeys(Aggregate):
    """The `service_keys` table."""

    @translated
    def service_key(self, name: str, make: Callable[[], str]) -> str:
        """The key stored under `name`; the first process to ask stores `make()`, every other
        one (another replica, a restart) reads that same value."""
        query = select(t.service_keys.c.value).where(t.service_keys.c.name == name)
        with self.engine.connect() as conn:
            found = conn.execute(query).scalar()
        if found is not None:
            return str(found)
        try:
            with self._tx() as conn:
                conn.execute(
                    insert(t.service_keys).values(name=name, value=make(), created_at=utc_now())
                )
        except IntegrityError:
            pass  # another process stored it first: theirs is the key
        with self.engine.connect() as conn:
            return str(conn.execute(query).scalar_one())
