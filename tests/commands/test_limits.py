"""Command text that used to cost seconds of CPU per request (issue 19): 20,000 `module:` tokens
were each checked against every value before (quadratic), and a 100 kB message was parsed in
full. Both are refused at once with the limit, in the catalog's words."""

from __future__ import annotations

import time

import pytest

from service.commands.filters import MAX_VALUES, FilterError, parse_filter
from service.commands.parse import MAX_COMMAND_CHARS, CommandError, parse_command
from service.core.globs import MAX_GLOB_WILDCARDS

BOUND_SECONDS = 0.050


def refused(text: str) -> tuple[CommandError, float]:
    started = time.perf_counter()
    with pytest.raises(CommandError) as caught:
        parse_command(text)
    return caught.value, time.perf_counter() - started


def test_many_filter_tokens_are_refused_after_the_limit() -> None:
    text = "risks " + " ".join(f"module:m{i}" for i in range(20_000))
    assert len(text) < MAX_COMMAND_CHARS * 100
    error, seconds = refused(text[:MAX_COMMAND_CHARS])
    assert error.key == "cmd.error.long_filter"
    assert error.params == {"name": "module", "max": MAX_VALUES}
    assert seconds < BOUND_SECONDS


def test_a_very_long_command_is_refused_before_parsing() -> None:
    error, seconds = refused("risks " + "@a " * 40_000)
    assert error.key == "cmd.error.too_long"
    assert error.params == {"max": MAX_COMMAND_CHARS}
    assert seconds < BOUND_SECONDS


def test_twenty_one_values_over_several_tokens_are_refused() -> None:
    tokens = " ".join(f"label:l{i},l{i}b" for i in range(11))
    with pytest.raises(FilterError) as caught:
        parse_filter(tokens)
    assert caught.value.key == "cmd.error.long_filter"


def test_a_typed_glob_over_the_cap_is_refused_and_a_stored_one_is_read() -> None:
    glob = "path:" + "*/" * (MAX_GLOB_WILDCARDS + 1)
    with pytest.raises(FilterError) as caught:
        parse_filter(glob, check_globs=True)
    assert caught.value.key == "cmd.error.complex_glob"
    assert caught.value.params["max"] == MAX_GLOB_WILDCARDS
    assert parse_filter(glob).paths == (glob.removeprefix("path:"),)
    at_cap = "path:" + "*/" * MAX_GLOB_WILDCARDS
    assert parse_filter(at_cap, check_globs=True).paths == (at_cap.removeprefix("path:"),)


@pytest.mark.parametrize("week", ["9999-W52", "0001-W01", "1969-W01"])
def test_weeks_no_datetime_can_hold_are_refused_by_the_parser(week: str) -> None:
    error, _seconds = refused(f"risks {week}")
    assert error.key == "cmd.error.week_out_of_range"
    assert error.params == {"value": week, "first": 1970, "last": 9998}
