"""The calendar month (`2026-01`): the 1st 00:00 to the next month's 1st 00:00."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import ClassVar
from zoneinfo import ZoneInfo

from service.core.models import Period, PeriodKind
from service.core.periods.kinds import LAST, THIS, PeriodRules, Words, midnight
from service.core.weeks import FIRST_YEAR, LAST_YEAR, year_in_range
from service.errors import InputError

MONTH_RE = re.compile(r"^(\d{4})-(\d{2})$")
MONTHS = 12


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
        start=midnight(first, timezone),
        end=midnight(after, timezone),
    )


class MonthRules(PeriodRules):
    name = PeriodKind.MONTH.value
    pattern = r"\d{4}-\d{2}"
    relative: ClassVar[Mapping[str, str]] = {"month": LAST, "last-month": LAST, "this-month": THIS}

    def of_label(self, label: str, timezone: str) -> Period:
        match = MONTH_RE.match(label.strip())
        if match is None:
            raise InputError(f"bad month {label!r}: expected a month like 2026-01")
        return month_period(int(match.group(1)), int(match.group(2)), timezone)

    def previous(self, period: Period) -> Period:
        before = period.first_day - timedelta(days=1)
        return month_period(before.year, before.month, period.timezone)

    def containing(self, moment: datetime, timezone: str) -> Period:
        local = moment.astimezone(ZoneInfo(timezone))
        return month_period(local.year, local.month, timezone)

    def title(self, period: Period, words: Words) -> str:
        year, month = period.first_day.year, period.first_day.month
        name = words.t(f"format.month.m{month}")
        return words.t("format.period_month", year=year, month=month, month_name=name)
