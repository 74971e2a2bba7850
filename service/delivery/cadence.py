"""When each cadence's cards go: the monthly run ticks at DIGEST_MONTHLY_SCHEDULE (cron), which
defaults to DIGEST_SCHEDULE's minute and hour on the 1st. Which destinations get which cadence
is routing's (delivery/destination.py's Destination carries it)."""

from __future__ import annotations

CRON_FIELDS = 5


def monthly_cron(weekly: str) -> str:
    """DIGEST_SCHEDULE's minute and hour, on the first day of every month."""
    fields = weekly.split()
    if len(fields) != CRON_FIELDS:
        raise ValueError(f"expected a 5-field cron, got {weekly!r}")
    return f"{fields[0]} {fields[1]} 1 * *"
