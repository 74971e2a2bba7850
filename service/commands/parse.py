"""Parse command text (`risks 2026-W18 high public`, `pr #6091`, `top 5`, …) into a Command.

Tolerant of case, extra spaces, a leading bot mention (`<@U123>`, `@_user_1`, `@bot`) and a
leading `/verl-week`. The first word names a verb of the registry; each argument token is taken
by the first of that verb's token readers that wants it (commands/verbs/). Bad text raises
CommandError: a message key, its params and the usage of the verb concerned, so every adapter
answers with the usage and never with a traceback.
"""

from __future__ import annotations

import re

from service.commands.filters import LANG_KEY, FilterBuilder, FilterError, is_filter_token
from service.commands.grammar import (
    MAX_COMMAND_CHARS,
    RELATIVE_WEEKS,
    Command,
    CommandError,
    normalize_week,
    pr_reference,
    strip_prefix,
)
from service.commands.registry import verb_spec
from service.commands.tokens import PUBLIC_WORD, Fields
from service.commands.verbs import VerbSpec
from service.core.weeks import WEEK_RE

HELP = "help"

# what adapters and tests import from here
__all__ = [
    "MAX_COMMAND_CHARS",
    "PUBLIC_WORD",
    "RELATIVE_WEEKS",
    "Command",
    "CommandError",
    "normalize_week",
    "parse_command",
    "pr_reference",
    "strip_prefix",
]


def parse_command(text: str) -> Command:
    """Text after the slash command (or a bot message) → Command; CommandError when unusable."""
    if len(text) > MAX_COMMAND_CHARS:
        raise CommandError("cmd.error.too_long", None, max=MAX_COMMAND_CHARS)
    tokens = strip_prefix(text).split()
    if not tokens:
        return Command(verb=HELP)
    spec = verb_spec(tokens[0])
    fields: Fields = {}
    filters = FilterBuilder()
    for token in tokens[1:]:
        if _take_filter(spec, token, filters) or spec.lenient:
            continue  # `help anything` is still help
        if not any(read(spec.name, token, fields) for read in spec.tokens):
            raise CommandError(_bad_argument_key(spec, token), spec.name, value=token)
    if spec.default_period is not None:
        fields.setdefault("period", spec.default_period)
    for name, key in spec.required:
        if fields.get(name) is None:
            raise CommandError(key, spec.name)
    try:
        built = filters.build()
    except FilterError as exc:
        raise CommandError(exc.key, spec.name, **exc.params) from None
    return Command(verb=spec.name, filter=built, language=filters.language, **fields)


def _take_filter(spec: VerbSpec, token: str, filters: FilterBuilder) -> bool:
    """A `key:value` token into the filter (or `lang:`); False when it is no such token."""
    if not is_filter_token(token):
        return False
    is_lang = token.lower().startswith(LANG_KEY + ":")
    if not spec.filters and not is_lang:
        raise CommandError("cmd.error.no_filter", spec.name, value=token, verb=spec.name)
    try:
        filters.take(token)
    except FilterError as exc:
        raise CommandError(exc.key, spec.name, **exc.params) from None
    return True


def _bad_argument_key(spec: VerbSpec, token: str) -> str:
    if spec.bad_argument:
        return spec.bad_argument
    if WEEK_RE.match(token) is None and re.match(r"^\d{4}-", token):
        return "cmd.error.bad_week"
    return "cmd.error.bad_argument"
