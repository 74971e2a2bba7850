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
from service.core.models import Severity
from service.errors import InputError

LANG_KEY = "lang"
LANGUAGES = ("zh", "en")
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


def _values(key: str, raw: str) -> list[str]:
    values = [v.strip() for v in raw.split(",") if v.strip()]
    if not values:
        raise FilterError("cmd.error.empty_filter", name=key)
    if len(values) > MAX_VALUES or any(len(v) > MAX_VALUE_CHARS for v in values):
        raise FilterError("cmd.error.long_filter", name=key, max=MAX_VALUES)
    if key == "author":
        values = [v.removeprefix("@") for v in values]
    if key == "module":
        values = [v.lower() for v in values]
    return values


class FilterBuilder:
    """Collects filter tokens one at a time (as the command parser meets them)."""

    def __init__(self, *, allow_lang: bool = True) -> None:
        self.allow_lang = allow_lang
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
            for value in _values(key, raw):
                if value not in self.found.setdefault(key, []):
                    self.found[key].append(value)
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


def parse_filter(text: str, *, allow_lang: bool = False) -> DigestFilter:
    """A whole filter text (`--filter "module:rollout severity:high"`, a stored subscription)."""
    builder = FilterBuilder(allow_lang=allow_lang)
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
