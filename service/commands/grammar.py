"""The words every chat verb shares: a parsed Command, the CommandError bad text raises, and the
readers of the tokens several verbs take (a week, a PR reference, a bot mention to drop).

Which verb takes which token is the verb's own (commands/verbs/, commands/tokens.py); this module
knows no verb by name.
"""

from __future__ import annotations

import re
from datetime import date

from pydantic import BaseModel, ConfigDict, field_validator

from service.core.filters import DigestFilter
from service.core.models import Severity
from service.core.weeks import FIRST_YEAR, LAST_YEAR, WEEK_RE, format_week, year_in_range
from service.errors import InputError

RELATIVE_WEEKS = ("last", "this")
# longer text is no command (a filter is at most 400 characters): refused before any parsing
MAX_COMMAND_CHARS = 4000

_MENTION = re.compile(r"^(?:<@[A-Z0-9]+(?:\|[^>]*)?>|<at [^>]*>[^<]*</at>|@\S+)\s*", re.IGNORECASE)
_SLASH = re.compile(r"^/[\w-]+\s*")
_PR_NUMBER = re.compile(r"^#?(\d{1,9})$")
_PR_URL = re.compile(
    r"^<?https?://[^\s/]+/[^\s/]+/([^\s/]+)/pull/(\d{1,9})(?:[/?#][^\s|>]*)?(?:\|[^>]*)?>?$"
)
# a PR of a family's repository: `verl-omni#25`, `verl-project/verl-omni#25`
_MEMBER_PR = re.compile(r"^(?:[A-Za-z0-9_.-]+/)?([A-Za-z0-9_.-]+)#(\d{1,7})$")


class PeriodRef(BaseModel):
    """A period as a command names it, before the engine resolves it (commands/periods.py
    `resolve_ref`, once per command, in the engine's timezone and clock): a period's label
    (`2026-W18`, `2026-01`, a range) or a relative word (`last`, `this`, `month`,
    `last-month`…). Its `text` is what a button's value and a log carry."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    text: str

    def __str__(self) -> str:
        return self.text


class Command(BaseModel):
    """One parsed command: `verb` names a registered verb (commands/registry.py); `period` the
    period it names (a PeriodRef; a label or relative word is read as one), None for the
    newest."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    verb: str
    period: PeriodRef | None = None
    severity: Severity | None = None
    number: int | None = None
    limit: int | None = None
    public: bool = False
    repo: str | None = None
    # `pr verl-omni#25`: the family's repository the PR is of (None: the first one)
    member: str | None = None
    filter: DigestFilter = DigestFilter()
    language: str | None = None
    # `subscribe … monthly`: the cadence of a subscription (None: weekly, or every one for
    # `unsubscribe`)
    cadence: str | None = None

    @field_validator("period", mode="before")
    @classmethod
    def _period_ref(cls, value: object) -> object:
        """A label or relative word (the parser's tokens, a button's value) as a PeriodRef."""
        return PeriodRef(text=value) if isinstance(value, str) else value


class CommandError(InputError):
    """Bad command text: `key`/`params` name the problem (catalog), `usage` the verb to explain."""

    def __init__(self, key: str, usage: str | None = None, **params: str | int) -> None:
        super().__init__(f"{key} {params}" if params else key, key=key, params=params)
        self.usage = usage


def strip_prefix(text: str) -> str:
    """Drop leading bot mentions and a leading slash command name."""
    rest = text.strip()
    while True:
        cut = _MENTION.sub("", rest, count=1)
        cut = _SLASH.sub("", cut, count=1)
        if cut == rest:
            return rest
        rest = cut


def normalize_week(token: str) -> str | None:
    """`2026-w18` / `2026W18` → `2026-W18`; `last`/`this` as is; None when not a week at all."""
    lowered = token.lower()
    if lowered in RELATIVE_WEEKS:
        return lowered
    match = WEEK_RE.match(token)
    if not match:
        return None
    year, week = int(match.group(1)), int(match.group(2))
    if not year_in_range(year):
        raise CommandError(
            "cmd.error.week_out_of_range", None, value=token, first=FIRST_YEAR, last=LAST_YEAR
        )
    try:
        date.fromisocalendar(year, week, 1)
    except ValueError:
        raise CommandError("cmd.error.bad_week", None, value=token) from None
    return format_week(year, week)


def pr_reference(token: str) -> tuple[str | None, int] | None:
    """`25`, `#25` → (None, 25); `verl-omni#25` or a pull URL → (`verl-omni`, 25)."""
    match = _PR_NUMBER.match(token)
    if match:
        return None, int(match.group(1))
    found = _MEMBER_PR.match(token) or _PR_URL.match(token)
    return (found.group(1), int(found.group(2))) if found else None
