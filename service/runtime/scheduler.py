"""The scheduler of every cadence: one APScheduler 3 (cron in DIGEST_TIMEZONE, SQLAlchemy job
store) with one job per row of the cadence table (weekly, monthly: runtime/cadences.py), each with
its own catch-up and retries: a period still owed after an attempt (failed, abandoned, locked by
a run that died) is tried again after a backoff (RUN_RETRY_FIRST_SECONDS, doubling, at most
RUN_RETRY_MAX_SECONDS), and checked at least that often anyway, so a period another process left
owed is found too.

APScheduler's SQLAlchemy job store pickles a *reference* to the job function, so the job is the
module-level `_run_registered(job_id)`; the callable it runs is registered here at start-up.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger

from service.core.models import Period
from service.errors import ServiceError
from service.pipeline.runs import DEFAULT_LEASE, Heartbeat, RetryPolicy, RunWatch
from service.store.repository import PROCESS_OWNER, Store
from service.store.tables import SCHEDULER_JOBS_TABLE
from service.store.translate import translated_errors

logger = logging.getLogger(__name__)

JOB_ID = "weekly-digest"
JOBS_TABLE = SCHEDULER_JOBS_TABLE  # made by the store's revisions, under the schema lock
CATCH_UP_LOCK = "scheduler:catch-up"
# A late tick (machine asleep, pool busy) still runs if within 6 h of its time; a tick missed
# while the process was down is the catch-up's business (one run, not one per missed tick).
MISFIRE_GRACE = timedelta(hours=6)
SHUTDOWN_WAIT_SECONDS = 120.0
STOP_POLL_SECONDS = 1.0
Job = Callable[[], object]

_REGISTRY: dict[str, CadenceJob] = {}
_REGISTRY_LOCK = threading.Lock()


def _run_registered(job_id: str) -> None:
    """The job function APScheduler stores: run the callable registered for `job_id`."""
    with _REGISTRY_LOCK:
        target = _REGISTRY.get(job_id)
    if target is None:
        logger.warning("scheduled job has no runner in this process", extra={"job": job_id})
        return
    target.tick()


def _utc_now() -> datetime:
    return datetime.now(UTC)


def cron_trigger(schedule: str, timezone: str) -> CronTrigger:
    """The trigger of DIGEST_SCHEDULE (5-field cron) read in DIGEST_TIMEZONE."""
    return CronTrigger.from_crontab(schedule, timezone=ZoneInfo(timezone))


def _outcome_counts(result: object) -> dict[str, object]:
    """`runs` and `outcomes` ({"ok": 2, "locked": 1}) when the job returned run results."""
    if not isinstance(result, list):
        return {}
    outcomes: dict[str, int] = {}
    for item in result:
        outcome = str(getattr(item, "outcome", "unknown"))
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    return {"runs": len(result), "outcomes": outcomes}


@dataclass(frozen=True)
class Cadence:
    """One row of the table, ready to schedule: its APScheduler job id and trigger, what its
    tick, its catch-up and its retries run, the period kind its runs are recorded under, the
    scopes it owes periods to (None: every configured repository) and its catch-up lock."""

    job_id: str
    trigger: BaseTrigger
    run_job: Job
    catch_up_job: Job | None = None
    retry_job: Job | None = None
    kind: str = "week"
    scopes: Callable[[], Sequence[str]] | None = None
    lock: str | None = None  # None: `scheduler:catch-up` for weeks, `…:<kind>` for the others

    @property
    def catch_up_lock(self) -> str:
        if self.lock is not None:
            return self.lock
        return CATCH_UP_LOCK if self.kind == "week" else f"{CATCH_UP_LOCK}:{self.kind}"


@dataclass(frozen=True)
class Shared:
    """What every cadence of one scheduler shares: the store, the repositories, the time zone,
    the clock, the retry policy and the lease of a run."""

    store: Store
    repos: Sequence[str]
    timezone: str
    clock: Callable[[], datetime]
    retry: RetryPolicy
    lease: timedelta


class CadenceJob:
    """One cadence's work on the scheduler: its tick, its catch-up at start and the retries of
    a period it still owes; a tick and a catch-up of the cadence never overlap in one process."""

    def __init__(self, row: Cadence, shared: Shared) -> None:
        self.row = row
        self.job_id = row.job_id
        self.trigger = row.trigger
        self.run_job = row.run_job
        self.catch_up_job = row.catch_up_job or row.run_job
        self.retry_job = row.retry_job or self.catch_up_job
        self.store = shared.store
        self.retry = shared.retry
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
        self._work = threading.Lock()
        self._in_flight = 0
        self._idle = threading.Condition()
        self._catch_up_thread: threading.Thread | None = None
        self._caught_up = threading.Event()
        # retries: consecutive attempts that left a period owed, and when to look again
        self._plan = threading.Condition()
        self._stopping = False
        self.failures = 0
        self.next_check: datetime | None = None  # wall time, for logs
        self._next_due: float | None = None  # time.monotonic() of the next check

    # --- lifecycle (driven by the Scheduler) -------------------------------------------------

    def add_to(self, scheduler: BackgroundScheduler) -> None:
        """Register this cadence for `_run_registered` and add (replace) its stored job."""
        with _REGISTRY_LOCK:
            _REGISTRY[self.job_id] = self
        # replace_existing recomputes next_run_time from now: a tick missed while we were down
        # is not replayed by APScheduler, the catch-up decides about it once.
        scheduler.add_job(
            _run_registered,
            trigger=self.trigger,
            args=[self.job_id],
            id=self.job_id,
            name=f"verl-week {self.job_id}",
            replace_existing=True,
            coalesce=True,
            max_instances=1,
            misfire_grace_time=int(MISFIRE_GRACE.total_seconds()),
        )

    def start_watching(self, catch_up: bool) -> None:
        self._catch_up_thread = threading.Thread(
            target=self._watch_owed, args=(catch_up,), name="verl-week-catch-up", daemon=True
        )
        self._catch_up_thread.start()

    def stop(self) -> None:
        """No more retries; ticks of this cadence no longer reach it."""
        with self._plan:
            self._stopping = True
            self._plan.notify_all()
        with _REGISTRY_LOCK:
            if _REGISTRY.get(self.job_id) is self:
                del _REGISTRY[self.job_id]

    def wait_idle(self, deadline: float) -> bool:
        """Block until no tick or catch-up of this cadence runs (True), or `deadline` (of
        time.monotonic()) passes (False)."""
        with self._idle:
            while self._in_flight:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._idle.wait(remaining)
        return True

    def join_catch_up(self, timeout: float | None = None) -> None:
        if self._catch_up_thread is not None:
            self._caught_up.wait(timeout)

    # --- work ------------------------------------------------------------------------------

    def tick(self) -> None:
        """One scheduled run (called by APScheduler through `_run_registered`)."""
        self._run("schedule", self.run_job)
        self._plan_next_check()

    def _run(self, kind: str, job: Job) -> object:
        with self._idle:
            self._in_flight += 1
        started = time.monotonic()
        try:
            with self._work:
                result = job()
            logger.info(
                "scheduled job done",
                extra={
                    "kind": kind,
                    "seconds": round(time.monotonic() - started, 3),
                    **_outcome_counts(result),
                },
            )
            return result
        except ServiceError as exc:  # a failure we named (database down): one line, no trace
            logger.warning("scheduled job failed", extra={"kind": kind, "error": exc.message})
            return None
        except Exception:  # the job's boundary: logged with its kind, a retry follows
            logger.exception("scheduled job failed", extra={"kind": kind})
            return None
        finally:
            with self._idle:
                self._in_flight -= 1
                self._idle.notify_all()

    def owed(self) -> Period | None:
        """The period a catch-up would run now, or None (checked for every scope)."""
        return self.watch.first_owed()

    def catch_up(self, kind: str = "catch-up") -> bool:
        """Run the owed week once if it was missed; True when this call ran it.

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
                self._run(kind, job)
            return True

    def _renew_catch_up(self) -> None:
        self.store.renew_lease(None, self.owner, self.lease, [self.catch_up_lock])

    # --- retries ---------------------------------------------------------------------------

    def _watch_owed(self, catch_up: bool) -> None:
        """The catch-up at start, then a retry whenever the planned check comes due."""
        if catch_up:
            self._attempt("catch-up")
        else:
            self._plan_next_check()
        self._caught_up.set()
        while self._wait_for_check():
            self._attempt("retry")

    def _attempt(self, kind: str) -> None:
        try:
            self.catch_up(kind)
        except ServiceError as exc:  # the database is down, say: one line, the retry follows
            logger.warning("catch-up failed", extra={"kind": kind, "error": exc.message})
        except Exception:  # the thread's boundary: the planned retry tries again
            logger.exception("catch-up failed", extra={"kind": kind})
        self._plan_next_check()

    def _wait_for_check(self) -> bool:
        """Sleep until the planned check (True) or until shutdown (False)."""
        with self._plan:
            while not self._stopping:
                due = self._next_due
                wait = due - time.monotonic() if due is not None else None
                if wait is not None and wait <= 0:
                    return True
                self._plan.wait(wait)
            return False

    def _plan_next_check(self) -> None:
        """After an attempt: a week still owed (or a database that can't say) is retried
        after the backoff; with nothing owed the next look is one cap away."""
        try:
            owed = self.owed()
            unknown = None
        except Exception as exc:  # the database is down: the week may well still be owed
            owed, unknown = None, str(exc)
        with self._plan:
            if owed is None and unknown is None:
                self.failures = 0
                delay = self.retry.cap
            else:
                self.failures += 1
                delay = self.retry.delay(self.failures)
            # the wait is real time (monotonic), whatever clock decides which week is owed
            self._next_due = time.monotonic() + delay.total_seconds()
            self.next_check = _utc_now() + delay
            if self.failures:
                week = owed.label if owed else "unknown"
                logger.warning(
                    "week still owed: retry planned",
                    extra={
                        "week": week,
                        "failures": self.failures,
                        "retry_at": self.next_check.isoformat(),
                        "error": unknown,
                    },
                )
            self._plan.notify_all()


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

    # --- lifecycle -------------------------------------------------------------------------

    def start(self, *, catch_up: bool = True, paused: bool = False) -> None:
        """Register every cadence's job (replacing stored ones), start ticking, catch up in the
        background."""
        with translated_errors():  # the job store is our database: its failures are ours
            for cadence in self.cadences:
                cadence.add_to(self.scheduler)
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


