"""The monthly cadence's job beside the weekly one, composed from Settings (wiring calls it),
ticking at DIGEST_MONTHLY_SCHEDULE (default: DIGEST_SCHEDULE's time on the 1st) in
DIGEST_TIMEZONE. Its destinations are routes of the `monthly` cadence (delivery/routing.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.delivery.destination import MONTHLY

if TYPE_CHECKING:
    from service.pipeline.jobs import Pipeline
    from service.runtime.scheduler import WeeklyScheduler
    from service.settings import Settings

MONTHLY_JOB_ID = "monthly-digest"


def add_monthly_job(settings: Settings, pipeline: Pipeline, weekly: WeeklyScheduler) -> None:
    """The monthly job on the weekly scheduler's APScheduler, when any destination has the
    monthly cadence (nothing is owed to nobody)."""
    if not settings.digest_monthly_destinations:
        return
    from service.pipeline.jobs import run_cadence
    from service.runtime.scheduler import add_cadence, cron_trigger

    add_cadence(
        weekly,
        run_job=lambda: run_cadence(pipeline, MONTHLY),
        catch_up_job=lambda: run_cadence(pipeline, MONTHLY, trigger="catch-up"),
        retry_job=lambda: run_cadence(pipeline, MONTHLY, trigger="retry"),
        trigger=cron_trigger(settings.monthly_schedule, settings.digest_timezone),
        job_id=MONTHLY_JOB_ID,
        kind="month",
    )
