"""ISO weeks: parse and format `2026-W18`, `last` and `this`, local Monday-to-Monday windows."""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from service.core.models import Period, PeriodKind
from service.errors import InputError

WEEK_RE = re.compile(r"^(\d{4})-?W(\d{1,2})$", re.IGNORECASE)
# the years whose windows any timezone can hold (0001 and 9999 overflow datetime at UTC±14)
FIRST_YEAR = 1970
LAST_YEAR = 9998


def year_in_range(year: int) -> bool:
    return FIRST_YEAR <= year <= LAST_YEAR


def window_for(year: int, week: int, timezone: str) -> Period:
    """The window of ISO week `year`-W`week`: Monday 00:00 to next Monday 00:00 in `timezone`."""
    if not year_in_range(year):
        label = f"{year:04d}-W{week:02d}"
        raise InputError(
            f"{label} is out of range: weeks of {FIRST_YEAR} to {LAST_YEAR} only",
            key="cmd.error.week_out_of_range",
            params={"value": label, "first": FIRST_YEAR, "last": LAST_YEAR},
        )
    try:
        monday = date.fromisocalendar(year, week, 1)
    except ValueError as exc:
        label = f"{year}-W{week:02d}"
        raise InputError(
            f"{label} is not an ISO week (weeks run W01..W52 or W53)",
            key="cmd.error.bad_week",
            params={"value": label},
        ) from exc
    tz = ZoneInfo(timezone)
    start = datetime.combine(monday, time(0), tzinfo=tz)
    end = datetime.combine(monday + timedelta(days=7), time(0), tzinfo=tz)
    label = format_week(year, week)
    return Period(kind=PeriodKind.WEEK, label=label, timezone=timezone, start=start, end=end)


def window_containing(moment: datetime, timezone: str) -> Period:
    """The week window that contains `moment` (an aware datetime)."""
    local = moment.astimezone(ZoneInfo(timezone))
    year, week, _ = local.isocalendar()
    return window_for(year, week, timezone)


def parse_week(text: str, timezone: str, now: datetime) -> Period:
    """`2026-W18`, `last` (last complete week) or `this`, relative to `now`, in `timezone`.

    A week that has not begun at `now` is refused: it can only be empty, and a stored empty
    future week would become the newest one."""
    value = text.strip()
    lowered = value.lower()
    if lowered == "this":
        return window_containing(now, timezone)
    if lowered == "last":
        return previous_window(window_containing(now, timezone))
    match = WEEK_RE.match(value)
    if not match:
        raise InputError(
            f"bad week {value!r}: expected an ISO week like 2026-W18, 'last' or 'this'",
            key="cmd.error.bad_week",
            params={"value": value},
        )
    window = refuse_before_time(window_for(int(match.group(1)), int(match.group(2)), timezone))
    if has_not_begun(window, now):
        current = window_containing(now, timezone).label
        raise InputError(
            f"{window.label} has not begun yet: pick a week up to {current}, 'last' or 'this'",
            key="cmd.error.future_week",
            params={"week": window.label},
        )
    return window


BEFORE_TIME_KEY = "cmd.error.before_time"


def before_time(label: str) -> InputError:
    """A period that reads its previous one (trends), which would fall before FIRST_YEAR."""
    return InputError(
        f"{label} is too early: its trends need the period before it, which would fall "
        f"before {FIRST_YEAR} (nothing before {FIRST_YEAR} can be read); pick a later one",
        key=BEFORE_TIME_KEY,
        params={"value": label, "first": FIRST_YEAR},
    )


def refuse_before_time(window: Period) -> Period:
    """`window`, unless the week before it (its trends' baseline) is out of range: 1970-W01."""
    try:
        previous_window(window)
    except InputError:
        raise before_time(window.label) from None
    return window


def has_not_begun(window: Period, now: datetime) -> bool:
    """Whether `window` starts after `now`."""
    return window.start > now


def previous_window(window: Period) -> Period:
    """The week before `window`."""
    return window_containing(window.start - timedelta(days=1), window.timezone)


def format_week(year: int, week: int) -> str:
    return f"{year}-W{week:02d}"


def label_before(label: str) -> str:
    """The ISO week label before `label` (`2026-W01` → `2025-W52`); '' when it is no label."""
    match = WEEK_RE.match(label.strip())
    if not match:
        return ""
    monday = date.fromisocalendar(int(match.group(1)), int(match.group(2)), 1)
    year, week, _ = (monday - timedelta(days=7)).isocalendar()
    return format_week(year, week)


def owed_week(last_done: str | None, now: datetime, timezone: str) -> Period | None:
    """The week a start-up catch-up owes: `last` if it was not done yet, else None.

    Only the newest complete week is owed, never one run per missed tick.
    """
    due = parse_week("last", timezone, now)
    return None if last_done == due.label else due
