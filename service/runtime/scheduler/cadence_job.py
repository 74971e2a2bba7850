"""One cadence's work on the scheduler: its tick, its catch-up (once, under a database lock) and
the retries of a period it still owes."""

from __future__ import annotations

import logging
from datetime import datetime

from service.core.models import Period
from service.pipeline.runs import Heartbeat, RunWatch
from service.runtime.scheduler.job_runner import JobRunner
from service.runtime.scheduler.registry import unregister
from service.runtime.scheduler.retries import Retries
from service.runtime.scheduler.rows import Cadence, Shared
from service.store.repository import PROCESS_OWNER

logger = logging.getLogger(__name__)


class CadenceJob:
    """One row of the cadence table at work: a tick and a catch-up of the cadence never overlap
    in one process (JobRunner); a period left owed is retried (Retries)."""

    def __init__(self, row: Cadence, shared: Shared) -> None:
        self.row = row
        self.job_id = row.job_id
        self.trigger = row.trigger
        self.run_job = row.run_job
        self.catch_up_job = row.catch_up_job or row.run_job
        self.retry_job = row.retry_job or self.catch_up_job
        self.store = shared.store
        self.lease = shared.lease
        self.watch = RunWatch(
            shared.store,
            repos=shared.repos,
            timezone=shared.timezone,
            trigger=row.trigger,
            clock=shared.clock,
            kind=row.kind,
            scopes=row.scopes,
        )
        self.catch_up_lock = row.catch_up_lock
        self.owner = PROCESS_OWNER
        self.runner = JobRunner()
        self.retries = Retries(self, shared.retry)

    @property
    def failures(self) -> int:
        """Consecutive attempts that left a period owed (0 once nothing is)."""
        return self.retries.failures

    @property
    def next_check(self) -> datetime | None:
        return self.retries.next_check

    # --- lifecycle (driven by the Scheduler) -------------------------------------------------

    def start_watching(self, catch_up: bool) -> None:
        self.retries.start(catch_up)

    def stop(self) -> None:
        """No more retries; ticks of this cadence no longer reach it."""
        self.retries.stop()
        unregister(self.job_id, self)

    def wait_idle(self, deadline: float) -> bool:
        """Block until no tick or catch-up of this cadence runs (True), or `deadline` (of
        time.monotonic()) passes (False)."""
        return self.runner.wait_idle(deadline)

    def join_catch_up(self, timeout: float | None = None) -> None:
        self.retries.join_catch_up(timeout)

    # --- work ------------------------------------------------------------------------------

    def tick(self) -> None:
        """One scheduled run (called by APScheduler through `_run_registered`)."""
        self.runner.run("schedule", self.run_job)
        self.retries.plan_next_check()

    def owed(self) -> Period | None:
        """The period a catch-up would run now, or None (checked for every scope)."""
        return self.watch.first_owed()

    def catch_up(self, kind: str = "catch-up") -> bool:
        """Run the owed period once if it was missed; True when this call ran it.

        A database lock makes two schedulers starting together decide (and run) only once;
        the one that finds the lock taken leaves the work to its holder. The lock is a lease
        renewed while the run lasts: a holder killed mid-run frees it when the lease runs out.
        """
        self.store.abandon_runs()
        with self.store.lock(self.catch_up_lock, self.owner, self.lease) as held:
            if not held:
                logger.info("catch-up: another scheduler is deciding")
                return False
            due = self.owed()
            if due is None:
                logger.info("catch-up: nothing missed", extra={"kind": kind})
                return False
            logger.info(
                "catch-up: running the missed week", extra={"week": due.label, "kind": kind}
            )
            job = self.catch_up_job if kind == "catch-up" else self.retry_job
            with Heartbeat(self._renew_catch_up, self.lease, "catch-up"):
                self.runner.run(kind, job)
            return True

    def _renew_catch_up(self) -> None:
        self.store.renew_lease(None, self.owner, self.lease, [self.catch_up_lock])
