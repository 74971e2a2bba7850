"""Building the Scheduler: the cadence table's rows (and, for tests and the one-job callers, a
first row of one job) on a BackgroundScheduler whose job store is the service's database."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.base import BaseTrigger

from service.pipeline.runs import DEFAULT_LEASE, RetryPolicy
from service.runtime.scheduler.background import Scheduler
from service.runtime.scheduler.cadence_job import CadenceJob
from service.runtime.scheduler.rows import (
    JOB_ID,
    JOBS_TABLE,
    Cadence,
    Job,
    Shared,
    cron_trigger,
    utc_now,
)
from service.store.repository import Store


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
    clock: Callable[[], datetime] = utc_now,
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
