"""The one jinja2 Environment (StrictUndefined, filters) and where templates live."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import json
import os
import stat
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from service import __version__
from service.core.models import Period, PeriodKind
from service.core.narrative import STEP_KEY
from service.core.periods.kinds import date_words
from service.core.scope import family_name, pr_anchor, pr_ref, short_name
from service.errors import InputError
from service.render import escape
from service.render.strings import Translator, kind_catalog

# a label's title does not depend on the timezone its period is told in
TITLE_TIMEZONE = "UTC"
WEEK = PeriodKind.WEEK.value
AUTOESCAPED_DIRS = ("web/", "report/")
# an HTML page (`*.html.j2`) or the HTML macros it imports (`_html.j2`, `_analysis_html.j2`):
# a macro of a template that does not autoescape would return text its caller escapes again
HTML_TEMPLATE_ENDINGS = (".html.j2", "_html.j2")
# every option that changes the code a template compiles to (the cache key carries them)
COMPILE_OPTIONS: dict[str, Any] = {
    "keep_trailing_newline": True,
    "trim_blocks": True,
    "lstrip_blocks": True,
}


@functools.lru_cache(maxsize=1)
def templates_dir() -> Path:
    """The templates folder: inside the installed package, else the repository root (found
    once: every answer asks for its translator, and resolving the path stats each folder)."""
    packaged = Path(__file__).resolve().parent.parent / "templates"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "templates"


def _tojson(value: Any) -> str:
    # every string a JSON template emits loses invisible and bidi characters, filtered or not
    return json.dumps(escape.clean_strings(value), ensure_ascii=False)


def is_autoescaped(name: str | None) -> bool:
    """The HTML templates: the web pages and the report's page with its macros. Cards (JSON)
    and Markdown are not: they have escaping of their own, which HTML escaping would spoil."""
    return (
        name is not None
        and name.startswith(AUTOESCAPED_DIRS)
        and name.endswith(HTML_TEMPLATE_ENDINGS)
    )


def _html_markup(text: str) -> Markup:
    # escaped here, so an autoescaping template does not escape it twice
    return Markup(escape.html_text(text))  # noqa: S704 - html_text has entity-escaped it


def _html_param(value: Any) -> Any:
    """Markup (HTML built from escaped parts) as it is, text escaped, numbers as they are."""
    if isinstance(value, Markup) or not isinstance(value, str):
        return value
    return _html_markup(value)


def html_sentences(tr: Translator) -> Callable[..., Markup]:
    """`t` for an autoescaping template: the catalog's sentence (trusted text, which may hold
    markup) with each parameter that is not Markup yet escaped as text; a parameter that is
    (a link, `<code>`, a filtered value) goes in as it is, so nothing is escaped twice."""

    def t(key: str, /, **params: Any) -> Markup:
        filled = tr.t(key, **{name: _html_param(value) for name, value in params.items()})
        return Markup(filled)  # noqa: S704 - trusted sentence, parameters escaped above

    return t


class HtmlSpeaking:
    """An HTML renderer (the report's Speaker with the HTML target) as an autoescaping template
    sees it. What its methods return is HTML it built from escaped values and catalog
    sentences: each string (or list of strings) is Markup, except from the methods named in
    `plain` (a URL, say). Its attributes and the objects it returns (the digest, risk groups)
    are not marked: the template escapes them if it outputs them."""

    def __init__(self, renderer: Any, plain: frozenset[str] = frozenset()) -> None:
        self._renderer = renderer
        self._plain = plain

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._renderer, name)
        if not callable(value) or name in self._plain:
            return value

        def marked(*args: Any, **kwargs: Any) -> Any:
            return _marked(value(*args, **kwargs))

        return marked


def _marked(result: Any) -> Any:
    if isinstance(result, str):
        return Markup(result)  # noqa: S704 - HtmlSpeaking: built from escaped parts
    if isinstance(result, list) and result and all(isinstance(r, str) for r in result):
        return [Markup(r) for r in result]  # noqa: S704 - as above
    return result


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
        # the filters below escape for each target; the HTML templates autoescape as well, so that a
        # value a template forgets to filter is still escaped (html_text gives Markup: once)
        autoescape=is_autoescaped,  # noqa: S701 - on for HTML (see is_autoescaped)
        undefined=jinja2.StrictUndefined,
        bytecode_cache=CompiledTemplates(str(cache_dir)) if cache_dir else None,
        # the templates ship with the code: a template loaded once is kept, not checked against
        # its file's mtime on every render (a `stat` per answer in a busy chat server)
        auto_reload=False,
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
        period_label=period_label,
        label=label_of,
        date=format_date,
        signed=signed,
        number=format_number,
        pr_ref=_pr_ref,
        pr_anchor=_pr_anchor,
        family_name=_family_name,
        family_members=_family_members,
        moves=_moves,
    )
    env.context_class = NotedContext
    env.globals["STEP_KEY"] = STEP_KEY  # the summary's upgrade steps (core/narrative.py)
    return env


def _pr_ref(pr: object) -> str:
    """`#6200`, or `verl-omni#25` for a PR of a family's other repository (a ScoredPR, or a
    live PR, which is named by its number)."""
    return pr_ref(int(getattr(pr, "number", 0)), str(getattr(pr, "repo", "") or ""))


def _pr_anchor(pr: object) -> str:
    """The HTML id of a PR's row (`pr-6200`, `verl-omni-25`)."""
    return pr_anchor(int(getattr(pr, "number", 0)), str(getattr(pr, "repo", "") or ""))


