"""Periods in command text: a month (`2026-01`), a range (`2026-01-12..2026-01-25`), another
registered kind's label (core/periods/kinds.py) or a relative month (`month` = the last
complete one, `this-month`), beside the ISO weeks that grammar.py reads. Syntax is checked when
parsing, the calendar (not begun yet) when answering."""

from __future__ import annotations

from datetime import datetime

from service.commands.grammar import RELATIVE_WEEKS, CommandError, PeriodRef
from service.core.models import Period, PeriodKind
from service.core.periods import kind_of, parse_period, period_of_label
from service.core.periods.kinds import relative_words
from service.core.weeks import (
    BEFORE_TIME_KEY,
    WEEK_RE,
    has_not_begun,
    parse_week,
    refuse_before_time,
    window_for,
)
from service.errors import InputError

SYNTAX_TIMEZONE = "UTC"  # a label's syntax and span do not depend on the timezone


def normalize_period(token: str, verb: str | None = None) -> str | None:
    """`2026-01` / a range label / `month` as the label or word to keep; None when the token
    is no period; CommandError (with the usage of `verb`) when it is one, badly written."""
    lowered = token.lower()
    if lowered in _relative_periods():
        return lowered
    if kind_of(token) in (None, PeriodKind.WEEK):
        return None
    try:
        return period_of_label(token, SYNTAX_TIMEZONE).label
    except InputError:
        raise CommandError("cmd.error.bad_period", verb, value=token) from None


def is_period_word(period: str | None) -> bool:
    """Whether a Command's `period` names a month or a range (not an ISO week)."""
    if period is None:
        return False
    return period in _relative_periods() or kind_of(period) not in (None, PeriodKind.WEEK)


def _relative_periods() -> frozenset[str]:
    """The relative words of every kind but the week (whose `last` / `this` are grammar.py's)."""
    words = relative_words()
    return frozenset(w for w, (rules, _) in words.items() if rules.name != PeriodKind.WEEK)


def resolve_ref(ref: PeriodRef, timezone: str, now: datetime, verb: str | None) -> Period:
    """The period a command names, in `timezone` at `now`: `last`/`this` → that ISO week; a
    week's label → its week; `month`, a month or a range → that period. One that has not
    begun (or is out of range) is a usage error of `verb`."""
    if ref.text in RELATIVE_WEEKS:
        return parse_week(ref.text, timezone, now)
    if is_period_word(ref.text):  # a month or a range
        return resolve_period(ref.text, timezone, now, verb)
    match = WEEK_RE.match(ref.text)
    if match is None:  # a Command's period is read by the grammar: never so
        raise CommandError("cmd.error.bad_period", verb, value=ref.text)
    window = window_for(int(match.group(1)), int(match.group(2)), timezone)
    if has_not_begun(window, now):
        raise CommandError("cmd.error.future_week", verb, week=window.label)
    try:
        return refuse_before_time(window)
    except InputError as exc:
        raise CommandError(exc.key, verb, **exc.params) from None


def resolve_period(period: str, timezone: str, now: datetime, verb: str | None) -> Period:
    """A month or range word of a Command → its period; one that lies ahead is a usage error."""
    try:
        return parse_period(period, timezone, now)
    except InputError as exc:
        if exc.key == BEFORE_TIME_KEY:
            raise CommandError(exc.key, verb, **exc.params) from None
        raise CommandError("cmd.error.future_period", verb, value=period) from None
