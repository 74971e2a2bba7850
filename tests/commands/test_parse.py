"""Parsing chat text into commands: tolerant of case, spaces and mentions; bad text → usage."""

from __future__ import annotations

import pytest

from service.commands.grammar import PeriodRef
from service.commands.parse import Command, CommandError, parse_command
from service.commands.verbs.top import MAX_TOP
from service.core.models import Severity
from service.errors import InputError


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", Command(verb="help")),
        ("help", Command(verb="help")),
        ("risks", Command(verb="risks")),
        (
            "risks 2026-W18 high public",
            Command(verb="risks", period="2026-W18", severity=Severity.HIGH, public=True),
        ),
        (
            "  RISKS   public  2026w3  LOW ",
            Command(verb="risks", period="2026-W03", severity=Severity.LOW, public=True),
        ),
        ("risks last", Command(verb="risks", period="last")),
        ("pr 6091", Command(verb="pr", number=6091)),
        ("pr #6091 2026-W04", Command(verb="pr", number=6091, period="2026-W04")),
        (
            "pr https://github.com/volcengine/verl/pull/4711",
            Command(verb="pr", number=4711, member="verl"),
        ),
        (
            "pr <https://github.com/volcengine/verl/pull/4711>",
            Command(verb="pr", number=4711, member="verl"),
        ),
        ("pr verl-omni#25", Command(verb="pr", number=25, member="verl-omni")),
        (
            "pr verl-project/verl-omni#25",
            Command(verb="pr", number=25, member="verl-omni"),
        ),
        ("subscribe verl-project", Command(verb="subscribe", repo="verl-project")),
        (
            "subscribe Monthly verl-project",
            Command(verb="subscribe", repo="verl-project", cadence="monthly"),
        ),
        ("unsubscribe weekly", Command(verb="unsubscribe", cadence="weekly")),
        ("top", Command(verb="top")),
        ("top 5", Command(verb="top", limit=5)),
        ("summary", Command(verb="summary")),
        ("summary 2025-W47", Command(verb="summary", period="2025-W47")),
        ("trends this", Command(verb="trends", period="this")),
        ("week 2026-W18", Command(verb="week", period="2026-W18")),
        ("regenerate", Command(verb="regenerate")),
        ("regenerate 2026-W04", Command(verb="regenerate", period="2026-W04")),
        ("subscribe", Command(verb="subscribe")),
        ("Unsubscribe", Command(verb="unsubscribe")),
        ("<@U0BOT> risks high", Command(verb="risks", severity=Severity.HIGH)),
        ("@_user_1 top 3", Command(verb="top", limit=3)),
        ("/verl-week pr 12", Command(verb="pr", number=12)),
        ("risks volcengine/verl", Command(verb="risks", repo="volcengine/verl")),
    ],
)
def test_commands_parse(text: str, expected: Command) -> None:
    assert parse_command(text) == expected


@pytest.mark.parametrize(
    ("text", "key", "usage"),
    [
        ("deploy now", "cmd.error.unknown_command", None),
        ("pr", "cmd.error.missing_number", "pr"),
        ("pr abc", "cmd.error.bad_number", "pr"),
        ("pr 1 2", "cmd.error.bad_number", "pr"),
        ("week", "cmd.error.missing_week", "week"),
        ("risks 2026-W60", "cmd.error.bad_week", None),
        ("risks 2026-18", "cmd.error.bad_period", "risks"),  # no month 18
        ("month 2026-01-25..2026-01-12", "cmd.error.bad_period", "month"),
        ("top 2025-01-01..2026-01-31", "cmd.error.bad_period", "top"),  # over 366 days
        ("risks urgent", "cmd.error.bad_argument", "risks"),
        ("risks high low", "cmd.error.bad_argument", "risks"),
        (f"top {MAX_TOP + 1}", "cmd.error.bad_limit", "top"),
        ("top 0", "cmd.error.bad_limit", "top"),
        ("subscribe public", "cmd.error.bad_argument", "subscribe"),
        ("<!channel> hi", "cmd.error.unknown_command", None),
    ],
)
def test_bad_text_raises_a_usage_error(text: str, key: str, usage: str | None) -> None:
    with pytest.raises(CommandError) as info:
        parse_command(text)
    assert info.value.key == key
    assert info.value.usage == usage
    assert isinstance(info.value, InputError)


def test_error_carries_the_offending_word() -> None:
    with pytest.raises(CommandError) as info:
        parse_command("risks whenever")
    assert info.value.params == {"value": "whenever"}


@pytest.mark.parametrize(
    ("text", "verb", "period"),
    [
        ("month", "month", "month"),
        ("month 2026-01", "month", "2026-01"),
        ("risks 2026-01 high", "risks", "2026-01"),
        ("top 3 2026-01-12..2026-01-25", "top", "2026-01-12..2026-01-25"),
        ("summary this-month", "summary", "this-month"),
        ("regenerate 2026-01", "regenerate", "2026-01"),
        ("pr 4956 2026-01", "pr", "2026-01"),
    ],
)
def test_months_and_ranges_where_a_week_goes(text: str, verb: str, period: str) -> None:
    command = parse_command(text)
    assert (command.verb, command.period) == (verb, PeriodRef(text=period))
