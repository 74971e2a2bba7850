"""The ISO week (`2026-W04`): Monday 00:00 to the next Monday 00:00 (core/weeks.py)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import ClassVar

from service.core.models import Period, PeriodKind
from service.core.periods.kinds import LAST, THIS, PeriodRules, Words
from service.core.weeks import WEEK_RE, parse_week, previous_window, window_containing, window_for
from service.errors import InputError


class WeekRules(PeriodRules):
    name = PeriodKind.WEEK.value
    pattern = r"\d{4}-W\d{2}"
    relative: ClassVar[Mapping[str, str]] = {
        "last": LAST,
        "this": THIS,
        "week": LAST,
        "last-week": LAST,
        "this-week": THIS,
    }

    def matches(self, label: str) -> bool:
        # `2026W4` and `2026-w04` are read too (and written `2026-W04`)
        return WEEK_RE.match(label.strip()) is not None

    def of_label(self, label: str, timezone: str) -> Period:
        match = WEEK_RE.match(label.strip())
        if match is None:
            raise InputError(f"bad week {label!r}: expected an ISO week like 2026-W18")
        return window_for(int(match.group(1)), int(match.group(2)), timezone)

    def previous(self, period: Period) -> Period:
        return previous_window(period)

    def containing(self, moment: datetime, timezone: str) -> Period:
        return window_containing(moment, timezone)

    def relative_period(self, which: str, timezone: str, now: datetime) -> Period:
        return parse_week(which, timezone, now)

    def parse(self, label: str, timezone: str, now: datetime) -> Period:
        # a week's own words for a week not begun yet, or before time (cmd.error.*_week)
        return parse_week(label, timezone, now)

    def title(self, period: Period, words: Words) -> str:
        year, _, number = period.label.partition("-W")
        return words.t("format.week", year=int(year), week=int(number), label=period.label)
