"""Runs: each attempt at a scope's period, who runs it and until when its lease holds, and how
it ended (`running` rows whose process died read as `abandoned`)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, insert, select, update

from service.core.models import Period
from service.store import tables as t
from service.store.aggregate import Aggregate, aware, period_kind, utc_now
from service.store.owners import PROCESS_OWNER, is_dead_owner
from service.store.translate import translated

logger = logging.getLogger(__name__)
RUNNING = "running"
ABANDONED = "abandoned"  # a run whose process died: its lease ran out before it finished
DONE_OUTCOMES = ("ok", "partial")
# the runs this process started and has not finished: a `running` row of ours that is not here
# lost its worker (its finish could not be written: the database was down), so it is abandoned
# at once, not when its lease runs out
_LIVE_RUNS: set[int] = set()


def _lost(run_id: int, owner: str | None, lease_expires_at: datetime | None, now: datetime) -> bool:
    """Whether a `running` row's process is gone (dead, or ours without its worker) or its
    lease ran out."""
    if owner is not None and is_dead_owner(owner):
        return True
    if owner == PROCESS_OWNER and run_id not in _LIVE_RUNS:
        return True
    return lease_expires_at is not None and lease_expires_at < now


@dataclass(frozen=True)
class RunRecord:
    id: int
    repo: str
    period: str
    trigger: str
    started_at: datetime
    finished_at: datetime | None
    outcome: str
    detail: dict[str, Any]
    owner: str | None = None
    lease_expires_at: datetime | None = None

    def state(self, now: datetime) -> str:
        """The outcome, with a `running` row whose lease ran out (or whose process of this
        host is gone) read as `abandoned`."""
        if self.outcome != RUNNING:
            return self.outcome
        return ABANDONED if _lost(self.id, self.owner, self.lease_expires_at, now) else RUNNING


def _record(row: Any) -> RunRecord:
    m = row._mapping
    finished = aware(m["finished_at"]) if m["finished_at"] else None
    lease = aware(m["lease_expires_at"]) if m["lease_expires_at"] else None
    return RunRecord(
        m["id"],
        m["repo"],
        m["period"],
        m["trigger"],
        aware(m["started_at"]),
        finished,
        m["outcome"],
        m["detail"],
        m["owner"],
        lease,
    )


class Runs(Aggregate):
    """The `runs` table (and the leases of the locks a run holds)."""

    def __init__(self, engine: Engine, canonical_repo: Callable[[str], str]) -> None:
        super().__init__(engine)
        # an earlier name of a repository that moved: its runs are under the current one
        self.canonical_repo = canonical_repo

    @translated
    def start_run(
        self,
        repo: str,
        period: Period,
        trigger: str,
        *,
        owner: str = PROCESS_OWNER,
        lease: timedelta | None = None,
    ) -> int:
        """A `running` row; with a `lease`, it counts as abandoned once that runs out unless
        `renew_lease` extends it."""
        now = utc_now()
        with self._tx() as conn:
            result = conn.execute(
                insert(t.runs).values(
                    repo=repo,
                    period=period.label,
                    period_kind=period_kind(period.label),
                    trigger=trigger,
                    started_at=now,
                    outcome=RUNNING,
                    detail={},
                    owner=owner,
                    lease_expires_at=now + lease if lease is not None else None,
                )
            )
            run_id = int(result.inserted_primary_key[0])  # type: ignore[index]
            if owner == PROCESS_OWNER:  # live before any other connection can see the row
                _LIVE_RUNS.add(run_id)
            return run_id

    @translated
    def renew_lease(
        self, run_id: int | None, owner: str, lease: timedelta, locks: Collection[str] = ()
    ) -> bool:
        """Push the run's lease and `owner`'s `locks` to now + `lease`; False when one of the
        locks is no longer ours (it expired and another process took it)."""
        until = utc_now() + lease
        kept = True
        with self._tx() as conn:
            if run_id is not None:
                conn.execute(
                    update(t.runs)
                    .where(t.runs.c.id == run_id, t.runs.c.outcome == RUNNING)
                    .values(lease_expires_at=until)
                )
            for name in locks:
                result = conn.execute(
                    update(t.locks)
                    .where(t.locks.c.name == name, t.locks.c.owner == owner)
                    .values(expires_at=until)
                )
                kept = kept and result.rowcount == 1
        return kept

    @translated
    def abandon_runs(self) -> int:
        """Mark `running` rows whose lease ran out, or whose process of this host is gone,
        as `abandoned`; returns how many."""
        now = utc_now()
        c = t.runs.c
        with self._tx() as conn:
            rows = conn.execute(
                select(c.id, c.owner, c.lease_expires_at).where(c.outcome == RUNNING)
            ).all()
            gone = [
                row.id
                for row in rows
                if _lost(
                    row.id,
                    row.owner,
                    aware(row.lease_expires_at) if row.lease_expires_at else None,
                    now,
                )
            ]
            if gone:
                conn.execute(
                    update(t.runs)
                    .where(c.id.in_(gone), c.outcome == RUNNING)
                    .values(outcome=ABANDONED, finished_at=now)
                )
        if gone:
            logger.warning("runs abandoned by their process", extra={"runs": len(gone)})
        return len(gone)

    @translated
    def finish_run(self, run_id: int, outcome: str, detail: dict[str, Any]) -> None:
        _LIVE_RUNS.discard(run_id)  # its worker is done, whether this write lands or not
        with self._tx() as conn:
            conn.execute(
                update(t.runs)
                .where(t.runs.c.id == run_id)
                .values(outcome=outcome, detail=detail, finished_at=utc_now())
            )

    @translated
    def interrupt_running(self, owner: str | None = None) -> int:
        """Mark runs left `running` (by `owner` only, when given: other processes' runs are
        theirs) as `interrupted`; returns how many."""
        query = update(t.runs).where(t.runs.c.outcome == RUNNING)
        if owner is not None:
            query = query.where(t.runs.c.owner == owner)
        with self._tx() as conn:
            result = conn.execute(query.values(outcome="interrupted", finished_at=utc_now()))
        return int(result.rowcount)

    @translated
    def last_run(
        self, repo: str | None = None, *, done_only: bool = False, kind: str | None = None
    ) -> RunRecord | None:
        """The newest run (of `repo`, done only, of periods of `kind` when told)."""
        query = select(t.runs).order_by(t.runs.c.id.desc()).limit(1)
        if kind is not None:
            query = query.where(t.runs.c.period_kind == kind)
        if repo:
            query = query.where(t.runs.c.repo == self.canonical_repo(repo))
        if done_only:
            query = query.where(t.runs.c.outcome.in_(DONE_OUTCOMES))
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return _record(row) if row else None
