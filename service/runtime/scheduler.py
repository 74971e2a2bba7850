"""The weekly scheduler: APScheduler 3 cron in DIGEST_TIMEZONE, SQLAlchemy job store, catch-up,
and retries: a week still owed after an attempt (failed, abandoned, locked by a run that died) is
tried again after a backoff (RUN_RETRY_FIRST_SECONDS, doubling, at most RUN_RETRY_MAX_SECONDS),
and checked at least that often anyway, so a week another process left owed is found too.

APScheduler's SQLAlchemy job store pickles a *reference* to the job function, so the job is the
module-level `_run_registered(job_id)`; the callable it runs is registered here at start-up.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger

from service.core.models import WeekWindow
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

_REGISTRY: dict[str, WeeklyScheduler] = {}
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


class WeeklyScheduler:
    """One weekly job on a BackgroundScheduler, with start-up catch-up and bounded shutdown."""

    def __init__(
        self,
        *,
        scheduler: BackgroundScheduler,
        trigger: BaseTrigger,
        run_job: Job,
        catch_up_job: Job,
        store: Store,
        timezone: str,
        repos: Sequence[str],
        clock: Callable[[], datetime],
        job_id: str = JOB_ID,
        retry_job: Job | None = None,
        retry: RetryPolicy | None = None,
        lease: timedelta = DEFAULT_LEASE,
        kind: str = "week",
        scopes: Callable[[], Sequence[str]] | None = None,
    ) -> None:
        self.scheduler = scheduler
        self.trigger = trigger
        self.run_job = run_job
        self.catch_up_job = catch_up_job
        self.retry_job = retry_job or catch_up_job
        self.store = store
        self.timezone = timezone
        self.repos = list(repos)
        self.clock = clock
        self.job_id = job_id
        self.retry = retry or RetryPolicy()
        self.lease = lease
        self.watch = RunWatch(
            store,
            repos=repos,
            timezone=timezone,
            trigger=trigger,
            clock=clock,
            kind=kind,
            scopes=scopes,
        )
        # other cadences' jobs (the monthly one) on the same APScheduler, started and stopped
        # with this one
        self.companions: list[WeeklyScheduler] = []
        self.catch_up_lock = CATCH_UP_LOCK if kind == "week" else f"{CATCH_UP_LOCK}:{kind}"
        self.owner = PROCESS_OWNER
        self._work = threading.Lock()  # a tick and the catch-up never overlap in one process
        self._in_flight = 0
        self._idle = threading.Condition()
        self._catch_up_thread: threading.Thread | None = None
        self._caught_up = threading.Event()
        # retries: consecutive attempts that left a week owed, and when to look again
        self._plan = threading.Condition()
        self._stopping = False
        self.failures = 0
        self.next_check: datetime | None = None  # wall time, for logs
        self._next_due: float | None = None  # time.monotonic() of the next check

    # --- lifecycle -------------------------------------------------------------------------

    def start(self, *, catch_up: bool = True, paused: bool = False) -> None:
        """Register the job (replacing a stored one), start ticking, catch up in the background."""
        with _REGISTRY_LOCK:
            _REGISTRY[self.job_id] = self
        # replace_existing recomputes next_run_time from now: a tick missed while we were down
        # is not replayed by APScheduler, the catch-up below decides about it once.
        with translated_errors():  # the job store is our database: its failures are ours
            self.scheduler.add_job(
                _run_registered,
                trigger=self.trigger,
                args=[self.job_id],
                id=self.job_id,
                name="verl-week weekly digest",
                replace_existing=True,
                coalesce=True,
                max_instances=1,
                misfire_grace_time=int(MISFIRE_GRACE.total_seconds()),
            )
            if not self.scheduler.running:  # a companion's: its owner started it
                self.scheduler.start(paused=paused)
        logger.info(
            "scheduler started", extra={"job": self.job_id, "next_run": str(self.next_run_time)}
        )
        self._catch_up_thread = threading.Thread(
            target=self._watch_owed, args=(catch_up,), name="verl-week-catch-up", daemon=True
        )
        self._catch_up_thread.start()
        for companion in self.companions:
            companion.start(catch_up=catch_up, paused=paused)

    def shutdown(self, wait: bool = True, timeout: float = SHUTDOWN_WAIT_SECONDS) -> None:
        """Stop ticking; wait up to `timeout` for in-flight work, else record it as interrupted."""
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)
        for companion in self.companions:
            companion.shutdown(wait=wait, timeout=timeout)
        with self._plan:
            self._stopping = True
            self._plan.notify_all()
        with _REGISTRY_LOCK:
            if _REGISTRY.get(self.job_id) is self:
                del _REGISTRY[self.job_id]
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
        """Block until no tick or catch-up is running (True), or `timeout` passes (False)."""
        deadline = time.monotonic() + timeout
        with self._idle:
            while self._in_flight:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._idle.wait(remaining)
        return True

    def join_catch_up(self, timeout: float | None = None) -> None:
        """Wait for the start-up catch-up (if the scheduler was started) to finish, and for
        its companions'."""
        if self._catch_up_thread is not None:
            self._caught_up.wait(timeout)
        for companion in self.companions:
            companion.join_catch_up(timeout)

    def pause(self) -> None:
        self.scheduler.pause()

    def resume(self) -> None:
        self.scheduler.resume()

    def alive(self) -> bool:
        """Whether the scheduler thread is running (for /healthz)."""
        thread = getattr(self.scheduler, "_thread", None)
        return bool(self.scheduler.running and thread is not None and thread.is_alive())

    @property
    def next_run_time(self) -> datetime | None:
        job = self.scheduler.get_job(self.job_id)
        return getattr(job, "next_run_time", None) if job else None

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

    def owed(self) -> WeekWindow | None:
        """The week a catch-up would run now, or None (checked for every configured repo)."""
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


