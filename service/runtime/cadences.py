"""Every cadence's job, from one table: the weekly digest at DIGEST_SCHEDULE and the monthly one
at DIGEST_MONTHLY_SCHEDULE (default: DIGEST_SCHEDULE's time on the 1st), in DIGEST_TIMEZONE, on
one APScheduler and job store (wiring calls it). Each job runs the scopes with routes of its
cadence (delivery/routing.py), so a channel subscribed by command to a monthly digest or to a
family gets it on the next tick, and a cadence nobody is routed to owes nothing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from service.delivery.destination import CADENCES, MONTHLY, WEEKLY

if TYPE_CHECKING:
    from service.pipeline.jobs import Pipeline
    from service.runtime.scheduler import Job, WeeklyScheduler
    from service.settings import Settings

MONTHLY_JOB_ID = "monthly-digest"


@dataclass(frozen=True)
class CadenceJob:
    """One row of the table: a cadence, its APScheduler job id and its cron setting."""

    cadence: str
    job_id: str
    schedule: Callable[[Settings], str]


def _jobs() -> tuple[CadenceJob, ...]:
    from service.runtime.scheduler import JOB_ID

    return (
        CadenceJob(WEEKLY, JOB_ID, lambda s: s.digest_schedule),  # first: owns the APScheduler
        CadenceJob(MONTHLY, MONTHLY_JOB_ID, lambda s: s.monthly_schedule),
    )


def _run(pipeline: Pipeline, cadence: str, trigger: str) -> Job:
    from service.pipeline.jobs import run_cadence

    return lambda: run_cadence(pipeline, cadence, trigger=trigger)


def _runs(pipeline: Pipeline, cadence: str) -> dict[str, Job]:
    """The cadence's job as the schedule, the start-up catch-up and a retry run it."""
    return {
        trigger: _run(pipeline, cadence, trigger) for trigger in ("schedule", "catch-up", "retry")
    }


def _scopes(pipeline: Pipeline, cadence: str) -> Callable[[], list[str]]:
    from service.pipeline.jobs import cadence_scopes

    return lambda: cadence_scopes(pipeline, cadence)


def build_cadence_scheduler(settings: Settings, pipeline: Pipeline) -> WeeklyScheduler:
    """One scheduler for every cadence of the table: the first row's owns the APScheduler and
    starts and stops the others' with it."""
    from service.pipeline.runs import RetryPolicy
    from service.runtime.scheduler import add_cadence, build_scheduler, cron_trigger

    first, *others = _jobs()
    runs = _runs(pipeline, first.cadence)
    owner = build_scheduler(
        run_job=runs["schedule"],
        catch_up_job=runs["catch-up"],
        retry_job=runs["retry"],
        database_url=settings.database_url,
        schedule=first.schedule(settings),
        timezone=settings.digest_timezone,
        store=pipeline.store,
        repos=settings.digest_repos,
        retry=RetryPolicy(
            first=timedelta(seconds=settings.run_retry_first_seconds),
            cap=timedelta(seconds=settings.run_retry_max_seconds),
        ),
        lease=pipeline.lease,
        clock=lambda: pipeline.clock(),  # the pipeline's, as its runs read it
        job_id=first.job_id,
        scopes=_scopes(pipeline, first.cadence),
    )
    for row in others:
        runs = _runs(pipeline, row.cadence)
        add_cadence(
            owner,
            run_job=runs["schedule"],
            catch_up_job=runs["catch-up"],
            retry_job=runs["retry"],
            trigger=cron_trigger(row.schedule(settings), settings.digest_timezone),
            job_id=row.job_id,
            kind=CADENCES[row.cadence],
            scopes=_scopes(pipeline, row.cadence),
        )
    return owner
