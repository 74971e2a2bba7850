"""The one filter grammar of chat commands, subscriptions and the CLI's `--filter`:

    module:rollout,npu  label:breaking  path:verl/workers/**  author:login  severity:high

Within a key the comma-separated values are alternatives; keys combine (all must hold). Chat
also takes `lang:zh|en` (the language of the answer, or of a subscription's card). Bad tokens
raise FilterError (a catalog key and its params): chat answers with the usage, the CLI with one
line.
"""

from __future__ import annotations

import re

from service.core.filters import FILTER_KEYS, DigestFilter
from service.core.globs import MAX_GLOB_WILDCARDS, wildcard_count
from service.core.languages import LANGUAGES
from service.core.models import Severity
from service.errors import InputError

LANG_KEY = "lang"
MAX_VALUES = 20
MAX_VALUE_CHARS = 200
# a whole filter, as written back: it must fit the store's filter column (500 characters)
MAX_FILTER_CHARS = 400
# `key:value`, but not a URL (`https://…`) or a Slack link (`<https://…|…>`)
_TOKEN = re.compile(r"^(?P<key>[A-Za-z_]{1,20}):(?!//)(?P<value>.*)$")
_FIELDS = {"module": "modules", "label": "labels", "path": "paths", "author": "authors"}


UNKNOWN_KEY = "cmd.error.unknown_filter"


class FilterError(InputError):
    """A token the grammar refuses: `key` is the catalog sentence, `params` fill it."""

    def __init__(self, message_key: str, **params: str | int) -> None:
        super().__init__(f"{message_key} {params}")
        self.key = message_key
        self.params: dict[str, str | int] = dict(params)


def is_filter_token(token: str) -> bool:
    """Whether `token` is written `key:value` (a filter or `lang:`), known key or not."""
    return _TOKEN.match(token) is not None


def _values(key: str, raw: str, *, check_globs: bool) -> list[str]:
    values = [v.strip() for v in raw.split(",") if v.strip()]
    if not values:
        raise FilterError("cmd.error.empty_filter", name=key)
    if len(values) > MAX_VALUES or any(len(v) > MAX_VALUE_CHARS for v in values):
        raise FilterError("cmd.error.long_filter", name=key, max=MAX_VALUES)
    if key == "path" and check_globs:
        _check_globs(values)
    if key == "author":
        values = [v.removeprefix("@") for v in values]
    if key == "module":
        values = [v.lower() for v in values]
    return values


def _check_globs(values: list[str]) -> None:
    """A glob with more wildcards than MAX_GLOB_WILDCARDS is refused with the limit (matching
    is linear whatever the glob: the cap keeps what a reader types reasonable)."""
    for value in values:
        if wildcard_count(value) > MAX_GLOB_WILDCARDS:
            raise FilterError("cmd.error.complex_glob", value=_shown(value), max=MAX_GLOB_WILDCARDS)


def _shown(value: str, limit: int = 40) -> str:
    return value if len(value) <= limit else value[:limit] + "…"


class FilterBuilder:
    """Collects filter tokens one at a time (as the command parser meets them). Typed text
    has its globs checked (`check_globs`); a stored subscription's filter is read as stored
    (it was checked when typed, and matching is linear anyway)."""

    def __init__(self, *, allow_lang: bool = True, check_globs: bool = True) -> None:
        self.allow_lang = allow_lang
        self.check_globs = check_globs
        self.found: dict[str, list[str]] = {}
        self.severity: Severity | None = None
        self.language: str | None = None

    def take(self, token: str) -> None:
        """Consume one `key:value` token; FilterError for anything the grammar refuses."""
        match = _TOKEN.match(token)
        if match is None:
            raise FilterError("cmd.error.bad_argument", value=token)
        key, raw = match["key"].lower(), match["value"]
        if key == LANG_KEY and self.allow_lang:
            self._language(raw)
        elif key == "severity":
            self._severity(raw)
        elif key in _FIELDS:
            found = self.found.setdefault(key, [])
            for value in _values(key, raw, check_globs=self.check_globs):
                if value not in found:
                    found.append(value)
            if len(found) > MAX_VALUES:  # over many tokens: each new one is checked against all
                raise FilterError("cmd.error.long_filter", name=key, max=MAX_VALUES)
        else:
            raise FilterError(UNKNOWN_KEY, value=token, keys=filter_keys())

    def _language(self, raw: str) -> None:
        value = raw.strip().lower()
        if value not in LANGUAGES:
            raise FilterError("cmd.error.bad_language", value=raw)
        self.language = value

    def _severity(self, raw: str) -> None:
        value = raw.strip().lower()
        if value not in Severity.__members__.values():
            raise FilterError("cmd.error.bad_severity", value=raw)
        self.severity = Severity(value)

    def build(self) -> DigestFilter:
        fields = {_FIELDS[k]: tuple(v) for k, v in self.found.items()}
        built = DigestFilter(severity=self.severity, **fields)
        if len(built.describe()) > MAX_FILTER_CHARS:
            raise FilterError("cmd.error.filter_too_long", max=MAX_FILTER_CHARS)
        return built


def parse_filter(text: str, *, allow_lang: bool = False, check_globs: bool = False) -> DigestFilter:
    """A whole filter text (`--filter "module:rollout severity:high"`, a stored subscription);
    `check_globs` for text a person just typed."""
    builder = FilterBuilder(allow_lang=allow_lang, check_globs=check_globs)
    for token in text.split():
        builder.take(token)
    return builder.build()


def filter_keys() -> str:
    """The keys, as an answer lists them."""
    return ", ".join(f"{key}:" for key in FILTER_KEYS)


def card_filter(value: object) -> DigestFilter:
    """The filter a card button carries back (our own text, but it came over the wire): an
    unreadable one means the whole week."""
    if not isinstance(value, str):
        return DigestFilter()
    try:
        return parse_filter(value)
    except FilterError:
        return DigestFilter()
