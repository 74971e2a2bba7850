"""String catalogs: templates/strings/{lang}/*.toml merged; Translator(lang).t(key, **params)."""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path
from typing import Any

from service.core.languages import LANGUAGES

__all__ = ["LANGUAGES", "Translator", "load_catalog"]


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