def _family_name(digest: Any) -> str:
    """A family digest's name for its title (`verl-project`)."""
    return family_name(str(digest.repo), list(digest.repo_names))


def _family_members(digest: Any) -> list[str]:
    """A family digest's repositories by their short names (`verl`, `verl-omni`)."""
    return [short_name(repo) for repo in digest.repo_names]


def _moves(digest: Any) -> list[tuple[list[str], str]]:
    """(earlier names, name now) of each repository the digest tells moved: the digest's own,
    or each repository's of a family."""
    if digest.repos:
        return [(part.moved_from, part.repo) for part in digest.repos if part.moved_from]
    return [(digest.moved_from, digest.repo)] if digest.moved_from else []


def period_label(period: Period | str | None, lang: str) -> str:
    """A period as its kind's title in the catalog's words (`2026-W04` → 2026 年第 4 周,
    Week 4 of 2026; `2026-01` → January 2026; Period.title). A label (a stored digest's, a
    listed report's) is read as its period first; anything that is no period's label is
    shown as is, and no period ("" or None) as ""."""
    if isinstance(period, Period):
        return period.title(translator(lang))
    if not period:
        return ""
    try:
        read = Period.of_label(period, TITLE_TIMEZONE)
    except InputError:
        return period
    return read.title(translator(lang))


def label_of(period: Period | None) -> str:
    """A period's label, where a sentence names it by its label (`2026-W04`); "" for none."""
    return period.label if period is not None else ""


def format_date(value: date | datetime, lang: str, style: str = "long") -> str:
    """A date through the catalog's `format.date.<style>` (long or short), month names included."""
    day = value.date() if isinstance(value, datetime) else value
    return date_words(day, translator(lang), style)


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


def translator(lang: str, kind: str = WEEK) -> Translator:
    """The catalog-backed translator for `lang` (zh or en), worded for a period of `kind`
    (render/strings.py: a month's digest says 本月 where a week's says 本周)."""
    return Translator(lang, kind_catalog(str(templates_dir() / "strings"), lang, kind))


def kind_told(period: Period | None) -> str:
    """The kind of `period`, as its words are chosen (`week` for none: the week's sentences)."""
    return period.kind if period is not None else WEEK


# the contexts made while `render_released` renders (its template's, its imports'), or None
_made: contextvars.ContextVar[list[jinja2.runtime.Context] | None] = contextvars.ContextVar(
    "verl_week_render_contexts", default=None
)


class NotedContext(jinja2.runtime.Context):
    """jinja's render context, noted while `render_released` renders (the Environment's
    `context_class`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        made = _made.get()
        if made is not None:
            made.append(self)


def render_released(template: jinja2.Template, context: dict[str, Any]) -> str:
    """`template.render(**context)`, with what the context names let go once it is rendered.

    A template with macros leaves its render context in a reference cycle (a macro's closure
    holds the context, whose variables hold the macro), and so does each module it imports
    `with context`: what the context names (a week's digest: millions of objects for a
    2,046-PR week) lived on until a full collection walked it, at a CLI's exit ~0.3 s
    (benchmarks/README.md, "Stop 43"). The contexts that hold the caller's variables are
    emptied (a module jinja keeps for later renders holds none of them): the cycles left are
    a few small objects, and the digest is freed when its last user drops it."""
    made: list[jinja2.runtime.Context] = []
    token = _made.set(made)
    try:
        return template.render(**context)
    finally:
        _made.reset(token)
        for ctx in made:
            if any(ctx.parent.get(name) is value for name, value in context.items()):
                ctx.parent.clear()
                ctx.vars.clear()


def render(template: str, lang: str, **context: Any) -> str:
    """Render `template` with `t` bound to `lang` and `lang` in the context."""
    tr = translator(lang)
    return environment().get_template(template).render(t=tr.t, lang=lang, **context)
