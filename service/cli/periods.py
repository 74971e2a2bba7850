"""The command line's period options, shared by every command that takes `--week`:
`--period 2026-01` (or any label or relative word of core/periods.py) and
`--since DAY --until DAY` (both inclusive, in DIGEST_TIMEZONE)."""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import TYPE_CHECKING

from service.core.period_labels import PERIOD_HELP
from service.errors import InputError

# `--help` imports no core module (tests/test_startup_imports.py): the parsers load on use
if TYPE_CHECKING:
    from service.core.models import Period


def add_period_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--period", default=None, help=f"a period: {PERIOD_HELP}")
    parser.add_argument("--since", default=None, help="first day of a range, e.g. 2026-01-12")
    parser.add_argument("--until", default=None, help="last day of a range (inclusive)")


def chosen_period(args: argparse.Namespace, timezone: str, now: datetime) -> Period | None:
    """The period `--week`, `--period` or `--since/--until` name (one of them at most);
    None when none is given."""
    from service.core.periods import parse_period, parse_since_until
    from service.core.weeks import parse_week

    week, period = getattr(args, "week", None), getattr(args, "period", None)
    since, until = getattr(args, "since", None), getattr(args, "until", None)
    given = [name for name, value in (("--week", week), ("--period", period)) if value]
    if since or until:
        given.append("--since/--until")
    if len(given) > 1:
        raise InputError(f"{' and '.join(given)} both name a period: give one of them")
    if since or until:
        if not (since and until):
            raise InputError("--since and --until go together: give the first and the last day")
        return parse_since_until(since, until, timezone, now)
    if period:
        return parse_period(period, timezone, now)
    return parse_week(week, timezone, now) if week else None
