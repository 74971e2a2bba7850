"""Parse command text (`risks 2026-W18 high public`, `pr #6091`, `top 5`, …) into a Command.

Tolerant of case, extra spaces, a leading bot mention (`<@U123>`, `@_user_1`, `@bot`) and a
leading `/verl-week`. Bad text raises CommandError: a message key, its params and the usage of
the verb concerned, so every adapter answers with the usage and never with a traceback.
"""

from __future__ import annotations

import re
from datetime import date
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from service.commands.filters import LANG_KEY, FilterBuilder, FilterError, is_filter_token
from service.core.cadences import CADENCES
from service.core.filters import DigestFilter
from service.core.models import Severity
from service.core.weeks import FIRST_YEAR, LAST_YEAR, WEEK_RE, format_week, year_in_range
from service.errors import InputError

MAX_TOP = 10
DEFAULT_TOP = 5
RELATIVE_WEEKS = ("last", "this")
# longer text is no command (a filter is at most 400 characters): refused before any parsing
MAX_COMMAND_CHARS = 4000
PUBLIC_WORD = "public"

_MENTION = re.compile(r"^(?:<@[A-Z0-9]+(?:\|[^>]*)?>|<at [^>]*>[^<]*</at>|@\S+)\s*", re.IGNORECASE)
_SLASH = re.compile(r"^/[\w-]+\s*")
_PR_NUMBER = re.compile(r"^#?(\d{1,9})$")
_PR_URL = re.compile(
    r"^<?https?://[^\s/]+/[^\s/]+/([^\s/]+)/pull/(\d{1,9})(?:[/?#][^\s|>]*)?(?:\|[^>]*)?>?$"
)
# a PR of a family's repository: `verl-omni#25`, `verl-project/verl-omni#25`
_MEMBER_PR = re.compile(r"^(?:[A-Za-z0-9_.-]+/)?([A-Za-z0-9_.-]+)#(\d{1,7})$")
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
# a family of DIGEST_GROUPS (`subscribe verl-project`): a name without `/`, with a `-`, `_` or
# `.` in it (so that no word of the grammar is taken for one)
_FAMILY = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)+$")


class Verb(StrEnum):
    HELP = "help"
    RISKS = "risks"
    PR = "pr"
    TOP = "top"
    SUMMARY = "summary"
    TRENDS = "trends"
    WEEK = "week"
    MONTH = "month"
    REGENERATE = "regenerate"
    SUBSCRIBE = "subscribe"
    UNSUBSCRIBE = "unsubscribe"
    SUBSCRIPTIONS = "subscriptions"


READ_VERBS = frozenset(
    {Verb.RISKS, Verb.PR, Verb.TOP, Verb.SUMMARY, Verb.TRENDS, Verb.WEEK, Verb.MONTH}
)
WEEK_VERBS = frozenset(
    {
        Verb.RISKS,
        Verb.PR,
        Verb.TOP,
        Verb.SUMMARY,
        Verb.TRENDS,
        Verb.WEEK,
        Verb.MONTH,
        Verb.REGENERATE,
    }
)
# verbs that take filters (`module:rollout`, …); every verb takes `lang:en`
FILTER_VERBS = READ_VERBS | {Verb.SUBSCRIBE, Verb.UNSUBSCRIBE}
# verbs whose repository may be a family's name (`subscribe verl-project`)
SCOPE_VERBS = frozenset({Verb.SUBSCRIBE, Verb.UNSUBSCRIBE})
_ALIASES = {"risk": Verb.RISKS, "?": Verb.HELP, "trend": Verb.TRENDS, "regen": Verb.REGENERATE}