def build_scheduler(
    *,
    database_url: str,
    timezone: str,
    store: Store,
    cadences: Sequence[Cadence] = (),
    run_job: Job | None = None,
    schedule: str = "",
    repos: Sequence[str] = (),
    catch_up_job: Job | None = None,
    clock: Callable[[], datetime] = _utc_now,
    trigger: BaseTrigger | None = None,
    job_id: str = JOB_ID,
    retry_job: Job | None = None,
    retry: RetryPolicy | None = None,
    lease: timedelta = DEFAULT_LEASE,
    scopes: Callable[[], Sequence[str]] | None = None,
) -> Scheduler:
    """A Scheduler of `cadences` (the table's rows) whose jobs live in DATABASE_URL; with
    `run_job`, a first row of one job on `schedule` (or `trigger`, in tests) goes before them."""
    rows = list(cadences)
    if run_job is not None:
        first = Cadence(
            job_id=job_id,
            trigger=trigger or cron_trigger(schedule, timezone),
            run_job=run_job,
            catch_up_job=catch_up_job,
            retry_job=retry_job,
            scopes=scopes,
        )
        rows.insert(0, first)
    shared = Shared(store, list(repos), timezone, clock, retry or RetryPolicy(), lease)
    return Scheduler(
        scheduler=_background_scheduler(store, database_url, timezone),
        cadences=[CadenceJob(row, shared) for row in rows],
        store=store,
    )


def _background_scheduler(store: Store, database_url: str, timezone: str) -> BackgroundScheduler:
    same_database = store.engine.url.render_as_string(hide_password=False) == database_url
    jobstore = (
        SQLAlchemyJobStore(engine=store.engine, tablename=JOBS_TABLE)
        if same_database
        else SQLAlchemyJobStore(url=database_url, tablename=JOBS_TABLE)
    )
    return BackgroundScheduler(
        jobstores={"default": jobstore},
        executors={"default": ThreadPoolExecutor(max_workers=1)},
        timezone=ZoneInfo(timezone),
    )
