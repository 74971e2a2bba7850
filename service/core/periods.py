"""Reporting periods: ISO weeks, calendar months and ranges of whole days.

A period's label is its key everywhere (store rows, report URLs, delivery keys, run locks).
Each shape names its kind, and every label is URL-safe (digits, `-`, `W`, `.` only):

    week    2026-W04                 ISO week, Monday 00:00 to the next Monday 00:00
    month   2026-01                  the calendar month
    range   2026-01-12..2026-01-25   first and last day, both inclusive (GitHub's `A..B`)

Boundaries are local midnights in the timezone (DIGEST_TIMEZONE). Relative words: `last` /
`this` per kind (`last-week`, `this-month`…; `month` alone is the last complete month).
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from service.core.models import Period, PeriodKind
from service.core.period_labels import PERIOD_HELP, RANGE_SEPARATOR
from service.core.weeks import (
    FIRST_YEAR,
    LAST_YEAR,
    WEEK_RE,
    before_time,
    parse_week,
    previous_window,
    window_containing,
    window_for,
    year_in_range,
)
from service.errors import InputError

MONTH_RE = re.compile(r"^(\d{4})-(\d{2})$")
DAY_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
RANGE_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})$")
# a range longer than a year is not a digest anyone reads (and costs a year of collecting)
MAX_RANGE_DAYS = 366
MONTHS = 12
RELATIVE = {
    "last": (PeriodKind.WEEK, "last"),
    "this": (PeriodKind.WEEK, "this"),
    "week": (PeriodKind.WEEK, "last"),
    "last-week": (PeriodKind.WEEK, "last"),
    "this-week": (PeriodKind.WEEK, "this"),
    "month": (PeriodKind.MONTH, "last"),
    "last-month": (PeriodKind.MONTH, "last"),
    "this-month": (PeriodKind.MONTH, "this"),
}


def kind_of(label: str) -> PeriodKind | None:
    """The kind a label's shape names (syntax only); None when it is no period label."""
    text = label.strip()
    if WEEK_RE.match(text):
        return PeriodKind.WEEK
    if MONTH_RE.match(text):
        return PeriodKind.MONTH
    if RANGE_RE.match(text):
        return PeriodKind.RANGE
    return None


def _midnight(day: date, timezone: str) -> datetime:
    return datetime.combine(day, time(0), tzinfo=ZoneInfo(timezone))


def month_period(year: int, month: int, timezone: str) -> Period:
    """The calendar month `year`-`month` in `timezone`."""
    label = f"{year:04d}-{month:02d}"
    if not year_in_range(year):
        raise InputError(f"{label} is out of range: months of {FIRST_YEAR} to {LAST_YEAR} only")
    if not 1 <= month <= MONTHS:
        raise InputError(f"{label} is not a month (months run 01..12)")
    first = date(year, month, 1)
    after = date(year + month // MONTHS, month % MONTHS + 1, 1)
    return Period(
        kind=PeriodKind.MONTH,
        label=label,
        timezone=timezone,
        start=_midnight(first, timezone),
        end=_midnight(after, timezone),
    )


def _day(text: str, what: str) -> date:
    value = text.strip()
    try:
        if not DAY_RE.match(value):
            raise ValueError
        return date.fromisoformat(value)
    except ValueError:
        raise InputError(f"bad {what} {value!r}: expected a date like 2026-01-12") from None


def range_period(first: date, last: date, timezone: str) -> Period:
    """The days `first` to `last`, both inclusive, in `timezone`; inverted, oversized or
    out-of-range spans are refused."""
    label = f"{first.isoformat()}{RANGE_SEPARATOR}{last.isoformat()}"
    if last < first:
        raise InputError(f"{label} ends before it starts: the first day comes first")
    if not (year_in_range(first.year) and year_in_range(last.year)):
        raise InputError(f"{label} is out of range: days of {FIRST_YEAR} to {LAST_YEAR} only")
    days = (last - first).days + 1
    if days > MAX_RANGE_DAYS:
        raise InputError(f"{label} spans {days} days: at most {MAX_RANGE_DAYS}")
    return Period(
        kind=PeriodKind.RANGE,
        label=label,
        timezone=timezone,
        start=_midnight(first, timezone),
        end=_midnight(last + timedelta(days=1), timezone),
    )


def period_of_label(label: str, timezone: str) -> Period:
    """The period a label names, whenever it is (no check against today)."""
    text = label.strip()
    if match := WEEK_RE.match(text):
        return window_for(int(match.group(1)), int(match.group(2)), timezone)
    if match := MONTH_RE.match(text):
        return month_period(int(match.group(1)), int(match.group(2)), timezone)
    if match := RANGE_RE.match(text):
        first, last = _day(match.group(1), "day"), _day(match.group(2), "day")
        return range_period(first, last, timezone)
    raise InputError(f"bad period {text!r}: expected {PERIOD_HELP}")


def month_containing(moment: datetime, timezone: str) -> Period:
    local = moment.astimezone(ZoneInfo(timezone))
    return month_period(local.year, local.month, timezone)


def _relative(kind: PeriodKind, which: str, timezone: str, now: datetime) -> Period:
    if kind is PeriodKind.WEEK:
        return parse_week(which, timezone, now)
    this = month_containing(now, timezone)
    return this if which == "this" else previous_period(this)


def parse_period(text: str, timezone: str, now: datetime) -> Period:
    """A label or relative word (PERIOD_HELP), relative to `now`, in `timezone`. A period that
    has not begun is refused (it can only be empty), and so is a range that ends after today."""
    value = text.strip()
    relative = RELATIVE.get(value.lower())
    if relative is not None:
        return _relative(*relative, timezone, now)
    if WEEK_RE.match(value):
        return parse_week(value, timezone, now)
    period = period_of_label(value, timezone)
    return refuse_before_time(refuse_future(period, now))


def parse_since_until(since: str, until: str, timezone: str, now: datetime) -> Period:
    """`--since DAY --until DAY` (both inclusive) as a range period."""
    first, last = _day(since, "--since"), _day(until, "--until")
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
    """`period`, unless it has not begun at `now` (or, for a range, ends after today)."""
    today = now.astimezone(ZoneInfo(period.timezone)).date()
    if period.start > now:
        raise InputError(f"{period.label} has not begun yet: pick a period up to {today}")
    if period.kind is PeriodKind.RANGE and period.last_day > today:
        raise InputError(f"{period.label} ends after today ({today}): pick a last day up to it")
    return period


def previous_period(period: Period) -> Period:
    """The period before `period` (period-over-period): the week before a week, the month
    before a month, the same number of days just before a range."""
    if period.kind is PeriodKind.WEEK:
        return previous_window(period)
    if period.kind is PeriodKind.MONTH:
        first = period.first_day
        before = first - timedelta(days=1)
        return month_period(before.year, before.month, period.timezone)
    days = (period.last_day - period.first_day).days + 1
    last = period.first_day - timedelta(days=1)
    return range_period(last - timedelta(days=days - 1), last, period.timezone)


def weeks_of(period: Period) -> list[str]:
    """The ISO week labels `period` overlaps, oldest first."""
    labels: list[str] = []
    day = period.first_day
    while day <= period.last_day:
        label = window_containing(_midnight(day, period.timezone), period.timezone).label
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