def build_scheduler(
    *,
    run_job: Job,
    database_url: str,
    schedule: str,
    timezone: str,
    store: Store,
    repos: Sequence[str] = (),
    catch_up_job: Job | None = None,
    clock: Callable[[], datetime] = _utc_now,
    trigger: BaseTrigger | None = None,
    job_id: str = JOB_ID,
    retry_job: Job | None = None,
    retry: RetryPolicy | None = None,
    lease: timedelta = DEFAULT_LEASE,
    scopes: Callable[[], Sequence[str]] | None = None,
) -> WeeklyScheduler:
    """A WeeklyScheduler whose jobs live in DATABASE_URL; `trigger` overrides `schedule` (tests)."""
    same_database = store.engine.url.render_as_string(hide_password=False) == database_url
    jobstore = (
        SQLAlchemyJobStore(engine=store.engine, tablename=JOBS_TABLE)
        if same_database
        else SQLAlchemyJobStore(url=database_url, tablename=JOBS_TABLE)
    )
    scheduler = BackgroundScheduler(
        jobstores={"default": jobstore},
        executors={"default": ThreadPoolExecutor(max_workers=1)},
        timezone=ZoneInfo(timezone),
    )
    return WeeklyScheduler(
        scheduler=scheduler,
        trigger=trigger or cron_trigger(schedule, timezone),
        run_job=run_job,
        catch_up_job=catch_up_job or run_job,
        store=store,
        timezone=timezone,
        repos=repos,
        clock=clock,
        job_id=job_id,
        retry_job=retry_job,
        retry=retry,
        lease=lease,
        scopes=scopes,
    )


def add_cadence(
    owner: WeeklyScheduler,
    *,
    run_job: Job,
    trigger: BaseTrigger,
    job_id: str,
    kind: str,
    catch_up_job: Job | None = None,
    retry_job: Job | None = None,
    scopes: Callable[[], Sequence[str]] | None = None,
) -> WeeklyScheduler:
    """Another cadence's job (the monthly digest) on `owner`'s APScheduler and job store, with
    its own catch-up and retries of what it owes; started and stopped with `owner`."""
    companion = WeeklyScheduler(
        scheduler=owner.scheduler,
        trigger=trigger,
        run_job=run_job,
        catch_up_job=catch_up_job or run_job,
        store=owner.store,
        timezone=owner.timezone,
        repos=owner.repos,
        clock=owner.clock,
        job_id=job_id,
        retry_job=retry_job,
        retry=owner.retry,
        lease=owner.lease,
        kind=kind,
        scopes=scopes,
    )
    owner.companions.append(companion)
    return companion
