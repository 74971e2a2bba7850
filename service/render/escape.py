"""Escaping of untrusted text (PR titles, bodies, snippets, command text) for each target."""

from __future__ import annotations

import html
import re

_ZERO_WIDTH = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~>-])")


def clean_text(text: str) -> str:
    """Drop zero-width and control characters that can hide or spoof text."""
    return _CONTROL.sub("", _ZERO_WIDTH.sub("", text))


def truncate(text: str, limit: int, ellipsis: str = "…") -> str:
    """Cut `text` to at most `limit` characters, ending with `ellipsis` when cut."""
    if len(text) <= limit:
        return text
    cut = text[: max(limit - len(ellipsis), 0)]
    space = cut.rfind(" ")
    if space > limit * 0.6:
        cut = cut[:space]
    return cut.rstrip() + ellipsis


def slack_text(text: str) -> str:
    """mrkdwn: escape the three characters Slack asks apps to escape, so nothing pings or links."""
    cleaned = clean_text(text)
    return cleaned.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def md_text(text: str) -> str:
    """Markdown: one line, markdown and HTML metacharacters escaped."""
    one_line = " ".join(clean_text(text).split())
    escaped = html.escape(one_line, quote=False)
    return _MD_SPECIAL.sub(r"\\\1", escaped)


def md_cell(text: str) -> str:
    """Markdown table cell: like md_text (pipes are escaped there too)."""
    return md_text(text)


def html_text(text: str) -> str:
    """HTML: entity-escape everything, quotes included."""
    return html.escape(clean_text(text), quote=True)


# Feishu card markdown (the 2.0 rich-text component): every character that can open Markdown
# (emphasis, code, links, headings, lists, quotes, tables), an HTML-like tag (<at>, <a>,
# <font>, <link>), an emoji shortcode (:DONE:) or an autolink is written as a numeric HTML
# entity, which the card shows as the literal character. `&` comes first in the table so an
# entity already in the text is shown as typed, not decoded.
_FEISHU_ENTITIES = {ord(ch): f"&#{ord(ch)};" for ch in "&<>*_~`[]()#+-!|\\$:\"'/{}="}
_FEISHU_LIST_START = re.compile(r"^(\d+)([.)])")


def feishu_text(text: str) -> str:
    """Feishu card markdown: one line; no mention, link, tag or formatting survives."""
    line = " ".join(clean_text(text).split()).translate(_FEISHU_ENTITIES)
    return _FEISHU_LIST_START.sub(lambda m: f"{m.group(1)}&#{ord(m.group(2))};", line)
