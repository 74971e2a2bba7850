"""The one jinja2 Environment (StrictUndefined, filters) and where templates live."""

from __future__ import annotations

import functools
import json
from datetime import date, datetime
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from service.core.models import PeriodKind
from service.core.periods import kind_of
from service.render import escape
from service.render.period_wording import WEEK, current_kind, scaled_catalog
from service.render.strings import Translator, load_catalog

AUTOESCAPED_DIRS = ("web/",)


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


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The shared Environment; filters escape untrusted text for each target."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        # the filters below escape for each target; the web pages autoescape as well, so that a
        # value a template forgets to filter is still escaped (html_text gives Markup: once)
        autoescape=is_autoescaped,  # noqa: S701 - on for the web pages (see is_autoescaped)
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
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
        return period_label(week, lang)
    return translator(lang).t("format.week", year=int(year), week=int(number), label=week)


def period_label(label: str, lang: str) -> str:
    """A month (`2026-01`) or range label as the catalog writes it; anything else as is."""
    kind = kind_of(label)
    tr = translator(lang)
    if kind is PeriodKind.MONTH:
        year, month = (int(part) for part in label.split("-"))
        name = tr.t(f"format.month.m{month}")
        return tr.t("format.period_month", year=year, month=month, month_name=name)
    if kind is PeriodKind.RANGE:
        first, last = (date.fromisoformat(day) for day in label.split(".."))
        return tr.t(
            "format.period_range",
            first=format_date(first, lang),
            last=format_date(last, lang, "short" if first.year == last.year else "long"),
        )
    return label


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
    """The catalog-backed translator for `lang` (zh or en), worded for the period being told
    (render/period_wording.py: a month's digest says 本月 where a week's says 本周)."""
    strings = str(templates_dir() / "strings")
    kind = current_kind()
    if kind == WEEK:
        return Translator(lang, load_catalog(strings, lang))
    return Translator(lang, scaled_catalog(strings, str(templates_dir() / "periods"), lang, kind))


def render(template: str, lang: str, **context: Any) -> str:
    """Render `template` with `t` bound to `lang` and `lang` in the context."""
    tr = translator(lang)
    return environment().get_template(template).render(t=tr.t, lang=lang, **context)
