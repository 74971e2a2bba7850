"""Parsing chat text into commands: tolerant of case, spaces and mentions; bad text → usage."""

from __future__ import annotations

import pytest

from service.commands.parse import MAX_TOP, Command, CommandError, Verb, parse_command
from service.core.models import Severity
from service.errors import InputError


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", Command(verb=Verb.HELP)),
        ("help", Command(verb=Verb.HELP)),
        ("risks", Command(verb=Verb.RISKS)),
        (
            "risks 2026-W18 high public",
            Command(verb=Verb.RISKS, week="2026-W18", severity=Severity.HIGH, public=True),
        ),
        (
            "  RISKS   public  2026w3  LOW ",
            Command(verb=Verb.RISKS, week="2026-W03", severity=Severity.LOW, public=True),
        ),
        ("risks last", Command(verb=Verb.RISKS, week="last")),
        ("pr 6091", Command(verb=Verb.PR, number=6091)),
        ("pr #6091 2026-W04", Command(verb=Verb.PR, number=6091, week="2026-W04")),
        (
            "pr https://github.com/volcengine/verl/pull/4711",
            Command(verb=Verb.PR, number=4711, member="verl"),
        ),
        (
            "pr <https://github.com/volcengine/verl/pull/4711>",
            Command(verb=Verb.PR, number=4711, member="verl"),
        ),
        ("pr verl-omni#25", Command(verb=Verb.PR, number=25, member="verl-omni")),
        (
            "pr verl-project/verl-omni#25",
            Command(verb=Verb.PR, number=25, member="verl-omni"),
        ),
        ("subscribe verl-project", Command(verb=Verb.SUBSCRIBE, repo="verl-project")),
        (
            "subscribe Monthly verl-project",
            Command(verb=Verb.SUBSCRIBE, repo="verl-project", cadence="monthly"),
        ),
        ("unsubscribe weekly", Command(verb=Verb.UNSUBSCRIBE, cadence="weekly")),
        ("top", Command(verb=Verb.TOP)),
        ("top 5", Command(verb=Verb.TOP, limit=5)),
        ("summary", Command(verb=Verb.SUMMARY)),
        ("summary 2025-W47", Command(verb=Verb.SUMMARY, week="2025-W47")),
        ("trends this", Command(verb=Verb.TRENDS, week="this")),
        ("week 2026-W18", Command(verb=Verb.WEEK, week="2026-W18")),
        ("regenerate", Command(verb=Verb.REGENERATE)),
        ("regenerate 2026-W04", Command(verb=Verb.REGENERATE, week="2026-W04")),
        ("subscribe", Command(verb=Verb.SUBSCRIBE)),
        ("Unsubscribe", Command(verb=Verb.UNSUBSCRIBE)),
        ("<@U0BOT> risks high", Command(verb=Verb.RISKS, severity=Severity.HIGH)),
        ("@_user_1 top 3", Command(verb=Verb.TOP, limit=3)),
        ("/verl-week pr 12", Command(verb=Verb.PR, number=12)),
        ("risks volcengine/verl", Command(verb=Verb.RISKS, repo="volcengine/verl")),
    ],
)
def test_commands_parse(text: str, expected: Command) -> None:
    assert parse_command(text) == expected


@pytest.mark.parametrize(
    ("text", "key", "usage"),
    [
        ("deploy now", "cmd.error.unknown_command", None),
        ("pr", "cmd.error.missing_number", Verb.PR),
        ("pr abc", "cmd.error.bad_number", Verb.PR),
        ("pr 1 2", "cmd.error.bad_number", Verb.PR),
        ("week", "cmd.error.missing_week", Verb.WEEK),
        ("risks 2026-W60", "cmd.error.bad_week", None),
        ("risks 2026-18", "cmd.error.bad_period", Verb.RISKS),  # no month 18
        ("month 2026-01-25..2026-01-12", "cmd.error.bad_period", Verb.MONTH),
        ("top 2025-01-01..2026-01-31", "cmd.error.bad_period", Verb.TOP),  # over 366 days
        ("risks urgent", "cmd.error.bad_argument", Verb.RISKS),
        ("risks high low", "cmd.error.bad_argument", Verb.RISKS),
        (f"top {MAX_TOP + 1}", "cmd.error.bad_limit", Verb.TOP),
        ("top 0", "cmd.error.bad_limit", Verb.TOP),
        ("subscribe public", "cmd.error.bad_argument", Verb.SUBSCRIBE),
        ("<!channel> hi", "cmd.error.unknown_command", None),
    ],
)
def test_bad_text_raises_a_usage_error(text: str, key: str, usage: Verb | None) -> None:
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
        ("month", Verb.MONTH, "month"),
        ("month 2026-01", Verb.MONTH, "2026-01"),
        ("risks 2026-01 high", Verb.RISKS, "2026-01"),
        ("top 3 2026-01-12..2026-01-25", Verb.TOP, "2026-01-12..2026-01-25"),
        ("summary this-month", Verb.SUMMARY, "this-month"),
        ("regenerate 2026-01", Verb.REGENERATE, "2026-01"),
        ("pr 4956 2026-01", Verb.PR, "2026-01"),
    ],
)
def test_months_and_ranges_where_a_week_goes(text: str, verb: Verb, period: str) -> None:
    command = parse_command(text)
    assert (command.verb, command.week) == (verb, period)