class Command(BaseModel):
    """One parsed command. `week` is an ISO label (`2026-W18`), `last`, `this` or None (newest)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    verb: Verb
    week: str | None = None
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


class CommandError(InputError):
    """Bad command text: `key`/`params` name the problem (catalog), `usage` the verb to explain."""

    def __init__(self, key: str, usage: Verb | None = None, **params: str | int) -> None:
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


def _verb(word: str) -> Verb:
    lowered = word.lower()
    if lowered in _ALIASES:
        return _ALIASES[lowered]
    try:
        return Verb(lowered)
    except ValueError:
        raise CommandError("cmd.error.unknown_command", None, word=word) from None


def pr_reference(token: str) -> tuple[str | None, int] | None:
    """`25`, `#25` → (None, 25); `verl-omni#25` or a pull URL → (`verl-omni`, 25)."""
    match = _PR_NUMBER.match(token)
    if match:
        return None, int(match.group(1))
    found = _MEMBER_PR.match(token) or _PR_URL.match(token)
    return (found.group(1), int(found.group(2))) if found else None


def _take(verb: Verb, token: str, fields: dict[str, object]) -> bool:
    """Consume one argument token into `fields`; False when it means nothing for `verb`."""
    lowered = token.lower()
    if verb in READ_VERBS and lowered == PUBLIC_WORD and "public" not in fields:
        fields["public"] = True
        return True
    if verb in WEEK_VERBS and "week" not in fields:
        from service.commands.periods import normalize_period

        week = normalize_week(token) or normalize_period(token, verb)
        if week is not None:
            fields["week"] = week
            return True
    if verb is Verb.RISKS and lowered in Severity.__members__.values() and "severity" not in fields:
        fields["severity"] = Severity(lowered)
        return True
    if verb is Verb.PR and "number" not in fields:
        ref = pr_reference(token)
        if ref is not None:
            fields["member"], fields["number"] = ref
            return True
    if verb is Verb.TOP and token.isdigit() and "limit" not in fields:
        fields["limit"] = _top_limit(token)
        return True
    return _take_scope(verb, token, fields)


def _take_scope(verb: Verb, token: str, fields: dict[str, object]) -> bool:
    """A repository, and for `subscribe`/`unsubscribe` a family's name or a cadence."""
    if _REPO.match(token) and "repo" not in fields and verb is not Verb.HELP:
        fields["repo"] = token
        return True
    if verb not in SCOPE_VERBS:
        return False
    if token.lower() in CADENCES and "cadence" not in fields:
        fields["cadence"] = token.lower()
        return True
    if _FAMILY.match(token) and "repo" not in fields:
        fields["repo"] = token
        return True
    return False


def _top_limit(token: str) -> int:
    value = int(token)
    if not 1 <= value <= MAX_TOP:
        raise CommandError("cmd.error.bad_limit", Verb.TOP, value=token, max=MAX_TOP)
    return value


def _check_required(verb: Verb, fields: dict[str, object]) -> None:
    if verb is Verb.PR and "number" not in fields:
        raise CommandError("cmd.error.missing_number", Verb.PR)
    if verb is Verb.WEEK and fields.get("week") is None:
        raise CommandError("cmd.error.missing_week", Verb.WEEK)


def parse_command(text: str) -> Command:
    """Text after the slash command (or a bot message) → Command; CommandError when unusable."""
    if len(text) > MAX_COMMAND_CHARS:
        raise CommandError("cmd.error.too_long", None, max=MAX_COMMAND_CHARS)
    tokens = strip_prefix(text).split()
    if not tokens:
        return Command(verb=Verb.HELP)
    verb = _verb(tokens[0])
    fields: dict[str, object] = {}
    filters = FilterBuilder()
    for token in tokens[1:]:
        if _take_filter(verb, token, filters):
            continue
        if verb is Verb.HELP:
            continue  # `help anything` is still help
        if not _take(verb, token, fields):
            raise CommandError(_bad_argument_key(verb, token), verb, value=token)
    if verb is Verb.MONTH:  # `month` alone: the last complete month
        fields.setdefault("week", "month")
    _check_required(verb, fields)
    try:
        built = filters.build()
    except FilterError as exc:
        raise CommandError(exc.key, verb, **exc.params) from None
    return Command(verb=verb, filter=built, language=filters.language, **fields)


def _take_filter(verb: Verb, token: str, filters: FilterBuilder) -> bool:
    """A `key:value` token into the filter (or `lang:`); False when it is no such token."""
    if not is_filter_token(token):
        return False
    is_lang = token.lower().startswith(LANG_KEY + ":")
    if verb not in FILTER_VERBS and not is_lang:
        raise CommandError("cmd.error.no_filter", verb, value=token, verb=verb.value)
    try:
        filters.take(token)
    except FilterError as exc:
        raise CommandError(exc.key, verb, **exc.params) from None
    return True


def _bad_argument_key(verb: Verb, token: str) -> str:
    if verb is Verb.PR:
        return "cmd.error.bad_number"
    if WEEK_RE.match(token) is None and re.match(r"^\d{4}-", token):
        return "cmd.error.bad_week"
    return "cmd.error.bad_argument"
