"""How one output format writes untrusted text, links and code (Markdown, HTML; Slack and Feishu
define theirs next to their renderers)."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass

from service.render import escape

_BACKTICK_SPAN = re.compile(r"`([^`\n]+)`")
_CATALOG_CODE = re.compile(r"`([^`]+)`")
_CATALOG_BOLD = re.compile(r"\*\*([^*\n]+)\*\*")


def _as_written(sentence: str) -> str:
    return sentence


@dataclass(frozen=True)
class Target:
    """How one output format writes untrusted text, links and code, and how it shows the
    `code` spans a catalog sentence writes in Markdown. `plain` escapes a value of a chat
    sentence that links nothing (an answer, a card line); None: as `text`."""

    text: Callable[[str], str]
    link: Callable[[str, str], str]
    code: Callable[[str], str]
    catalog: Callable[[str], str] = _as_written
    plain: Callable[[str], str] | None = None
    # a piece that follows other text on its line (after a code span); None: as `text`
    inner: Callable[[str], str] | None = None

    def escape(self, value: str) -> str:
        """`value` escaped as a plain sentence parameter."""
        return (self.plain or self.text)(value)


def _md_link(url: str, label: str) -> str:
    return f"[{label}]({escape.md_url(url)})"


def _html_link(url: str, label: str) -> str:
    return f'<a href="{escape.html_text(url)}">{label}</a>'


def _html_code(value: str) -> str:
    """<code>, with a line-break opportunity after each `/` so a long path wraps at its folders
    (and never inside a name)."""
    return "<code>" + escape.html_text(value).replace("/", "/<wbr>") + "</code>"


def _html_inline(value: str) -> str:
    """Escaped text in which `code` spans of the PR body are shown as <code> (content escaped)."""
    return _BACKTICK_SPAN.sub(
        lambda m: "<code>" + m.group(1).replace("/", "/<wbr>") + "</code>", escape.html_text(value)
    )


def _md_inline(value: str, line_start: bool = True) -> str:
    """Escaped Markdown in which `code` spans of the PR text stay code (content made literal)."""
    line = escape.one_line(value)
    out: list[str] = []
    last = 0
    for match in _BACKTICK_SPAN.finditer(line):
        first = line_start and last == 0
        out += [_md_part(line[last : match.start()], first), escape.md_code(match.group(1))]
        last = match.end()
    out.append(_md_part(line[last:], line_start and last == 0))
    return "".join(out)


def _md_inner(value: str) -> str:
    return _md_inline(value, line_start=False)


def _md_part(text: str, first: bool) -> str:
    """md_text of a piece between code spans, keeping the spaces at its edges (a piece after
    a code span does not start a line)."""
    lead = " " if text[:1].isspace() else ""
    trail = " " if text[-1:].isspace() and text.strip() else ""
    return lead + escape.md_text(text, line_start=first) + trail


def _html_catalog(sentence: str) -> str:
    """A catalog sentence's `code` spans as <code> and `**bold**` as <b> (catalog text is
    trusted; the placeholders inside are filled with escaped values afterwards)."""
    coded = _CATALOG_CODE.sub(
        lambda m: "<code>" + html.escape(m.group(1), quote=False) + "</code>", sentence
    )
    return _CATALOG_BOLD.sub(r"<b>\1</b>", coded)


MARKDOWN = Target(
    text=_md_inline, link=_md_link, code=escape.md_code, plain=escape.md_text, inner=_md_inner
)
HTML = Target(
    text=_html_inline,
    link=_html_link,
    code=_html_code,
    catalog=_html_catalog,
    plain=escape.html_text,
)
