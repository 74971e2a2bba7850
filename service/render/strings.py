"""String catalogs: templates/strings/{lang}/*.toml merged; Translator(lang).t(key, **params).

A kind of period words some sentences its own way (`this month`, `month-over-month`): its
sentences sit under `period.<kind>.<key>` (templates/strings/{lang}/periods.toml), and
`kind_catalog` hands out the catalog with them in place of the week's."""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path
from typing import Any

from service.core.languages import LANGUAGES

__all__ = ["LANGUAGES", "Translator", "kind_catalog", "load_catalog"]

PERIOD_PREFIX = "period."


def _flatten(prefix: str, table: dict[str, Any], out: dict[str, str]) -> None:
    for key, value in table.items():
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            _flatten(name, value, out)
        else:
            out[name] = str(value)


@functools.lru_cache(maxsize=8)
def load_catalog(folder: str, lang: str) -> dict[str, str]:
    """Every key of every `*.toml` in `folder/lang`, dotted (file tables nest as written)."""
    out: dict[str, str] = {}
    for path in sorted(Path(folder, lang).glob("*.toml")):
        _flatten("", tomllib.loads(path.read_text(encoding="utf-8")), out)
    return out


@functools.lru_cache(maxsize=16)
def kind_catalog(folder: str, lang: str, kind: str) -> dict[str, str]:
    """The catalog of `lang` as a period of `kind` is told: each `period.<kind>.<key>` sentence
    in place of `<key>`'s (the week's, for a kind with no sentences of its own)."""
    catalog = load_catalog(folder, lang)
    prefix = f"{PERIOD_PREFIX}{kind}."
    own = {key[len(prefix) :]: text for key, text in catalog.items() if key.startswith(prefix)}
    return {**catalog, **own} if own else catalog


class _SafeParams(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        raise KeyError(f"catalog placeholder {{{key}}} has no value")


class Translator:
    """Looks up catalog sentences for one language and fills their `{named}` placeholders."""

    def __init__(self, lang: str, catalog: dict[str, str]) -> None:
        self.lang = lang
        self.catalog = catalog

    def has(self, key: str) -> bool:
        return key in self.catalog

    def t(self, key: str, /, **params: Any) -> str:
        """The sentence for `key`; `count == 1` picks a `key_one` variant when one exists."""
        if params.get("count") == 1 and f"{key}_one" in self.catalog:
            key = f"{key}_one"
        try:
            template = self.catalog[key]
        except KeyError:
            raise KeyError(f"missing catalog key {key!r} for language {self.lang}") from None
        return template.format_map(_SafeParams(params))
