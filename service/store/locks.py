"""Named locks across processes, each with an owner and an expiry: a lock left by a dead process
of this host is taken over at once, other hosts' locks can only expire."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from sqlalchemy import delete, insert, select
from sqlalchemy.exc import IntegrityError

from service.store import tables as t
from service.store.aggregate import Aggregate, utc_now
from service.store.owners import is_dead_owner
from service.store.translate import translated

logger = logging.getLogger(__name__)
# how many threads of this process (any Store) hold or are taking each (lock, owner): a row of
# ours that nobody here claims is one whose release failed (the database was down), so it is
# ours to take back
_CLAIMS: dict[tuple[str, str], int] = {}
_CLAIMS_LOCK = threading.Lock()


def _claim(name: str, owner: str, step: int) -> int:
    with _CLAIMS_LOCK:
        count = _CLAIMS.get((name, owner), 0) + step
        if count > 0:
            _CLAIMS[(name, owner)] = count
        else:
            _CLAIMS.pop((name, owner), None)
        return count


class Locks(Aggregate):
    """The `locks` table."""

    @translated
    def acquire_lock(self, name: str, owner: str, ttl: timedelta) -> bool:
        """Take the named lock unless another live owner holds an unexpired one.

        A lock left by a dead process of this host (killed, crashed) is taken over at once
        instead of after its TTL; other hosts' locks can only expire."""
        _claim(name, owner, 1)
        try:
            held = self._acquire(name, owner, ttl)
        except BaseException:
            _claim(name, owner, -1)
            raise
        if not held:
            _claim(name, owner, -1)
        return held

    def _acquire(self, name: str, owner: str, ttl: timedelta) -> bool:
        now = utc_now()
        with self._tx() as conn:
            conn.execute(delete(t.locks).where(t.locks.c.name == name, t.locks.c.expires_at < now))
        for _ in range(2):
            try:
                with self._tx() as conn:
                    conn.execute(
                        insert(t.locks).values(name=name, owner=owner, expires_at=now + ttl)
                    )
            except IntegrityError:
                if not self._drop_dead_holder(name, owner):
                    return False
                continue
            return True
        return False

    def _drop_dead_holder(self, name: str, owner: str) -> bool:
        """Delete the lock when its holder is a dead process of this host, or `owner` itself
        with no other thread here claiming it (a release that failed); True if it is gone."""
        with self._tx() as conn:
            holder = conn.execute(select(t.locks.c.owner).where(t.locks.c.name == name)).scalar()
            if holder is None:
                return True
            with _CLAIMS_LOCK:
                stale_own = holder == owner and _CLAIMS.get((name, owner), 0) <= 1
            if not stale_own and not is_dead_owner(holder):
                return False
            conn.execute(delete(t.locks).where(t.locks.c.name == name, t.locks.c.owner == holder))
        logger.warning("took over a lock left by a dead process", extra={"lock": name})
        return True

    @translated
    def release_lock(self, name: str, owner: str) -> None:
        _claim(name, owner, -1)
        with self._tx() as conn:
            conn.execute(delete(t.locks).where(t.locks.c.name == name, t.locks.c.owner == owner))

    @contextmanager
    def lock(self, name: str, owner: str, ttl: timedelta) -> Iterator[bool]:
        """`with store.lock(...) as held:` — held is False when someone else has it."""
        held = self.acquire_lock(name, owner, ttl)
        try:
            yield held
        finally:
            if held:
                self.release_lock(name, owner)
