"""The one jinja2 Environment (StrictUndefined, filters) and where templates live."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import jinja2

from service.render import escape
from service.render.strings import Translator, load_catalog


def templates_dir() -> Path:
    """The templates folder: inside the installed package, else the repository root."""
    packaged = Path(__file__).resolve().parent.parent / "templates"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "templates"


def _tojson(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The shared Environment; filters escape untrusted text for each target."""
    env = jinja2.Environment(  # noqa: S701 - autoescape is per target, through the filters below
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        slack_text=escape.slack_text,
        md_text=escape.md_text,
        md_cell=escape.md_cell,
        html_text=escape.html_text,
        truncate_text=escape.truncate,
        tojson=_tojson,
    )
    return env


def translator(lang: str) -> Translator:
    """The catalog-backed translator for `lang` (zh or en)."""
    return Translator(lang, load_catalog(str(templates_dir() / "strings"), lang))


def render(template: str, lang: str, **context: Any) -> str:
    """Render `template` with `t` bound to `lang` and `lang` in the context."""
    tr = translator(lang)
    return environment().get_template(template).render(t=tr.t, lang=lang, **context)
