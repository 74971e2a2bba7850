"""`period("2026-W04")`: the Period a label names, as the store and readers take it (tests
name their periods by label, as users do)."""

from __future__ import annotations

from service.core.models import Period

TIMEZONE = "UTC"


def period(label: str, timezone: str = TIMEZONE) -> Period:
    return Period.of_label(label, timezone)
