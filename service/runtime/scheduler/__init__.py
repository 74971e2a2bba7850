"""The scheduler of every cadence (weekly, monthly, …: runtime/cadences.py), one module for each
part: `rows` (a cadence table's row ready to schedule, its cron trigger), `registry` (the
cadences APScheduler's stored jobs reach in this process), `job_runner` (one job run at a time,
timed, its failures logged), `retries` (the catch-up at start and the backoff of a period still
owed), `cadence_job` (one row at work), `background` (the Scheduler of them all on one
BackgroundScheduler) and `build` (the Scheduler from the rows, its jobs in the database).
"""

from __future__ import annotations

from service.runtime.scheduler.background import Scheduler
from service.runtime.scheduler.build import build_scheduler
from service.runtime.scheduler.cadence_job import CadenceJob
from service.runtime.scheduler.registry import run_registered as _run_registered
from service.runtime.scheduler.rows import JOB_ID, JOBS_TABLE, Cadence, Job, cron_trigger

__all__ = [
    "JOBS_TABLE",
    "JOB_ID",
    "Cadence",
    "CadenceJob",
    "Job",
    "Scheduler",
    "_run_registered",
    "build_scheduler",
    "cron_trigger",
]
