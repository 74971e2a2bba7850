"""The monthly cadence, composed from Settings (wiring calls it): the destinations of the
monthly digest (DIGEST_MONTHLY_DESTINATIONS) and its job beside the weekly one, ticking at
DIGEST_MONTHLY_SCHEDULE (default: DIGEST_SCHEDULE's time on the 1st) in DIGEST_TIMEZONE."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from service.delivery.cadence import split_destination
from service.delivery.outbox import Target
from service.errors import ConfigError, InputError

if TYPE_CHECKING:
    from service.pipeline.jobs import Pipeline
    from service.runtime.scheduler import WeeklyScheduler
    from service.settings import Settings

MONTHLY_JOB_ID = "monthly-digest"


def monthly_destinations(
    settings: Settings, configured: dict[str, str | None]
) -> Callable[[str], list[Target]]:
    """The monthly card's targets, each repository alike: the whole month, in the language the
    entry names, else the chat's configured one (`configured`: destination → language)."""
    from service.platforms import registry

    targets = []
    for item in settings.digest_monthly_destinations:
        destination, language = split_destination(item)
        try:  # a registered platform's syntax, the old names in their current form
            destination = registry.parse_destination(destination)
        except InputError as exc:
            raise ConfigError(
                f"invalid setting DIGEST_MONTHLY_DESTINATIONS: {exc.message}"
            ) from exc
        targets.append(Target(destination, "", language or configured.get(destination)))
    return lambda _repo: list(targets)


def monthly_channels(settings: Settings) -> list[tuple[str, str]]:
    """(platform, channel) of each destination with the monthly cadence, for `doctor` to give
    each platform's check as it gives it the weekly ones."""
    found = []
    for item in settings.digest_monthly_destinations:
        platform, _, channel = split_destination(item)[0].partition(":")
        found.append((platform, channel))
    return found


def add_monthly_job(settings: Settings, pipeline: Pipeline, weekly: WeeklyScheduler) -> None:
    """The monthly job on the weekly scheduler's APScheduler, when any destination has the
    monthly cadence (nothing is owed to nobody)."""
    if not settings.digest_monthly_destinations:
        return
    from service.pipeline.jobs import run_monthly
    from service.runtime.scheduler import add_cadence, cron_trigger

    add_cadence(
        weekly,
        run_job=lambda: run_monthly(pipeline),
        catch_up_job=lambda: run_monthly(pipeline, trigger="catch-up"),
        retry_job=lambda: run_monthly(pipeline, trigger="retry"),
        trigger=cron_trigger(settings.monthly_schedule, settings.digest_timezone),
        job_id=MONTHLY_JOB_ID,
        kind="month",
    )
