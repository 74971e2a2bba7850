"""A range of whole days (`2026-01-12..2026-01-25`, both inclusive; GitHub's `A..B`)."""

from __future__ import annotations

import re
from datetime import date, timedelta

from service.core.models import Period, PeriodKind
from service.core.period_labels import RANGE_SEPARATOR
from service.core.periods.kinds import PeriodRules, Words, date_words, midnight
from service.core.weeks import FIRST_YEAR, LAST_YEAR, year_in_range
from service.errors import InputError

DAY_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
RANGE_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})$")
# a range longer than a year is not a digest anyone reads (and costs a year of collecting)
MAX_RANGE_DAYS = 366


def day_of(text: str, what: str) -> date:
    """`2026-01-12` as a date; InputError naming `what` otherwise."""
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
        start=midnight(first, timezone),
        end=midnight(last + timedelta(days=1), timezone),
    )


class RangeRules(PeriodRules):
    name = PeriodKind.RANGE.value
    pattern = r"\d{4}-\d{2}-\d{2}\.\.\d{4}-\d{2}-\d{2}"
    over_only = True

    def of_label(self, label: str, timezone: str) -> Period:
        match = RANGE_RE.match(label.strip())
        if match is None:
            raise InputError(f"bad range {label!r}: expected 2026-01-12..2026-01-25")
        first, last = day_of(match.group(1), "day"), day_of(match.group(2), "day")
        return range_period(first, last, timezone)

    def previous(self, period: Period) -> Period:
        days = (period.last_day - period.first_day).days + 1
        last = period.first_day - timedelta(days=1)
        return range_period(last - timedelta(days=days - 1), last, period.timezone)

    def title(self, period: Period, words: Words) -> str:
        """`Jan 12 – Jan 25, 2026` / `2026 年 1 月 12 日 至 1 月 25 日`: within a year, the year
        once, on the day the language gives it to (`format.range_year_on`); across years, on
        both days."""
        first, last = period.first_day, period.last_day
        on = words.t("format.range_year_on") if first.year == last.year else "both"
        return words.t(
            "format.period_range",
            first=date_words(first, words, "long" if on in ("first", "both") else "short"),
            last=date_words(last, words, "long" if on in ("last", "both") else "short"),
        )
