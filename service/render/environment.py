"""The one jinja2 Environment (StrictUndefined, filters) and where templates live."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import stat
from datetime import date, datetime
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from service import __version__
from service.render import escape
from service.render.strings import Translator, load_catalog

AUTOESCAPED_DIRS = ("web/",)
# every option that changes the code a template compiles to (the cache key carries them)
COMPILE_OPTIONS: dict[str, Any] = {
    "keep_trailing_newline": True,
    "trim_blocks": True,
    "lstrip_blocks": True,
}


def templates_dir() -> Path:
    """The templates folder: inside the installed package, else the repository root."""
    packaged = Path(__file__).resolve().parent.parent / "templates"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "templates"


def _tojson(value: Any) -> str:
    # every string a JSON template emits loses invisible and bidi characters, filtered or not
    return json.dumps(escape.clean_strings(value), ensure_ascii=False)


def is_autoescaped(name: str | None) -> bool:
    """The web pages' templates. The report's HTML templates (report/*html*) are not yet: they
    take HTML fragments built in Python (Speaker, analysis, catalog sentences with links) that
    would first have to be returned as Markup."""
    return name is not None and name.startswith(AUTOESCAPED_DIRS) and name.endswith(".html.j2")


def _html_markup(text: str) -> Markup:
    # escaped here, so an autoescaping template does not escape it twice
    return Markup(escape.html_text(text))  # noqa: S704 - html_text has entity-escaped it


class CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept between processes (compiling the report's templates takes
    ~0.1-0.2 s of every command's start). A template's key carries, besides its name and file
    (Jinja adds its source's checksum and its own and Python's version), whatever else changes
    its compiled code: whether it autoescapes, the compile options, this package's version.
    A cache that cannot be written is no error: the template is compiled again next time."""

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        options = ",".join(f"{k}={v}" for k, v in sorted(COMPILE_OPTIONS.items()))
        compiled_as = f"{name}|{is_autoescaped(name)}|{options}|{__version__}"
        return super().get_cache_key(compiled_as, filename)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


def template_cache_dir() -> Path | None:
    """~/.cache/verl-week/templates, private to this user (code loaded from a folder someone
    else can write would run as ours); None when there is no such folder to be had (no home,
    a read-only one, or someone else's), and templates are compiled on each start."""
    try:
        folder = Path.home() / ".cache" / "verl-week" / "templates"
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        found = folder.lstat()
    except (OSError, RuntimeError):  # RuntimeError: no home directory
        return None
    private = found.st_uid == os.getuid() and not found.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    return folder if stat.S_ISDIR(found.st_mode) and private else None


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The shared Environment; filters escape untrusted text for each target."""
    return build_environment(template_cache_dir())


def build_environment(cache_dir: Path | None) -> jinja2.Environment:
    """An Environment on the templates folder, keeping compiled templates in `cache_dir`."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        # the filters below escape for each target; the web pages autoescape as well, so that a
        # value a template forgets to filter is still escaped (html_text gives Markup: once)
        autoescape=is_autoescaped,  # noqa: S701 - on for the web pages (see is_autoescaped)
        undefined=jinja2.StrictUndefined,
        bytecode_cache=CompiledTemplates(str(cache_dir)) if cache_dir else None,
        **COMPILE_OPTIONS,
    )
    env.filters.update(
        slack_text=escape.slack_text,
        md_text=escape.md_text,
        md_cell=escape.md_cell,
        html_text=_html_markup,
        md_code=escape.md_code,
        md_url=escape.md_url,
        safe_url=escape.safe_url,
        truncate_text=escape.truncate,
        tojson=_tojson,
        week_label=week_label,
        date=format_date,
        signed=signed,
        number=format_number,
    )
    return env


def week_label(week: str, lang: str) -> str:
    """`2026-W04` as the catalog's `format.week` sentence (e.g. 2026 年第 4 周, Week 4 of 2026)."""
    year, _, number = week.partition("-W")
    if not (year.isdigit() and number.isdigit()):
        return week
    return translator(lang).t("format.week", year=int(year), week=int(number), label=week)


def format_date(value: date | datetime, lang: str, style: str = "long") -> str:
    """A date through the catalog's `format.date.<style>` (long or short), month names included."""
    day = value.date() if isinstance(value, datetime) else value
    tr = translator(lang)
    month_name = tr.t(f"format.month.m{day.month}")
    return tr.t(
        f"format.date.{style}",
        year=day.year,
        month=day.month,
        day=day.day,
        month_name=month_name,
    )


def signed(value: float | None) -> str:
    """A change with its sign: +3, -2, ±0; '' when unknown."""
    if value is None:
        return ""
    if value == 0:
        return "±0"
    return f"{value:+g}"


def format_number(value: float, digits: int = 0) -> str:
    """Thousands separators, and `digits` decimals (both languages write 12,490 and 9.4)."""
    return f"{value:,.{digits}f}"


def translator(lang: str) -> Translator:
    """The catalog-backed translator for `lang` (zh or en)."""
    return Translator(lang, load_catalog(str(templates_dir() / "strings"), lang))


def render(template: str, lang: str, **context: Any) -> str:
    """Render `template` with `t` bound to `lang` and `lang` in the context."""
    tr = translator(lang)
    return environment().get_template(template).render(t=tr.t, lang=lang, **context)
