"""The scheduler of every cadence: one APScheduler 3 BackgroundScheduler (cron in
DIGEST_TIMEZONE, its jobs in the SQLAlchemy job store) with one job per row of the cadence table,
started, paused and stopped together."""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Sequence
from datetime import datetime

from apscheduler.schedulers.background import BackgroundScheduler

from service.core.models import Period
from service.runtime.scheduler.cadence_job import CadenceJob
from service.runtime.scheduler.registry import JOB_FUNCTION, register
from service.runtime.scheduler.rows import (
    MISFIRE_GRACE,
)
from service.store.repository import PROCESS_OWNER, Store
from service.store.translate import translated_errors

logger = logging.getLogger(__name__)

SHUTDOWN_WAIT_SECONDS = 120.0
STOP_POLL_SECONDS = 1.0


class Scheduler:
    """Every cadence's job on one BackgroundScheduler: started, paused and stopped together,
    each with its catch-up and retries (a new cadence is one more row)."""

    def __init__(
        self, *, scheduler: BackgroundScheduler, cadences: Sequence[CadenceJob], store: Store
    ) -> None:
        self.scheduler = scheduler
        self.cadences = list(cadences)
        self.store = store
        self.owner = PROCESS_OWNER

    def cadence(self, job_id: str) -> CadenceJob:
        """The cadence whose APScheduler job is `job_id`."""
        return next(c for c in self.cadences if c.job_id == job_id)

    def _add(self, cadence: CadenceJob) -> None:
        """Register `cadence` for `_run_registered` and add (replace) its stored job."""
        register(cadence.job_id, cadence)
        # replace_existing recomputes next_run_time from now: a tick missed while we were down
        # is not replayed by APScheduler, the catch-up decides about it once.
        self.scheduler.add_job(
            JOB_FUNCTION,
            trigger=cadence.trigger,
            args=[cadence.job_id],
            id=cadence.job_id,
            name=f"verl-week {cadence.job_id}",
            replace_existing=True,
            coalesce=True,
            max_instances=1,
            misfire_grace_time=int(MISFIRE_GRACE.total_seconds()),
        )

    # --- lifecycle -------------------------------------------------------------------------

    def start(self, *, catch_up: bool = True, paused: bool = False) -> None:
        """Register every cadence's job (replacing stored ones), start ticking, catch up in the
        background."""
        with translated_errors():  # the job store is our database: its failures are ours
            for cadence in self.cadences:
                self._add(cadence)
            if not self.scheduler.running:
                self.scheduler.start(paused=paused)
        for cadence in self.cadences:
            logger.info(
                "scheduler started",
                extra={"job": cadence.job_id, "next_run": str(self.next_run_time_of(cadence))},
            )
            cadence.start_watching(catch_up)

    def shutdown(self, wait: bool = True, timeout: float = SHUTDOWN_WAIT_SECONDS) -> None:
        """Stop ticking; wait up to `timeout` for in-flight work, else record it as interrupted."""
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)
        for cadence in self.cadences:
            cadence.stop()
        finished = self.wait_idle(timeout if wait else 0.0)
        if not finished:
            count = self.store.interrupt_running(self.owner)
            logger.warning("shutdown with work in flight", extra={"interrupted_runs": count})
        logger.info("scheduler stopped", extra={"clean": finished})

    def run_until_stopped(self, stop: threading.Event | None = None) -> None:
        """`verl-week scheduler`: start, block until SIGTERM/SIGINT (or `stop`), shut down."""
        stop = stop or threading.Event()
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGTERM, signal.SIGINT):
                signal.signal(signum, lambda _signum, _frame: stop.set())
        self.start()
        try:
            while not stop.wait(STOP_POLL_SECONDS):
                if not self.alive():
                    logger.error("scheduler thread died; exiting so the supervisor restarts us")
                    break
        finally:
            self.shutdown(wait=True)

    def wait_idle(self, timeout: float) -> bool:
        """Block until no tick or catch-up of any cadence runs (True), or `timeout` passes."""
        deadline = time.monotonic() + timeout
        idle = [cadence.wait_idle(deadline) for cadence in self.cadences]  # each is waited for
        return all(idle)

    def join_catch_up(self, timeout: float | None = None) -> None:
        """Wait for every cadence's start-up catch-up (if the scheduler was started)."""
        for cadence in self.cadences:
            cadence.join_catch_up(timeout)

    def pause(self) -> None:
        self.scheduler.pause()

    def resume(self) -> None:
        self.scheduler.resume()

    def alive(self) -> bool:
        """Whether the scheduler thread is running (for /healthz)."""
        thread = getattr(self.scheduler, "_thread", None)
        return bool(self.scheduler.running and thread is not None and thread.is_alive())

    def next_run_time_of(self, cadence: CadenceJob) -> datetime | None:
        job = self.scheduler.get_job(cadence.job_id)
        return getattr(job, "next_run_time", None) if job else None

    @property
    def next_run_time(self) -> datetime | None:
        """The next tick of any cadence."""
        times = [t for c in self.cadences if (t := self.next_run_time_of(c)) is not None]
        return min(times, default=None)

    # --- every cadence at once -------------------------------------------------------------

    def tick(self) -> None:
        """One scheduled run of every cadence (tests; APScheduler ticks each on its own)."""
        for cadence in self.cadences:
            cadence.tick()

    def owed(self) -> Period | None:
        """The period the first cadence that owes one would catch up now, or None."""
        for cadence in self.cadences:
            due = cadence.owed()
            if due is not None:
                return due
        return None

    def catch_up(self, kind: str = "catch-up") -> bool:
        """Every cadence's catch-up, in table order; True when one of them ran a period."""
        ran = [cadence.catch_up(kind) for cadence in self.cadences]  # each one is asked
        return any(ran)
