"""Periods (core/periods/): labels of each kind, relative words, the period before, and the
refusals (future, inverted, oversized, malformed), in a timezone ahead of UTC."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

import pytest

from service.core.models import PeriodKind
from service.core.periods import (
    MAX_RANGE_DAYS,
    is_complete,
    kind_of,
    owed_month,
    parse_period,
    parse_since_until,
    period_of_label,
    previous_period,
    range_period,
    weeks_of,
)
from service.core.periods.kinds import label_pattern
from service.core.weeks import parse_week
from service.errors import InputError

TZ = "Asia/Shanghai"
# Tuesday 2026-02-03 12:00 in Shanghai
NOW = datetime(2026, 2, 3, 4, 0, tzinfo=UTC)


def test_a_month_runs_from_its_first_local_midnight_to_the_next_months() -> None:
    month = parse_period("2026-01", TZ, NOW)
    assert month.kind == PeriodKind.MONTH
    assert month.label == "2026-01"
    assert month.start.isoformat() == "2026-01-01T00:00:00+08:00"
    assert month.end.isoformat() == "2026-02-01T00:00:00+08:00"
    assert (month.first_day, month.last_day) == (date(2026, 1, 1), date(2026, 1, 31))
    december = period_of_label("2025-12", TZ)
    assert december.end.isoformat() == "2026-01-01T00:00:00+08:00"


def test_a_range_holds_both_its_days() -> None:
    span = parse_since_until("2026-01-12", "2026-01-25", TZ, NOW)
    assert span.kind == PeriodKind.RANGE
    assert span.label == "2026-01-12..2026-01-25"
    assert span.start.isoformat() == "2026-01-12T00:00:00+08:00"
    assert span.end.isoformat() == "2026-01-26T00:00:00+08:00"
    assert parse_period(span.label, TZ, NOW) == span
    assert weeks_of(span) == ["2026-W03", "2026-W04"]
    one_day = range_period(date(2026, 1, 12), date(2026, 1, 12), TZ)
    assert one_day.label == "2026-01-12..2026-01-12"


def test_relative_words_per_kind() -> None:
    assert parse_period("month", TZ, NOW).label == "2026-01"
    assert parse_period("last-month", TZ, NOW).label == "2026-01"
    assert parse_period("this-month", TZ, NOW).label == "2026-02"
    assert parse_period("last-week", TZ, NOW) == parse_week("last", TZ, NOW)
    assert parse_period("this", TZ, NOW) == parse_week("this", TZ, NOW)
    # 2026-01-31 20:00 UTC is already February in Shanghai
    assert parse_period("this-month", TZ, datetime(2026, 1, 31, 20, tzinfo=UTC)).label == "2026-02"


def test_weeks_keep_their_windows_and_labels() -> None:
    week = parse_period("2026-W04", TZ, NOW)
    assert week == parse_week("2026-W04", TZ, NOW)
    assert week.kind == PeriodKind.WEEK
    assert previous_period(week).label == "2026-W03"


def test_the_period_before() -> None:
    assert previous_period(period_of_label("2026-01", TZ)).label == "2025-12"
    assert previous_period(period_of_label("2026-03", TZ)).label == "2026-02"
    span = period_of_label("2026-01-12..2026-01-25", TZ)
    assert previous_period(span).label == "2025-12-29..2026-01-11"


def test_labels_name_their_kind_and_are_url_safe() -> None:
    labels = {"2026-W04": PeriodKind.WEEK, "2026-01": PeriodKind.MONTH}
    labels["2026-01-12..2026-01-25"] = PeriodKind.RANGE
    for label, kind in labels.items():
        assert kind_of(label) == kind
        assert re.fullmatch(label_pattern(), label)
        assert re.fullmatch(r"[A-Za-z0-9._~-]+", label)  # RFC 3986 unreserved characters
    for text in ("2026", "2026-1", "2026-01-12", "2026-01..2026-02", "last"):
        assert kind_of(text) is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("2026-13", "2026-13 is not a month (months run 01..12)"),
        ("2026-00", "2026-00 is not a month"),
        ("1969-12", "out of range"),
        ("2026-03", "2026-03 has not begun yet: pick a period up to 2026-02-03"),
        ("2026-01-25..2026-01-12", "ends before it starts"),
        ("2026-02-01..2026-02-04", "ends after today (2026-02-03)"),
        ("2026-02-30..2026-03-01", "bad day '2026-02-30'"),
        ("2024-01-01..2025-01-01", f"spans 367 days: at most {MAX_RANGE_DAYS}"),
        ("fortnight", "bad period 'fortnight'"),
        ("2026-W60", "not an ISO week"),
    ],
)
def test_refusals_are_one_line(text: str, message: str) -> None:
    with pytest.raises(InputError) as refused:
        parse_period(text, TZ, NOW)
    assert message in refused.value.message
    assert "\n" not in refused.value.message


@pytest.mark.parametrize("text", ["1970-W01", "1970-01", "1970-01-01..1970-01-05"])
def test_the_first_periods_of_1970_are_refused_before_any_work(text: str) -> None:
    # their trends read the period before, in 1969, which nothing can hold
    with pytest.raises(InputError) as refused:
        parse_period(text, TZ, NOW)
    assert refused.value.message.startswith(f"{text} is too early: its trends need the period")
    assert refused.value.key == "cmd.error.before_time"
    assert "\n" not in refused.value.message
    with pytest.raises(InputError, match="too early"):
        parse_since_until("1970-01-01", "1970-01-05", TZ, NOW)
    with pytest.raises(InputError, match="too early"):
        parse_week("1970-W01", "America/Los_Angeles", NOW)


@pytest.mark.parametrize("text", ["1970-W02", "1970-02", "1970-01-06..1970-01-10"])
def test_the_periods_after_them_have_a_period_before(text: str) -> None:
    period = parse_period(text, TZ, NOW)
    assert previous_period(period).label.startswith("1970-")


def test_since_and_until_are_checked_as_dates() -> None:
    with pytest.raises(InputError, match="bad --since '2026/01/12'"):
        parse_since_until("2026/01/12", "2026-01-25", TZ, NOW)
    with pytest.raises(InputError, match="bad --until"):
        parse_since_until("2026-01-12", "yesterday", TZ, NOW)
    # a year and a day is the longest range
    longest = parse_since_until("2025-01-01", "2026-01-01", TZ, NOW)
    assert (longest.last_day - longest.first_day).days + 1 == MAX_RANGE_DAYS


def test_a_month_is_owed_until_it_was_done() -> None:
    owed = owed_month(None, NOW, TZ)
    assert owed is not None
    assert owed.label == "2026-01"
    assert is_complete(owed, NOW)
    assert owed_month("2026-01", NOW, TZ) is None
    assert not is_complete(parse_period("this-month", TZ, NOW), NOW)
