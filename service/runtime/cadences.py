"""Every cadence's job, from one table: the weekly digest at DIGEST_SCHEDULE and the monthly one
at DIGEST_MONTHLY_SCHEDULE (default: DIGEST_SCHEDULE's time on the 1st), in DIGEST_TIMEZONE, on
one APScheduler and job store (wiring calls it). Each job runs the scopes with routes of its
cadence (delivery/routing.py), so a channel subscribed by command to a monthly digest or to a
family gets it on the next tick, and a cadence nobody is routed to owes nothing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from service.delivery.destination import CADENCES, MONTHLY, WEEKLY

if TYPE_CHECKING:
    from service.pipeline.jobs import Pipeline
    from service.runtime.scheduler import Cadence, Job, Scheduler
    from service.settings import Settings

MONTHLY_JOB_ID = "monthly-digest"


@dataclass(frozen=True)
class CadenceJob:
    """One row of the table: a cadence, its APScheduler job id and its cron setting."""

    cadence: str
    job_id: str
    schedule: Callable[[Settings], str]


def cadence_table() -> tuple[CadenceJob, ...]:
    """Every cadence the scheduler runs, in the order it starts them."""
    from service.runtime.scheduler import JOB_ID

    return (
        CadenceJob(WEEKLY, JOB_ID, lambda s: s.digest_schedule),
        CadenceJob(MONTHLY, MONTHLY_JOB_ID, lambda s: s.monthly_schedule),
    )


def _run(pipeline: Pipeline, cadence: str, trigger: str) -> Job:
    from service.pipeline.jobs import run_cadence

    return lambda: run_cadence(pipeline, cadence, trigger=trigger)


def _scopes(pipeline: Pipeline, cadence: str) -> Callable[[], list[str]]:
    from service.pipeline.jobs import cadence_scopes

    return lambda: cadence_scopes(pipeline, cadence)


def scheduled(row: CadenceJob, settings: Settings, pipeline: Pipeline) -> Cadence:
    """The row ready to schedule: its cron in DIGEST_TIMEZONE, its runs (as the schedule, the
    start-up catch-up and a retry run it), its period kind and the scopes routed to it."""
    from service.runtime.scheduler import Cadence, cron_trigger

    return Cadence(
        job_id=row.job_id,
        trigger=cron_trigger(row.schedule(settings), settings.digest_timezone),
        run_job=_run(pipeline, row.cadence, "schedule"),
        catch_up_job=_run(pipeline, row.cadence, "catch-up"),
        retry_job=_run(pipeline, row.cadence, "retry"),
        kind=CADENCES[row.cadence],
        scopes=_scopes(pipeline, row.cadence),
    )


def build_cadence_scheduler(
    settings: Settings, pipeline: Pipeline, table: Sequence[CadenceJob] | None = None
) -> Scheduler:
    """One scheduler for every row of `table` (the cadence table unless told)."""
    from service.pipeline.runs import RetryPolicy
    from service.runtime.scheduler import build_scheduler

    rows = cadence_table() if table is None else table
    return build_scheduler(
        cadences=[scheduled(row, settings, pipeline) for row in rows],
        database_url=settings.database_url,
        timezone=settings.digest_timezone,
        store=pipeline.store,
        repos=settings.digest_repos,
        retry=RetryPolicy(
            first=timedelta(seconds=settings.run_retry_first_seconds),
            cap=timedelta(seconds=settings.run_retry_max_seconds),
        ),
        lease=pipeline.lease,
        clock=lambda: pipeline.clock(),  # the pipeline's, as its runs read it
    )
