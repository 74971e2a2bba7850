"""ISO week windows in a timezone: parse, last/this, edges, catch-up owed week."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from service.core.weeks import (
    label_before,
    owed_week,
    parse_week,
    previous_window,
    window_containing,
    window_for,
)
from service.errors import InputError

SHANGHAI = "Asia/Shanghai"


def test_window_is_monday_to_monday_local() -> None:
    w = window_for(2026, 18, SHANGHAI)
    assert w.label == "2026-W18"
    assert w.start == datetime(2026, 4, 27, tzinfo=ZoneInfo(SHANGHAI))
    assert w.end == datetime(2026, 5, 4, tzinfo=ZoneInfo(SHANGHAI))
    assert w.start.utcoffset() == timedelta(hours=8)


def test_last_and_this_relative_to_now() -> None:
    # Monday 01:00 in Shanghai is still Sunday in UTC: the local calendar decides.
    now = datetime(2026, 5, 3, 17, 0, tzinfo=UTC)  # Mon 2026-05-04 01:00 +08:00
    assert parse_week("this", SHANGHAI, now).label == "2026-W19"
    assert parse_week("last", SHANGHAI, now).label == "2026-W18"
    assert parse_week("LAST", "UTC", now).label == "2026-W17"


@pytest.mark.parametrize("text", ["2026-W18", "2026W18", "2026-w18", " 2026-W18 "])
def test_parse_accepts_iso_spellings(text: str) -> None:
    assert parse_week(text, SHANGHAI, datetime.now(UTC)).label == "2026-W18"


@pytest.mark.parametrize("text", ["2026-W54", "2026-W00", "next", "2026-18", "", "W18"])
def test_parse_rejects_bad_weeks(text: str) -> None:
    with pytest.raises(InputError) as info:
        parse_week(text, SHANGHAI, datetime.now(UTC))
    assert "\n" not in str(info.value)


def test_year_boundaries() -> None:
    w = window_for(2026, 53, SHANGHAI)
    assert w.first_day.isoformat() == "2026-12-28"
    assert window_containing(w.end + timedelta(hours=1), SHANGHAI).label == "2027-W01"
    assert previous_window(window_for(2027, 1, SHANGHAI)).label == "2026-W53"


def test_edges_in_shanghai() -> None:
    w = window_for(2026, 4, SHANGHAI)
    tz = ZoneInfo(SHANGHAI)
    inside = datetime(2026, 1, 25, 23, 59, 59, tzinfo=tz)
    outside = datetime(2026, 1, 26, 0, 0, 0, tzinfo=tz)
    assert w.start <= inside < w.end
    assert not (w.start <= outside < w.end)


def test_owed_week_only_the_newest() -> None:
    now = datetime(2026, 5, 20, 3, 0, tzinfo=UTC)  # W21; last complete week is W20
    owed = owed_week("2026-W17", now, SHANGHAI)
    assert owed is not None
    assert owed.label == "2026-W20"
    assert owed_week("2026-W20", now, SHANGHAI) is None
    assert owed_week(None, now, SHANGHAI) is not None


@pytest.mark.parametrize(
    ("label", "before"),
    [("2026-W04", "2026-W03"), ("2026-W01", "2025-W52"), ("2021-W01", "2020-W53"), ("x", "")],
)
def test_label_before(label: str, before: str) -> None:
    assert label_before(label) == before
