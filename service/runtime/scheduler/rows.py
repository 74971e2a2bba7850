"""One row of the cadence table, ready to schedule: its job id, its cron trigger, what its tick,
catch-up and retries run, and what every row of one scheduler shares (store, clock, retries)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger

from service.pipeline.runs import RetryPolicy
from service.store.repository import Store
from service.store.tables import SCHEDULER_JOBS_TABLE

JOB_ID = "weekly-digest"
JOBS_TABLE = SCHEDULER_JOBS_TABLE  # made by the store's revisions, under the schema lock
CATCH_UP_LOCK = "scheduler:catch-up"
# A late tick (machine asleep, pool busy) still runs if within 6 h of its time; a tick missed
# while the process was down is the catch-up's business (one run, not one per missed tick).
MISFIRE_GRACE = timedelta(hours=6)
Job = Callable[[], object]


def utc_now() -> datetime:
    return datetime.now(UTC)


def cron_trigger(schedule: str, timezone: str) -> CronTrigger:
    """The trigger of DIGEST_SCHEDULE (5-field cron) read in DIGEST_TIMEZONE."""
    return CronTrigger.from_crontab(schedule, timezone=ZoneInfo(timezone))


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
