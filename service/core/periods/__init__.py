"""Reporting periods: ISO weeks, calendar months, ranges of whole days, and any kind a module
registers (core/periods/kinds.py).

A period's label is its key everywhere (store rows, report URLs, delivery keys, run locks).
Each kind's labels have their own shape, and every label is URL-safe:

    week    2026-W04                 ISO week, Monday 00:00 to the next Monday 00:00
    month   2026-01                  the calendar month
    range   2026-01-12..2026-01-25   first and last day, both inclusive (GitHub's `A..B`)

Boundaries are local midnights in the timezone (DIGEST_TIMEZONE). Relative words: `last` /
`this` per kind (`last-week`, `this-month`…; `month` alone is the last complete month).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from service.core.models import Period
from service.core.period_labels import PERIOD_HELP
from service.core.periods.kinds import (
    PeriodRules,
    Words,
    kinds,
    midnight,
    register,
    relative_words,
    rules_for_label,
    rules_of,
)
from service.core.periods.month import MonthRules, month_period
from service.core.periods.ranges import MAX_RANGE_DAYS, RangeRules, day_of, range_period
from service.core.periods.week import WeekRules
from service.core.weeks import before_time, window_containing
from service.errors import InputError

for _rules in (WeekRules(), MonthRules(), RangeRules()):
    register(_rules)

__all__ = [
    "MAX_RANGE_DAYS",
    "PeriodRules",
    "Words",
    "is_complete",
    "kind_of",
    "kinds",
    "month_containing",
    "month_period",
    "owed_month",
    "parse_period",
    "parse_since_until",
    "period_of_label",
    "previous_period",
    "range_period",
    "refuse_before_time",
    "refuse_future",
    "register",
    "rules_of",
    "title_of",
    "weeks_of",
]


def kind_of(label: str) -> str | None:
    """The name of the kind whose labels look like `label` (syntax only); None for none."""
    rules = rules_for_label(label)
    return rules.name if rules is not None else None


def period_of_label(label: str, timezone: str) -> Period:
    """The period a label names, whenever it is (no check against today)."""
    rules = rules_for_label(label)
    if rules is None:
        raise InputError(f"bad period {label.strip()!r}: expected {PERIOD_HELP}")
    return rules.of_label(label.strip(), timezone)


def month_containing(moment: datetime, timezone: str) -> Period:
    return rules_of("month").containing(moment, timezone)


def parse_period(text: str, timezone: str, now: datetime) -> Period:
    """A label or relative word (PERIOD_HELP), relative to `now`, in `timezone`. A period that
    has not begun is refused (it can only be empty), and so is a range that ends after today."""
    value = text.strip()
    relative = relative_words().get(value.lower())
    if relative is not None:
        rules, which = relative
        return rules.relative_period(which, timezone, now)
    named = rules_for_label(value)
    if named is None:
        raise InputError(f"bad period {value!r}: expected {PERIOD_HELP}")
    period = named.parse(value, timezone, now)
    return refuse_before_time(refuse_future(period, now))


def parse_since_until(since: str, until: str, timezone: str, now: datetime) -> Period:
    """`--since DAY --until DAY` (both inclusive) as a range period."""
    first, last = day_of(since, "--since"), day_of(until, "--until")
    return refuse_before_time(refuse_future(range_period(first, last, timezone), now))


def refuse_before_time(period: Period) -> Period:
    """`period`, unless the period before it (its trends' baseline) is out of range: the
    first week, month or range of 1970 would read 1969. Refused before any work."""
    try:
        previous_period(period)
    except InputError:
        raise before_time(period.label) from None
    return period


def refuse_future(period: Period, now: datetime) -> Period:
    """`period`, unless it has not begun at `now` (or, for a kind told only once over, such as
    a range, ends after today)."""
    today = now.astimezone(ZoneInfo(period.timezone)).date()
    if period.start > now:
        raise InputError(f"{period.label} has not begun yet: pick a period up to {today}")
    if rules_of(period.kind).over_only and period.last_day > today:
        raise InputError(f"{period.label} ends after today ({today}): pick a last day up to it")
    return period


def previous_period(period: Period) -> Period:
    """The period before `period` (period-over-period), as its kind counts it."""
    return rules_of(period.kind).previous(period)


def title_of(period: Period, words: Words) -> str:
    """`period`'s name in the catalog's words, as its kind writes it."""
    return rules_of(period.kind).title(period, words)


def weeks_of(period: Period) -> list[str]:
    """The ISO week labels `period` overlaps, oldest first."""
    labels: list[str] = []
    day = period.first_day
    while day <= period.last_day:
        label = window_containing(midnight(day, period.timezone), period.timezone).label
        if label not in labels:
            labels.append(label)
        day += timedelta(days=1)
    return labels


def is_complete(period: Period, now: datetime) -> bool:
    """Whether `period` is over at `now`."""
    return period.end <= now


def owed_month(last_done: str | None, now: datetime, timezone: str) -> Period | None:
    """The month a monthly catch-up owes: the last complete one unless it was done."""
    due = parse_period("last-month", timezone, now)
    return None if last_done == due.label else due
