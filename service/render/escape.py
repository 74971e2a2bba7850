"""Escaping of untrusted text (PR titles, bodies, snippets, command text) for each target."""

from __future__ import annotations

import html
import json
import re
from typing import Any
from urllib.parse import urlsplit

# Characters a reader can't see that reorder, hide or spoof the text around them: bidi
# embeddings, overrides, isolates and marks (Trojan Source), zero-width and joiner characters,
# the soft hyphen, fillers that render as blank (Hangul, Mongolian vowel separator), deprecated
# format characters, interlinear annotation marks, and the tag characters that can smuggle text.
INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\U000e0000-\U000e007f"
)
_INVISIBLE = re.compile(f"[{INVISIBLE}]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Inline Markdown metacharacters: emphasis, code, links, tables, strikethrough, escapes.
_MD_INLINE = re.compile(r"([\\`*{}\[\]|~])")
# `_` inside a word (`sum_pi_squared`) can neither open nor close emphasis in CommonMark.
_MD_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
# What opens a block (heading, list item, setext/thematic line) when it starts a line.
_MD_LINE_START = re.compile(r"^(?:[#+\-=]+(?=\s|$)|>)")
_MD_ORDERED = re.compile(r"^(\d+)([.)])(?=\s|$)")
# `&` is escaped only when it would start an entity, so plain `A & B` stays readable.
_ENTITY_LIKE = re.compile(r"&(?=#?\w+;)")
_BACKTICKS = re.compile(r"`+")
_TAG_LIKE = re.compile(r"<[!@#/?A-Za-z]")
SAFE_URL_SCHEMES = ("http", "https")
_URL_FORBIDDEN = frozenset("<>\"'`\\")


def clean_text(text: str) -> str:
    """Drop invisible, bidi and control characters that can hide or spoof text."""
    return _CONTROL.sub("", _INVISIBLE.sub("", text))


def clean_strings(value: Any) -> Any:
    """`value` (a JSON-like tree) with every string in it cleaned."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(str(k)): clean_strings(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_strings(v) for v in value]
    return value


def json_inert(text: str) -> str:
    """JSON text with each invisible character written as its `\\u` escape: the data is the
    same once parsed, but the raw text can't be reordered or hidden (they only occur inside
    JSON strings, where an escape means the same character)."""
    return _INVISIBLE.sub(_json_escape, text)


def _json_escape(match: re.Match[str]) -> str:
    return json.dumps(match.group(0))[1:-1]


def _invisible_chars() -> list[str]:
    """Every character INVISIBLE names, its ranges spelt out."""
    chars: list[str] = []
    i = 0
    while i < len(INVISIBLE):
        if i + 2 < len(INVISIBLE) and INVISIBLE[i + 1] == "-":
            chars += [chr(c) for c in range(ord(INVISIBLE[i]), ord(INVISIBLE[i + 2]) + 1)]
            i += 3
        else:
            chars.append(INVISIBLE[i])
            i += 1
    return chars


# each invisible character's UTF-8 bytes, and the JSON escape that stands for it
_INVISIBLE_UTF8 = {c.encode(): json.dumps(c)[1:-1].encode() for c in _invisible_chars()}
_INVISIBLE_BYTES = re.compile(b"|".join(re.escape(b) for b in _INVISIBLE_UTF8))


def json_inert_bytes(data: bytes) -> bytes:
    """`json_inert` on UTF-8 JSON: the same bytes `json_inert(text).encode()` gives, without a
    str of the whole document (a few non-BMP characters make one 4 bytes a character)."""
    return _INVISIBLE_BYTES.sub(lambda m: _INVISIBLE_UTF8[m.group(0)], data)


def one_line(text: str) -> str:
    """Cleaned text with every run of whitespace (newlines included) collapsed to one space."""
    return " ".join(clean_text(text).split())


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


def md_text(text: str, *, line_start: bool = True) -> str:
    """Markdown inline text: one line; HTML tags, links, emphasis and line-start blocks inert
    (`line_start=False`: a piece that follows other text on its line, where `>`, `#`, `-` or
    `1.` open nothing)."""
    line = _ENTITY_LIKE.sub("&amp;", one_line(text))
    line = line.replace("<", "&lt;")  # with no `<`, no tag or autolink can open: `>` stays
    line = _MD_UNDERSCORE.sub(r"\\_", _MD_INLINE.sub(r"\\\1", line))
    if not line_start:
        return line
    line = _MD_LINE_START.sub(lambda m: "\\" + m.group(0), line)
    return _MD_ORDERED.sub(r"\1\\\2", line)


def md_cell(text: str) -> str:
    """Markdown table cell: md_text (which also escapes `|` and folds newlines)."""
    return md_text(text)


def md_code(text: str) -> str:
    """A Markdown code span around `text` (one line): the fence outgrows any backtick run inside.

    Code spans render their content literally, so `[x](javascript:…)` inside one is shown,
    never linked; `|` is escaped because GFM splits table cells first. Text with something
    tag-like (`<script>`, `<!channel>`, `<at …>`) is written as escaped text instead, so the raw
    Markdown carries no tag either (it may be pasted where code spans mean nothing).
    """
    line = one_line(text)
    if _TAG_LIKE.search(line):
        return md_text(line)
    line = line.replace("|", "\\|")
    if not line:
        return ""
    longest = max((len(run) for run in _BACKTICKS.findall(line)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if line.startswith("`") or line.endswith("`") else ""
    return f"{fence}{pad}{line}{pad}{fence}"


def html_text(text: str) -> str:
    """HTML: entity-escape everything, quotes included."""
    return html.escape(clean_text(text), quote=True)


def safe_url(url: str, fallback: str = "") -> str:
    """`url` when it is an absolute http(s) URL without whitespace, else `fallback`."""
    candidate = clean_text(url).strip()
    if not candidate or any(ch.isspace() or ch in _URL_FORBIDDEN for ch in candidate):
        return fallback
    parts = urlsplit(candidate)
    if parts.scheme.lower() not in SAFE_URL_SCHEMES or not parts.netloc:
        return fallback
    return candidate


def md_url(url: str) -> str:
    """A URL for a Markdown link target: parentheses and angle brackets percent-encoded."""
    return url.replace("(", "%28").replace(")", "%29").replace("<", "%3C").replace(">", "%3E")


# Feishu card markdown (the 2.0 rich-text component). Characters that open inline Markdown
# (emphasis, code, links, tables) or an HTML-like tag (<at>, <a>, <font>, <link>) become numeric
# HTML entities, which the card shows as the literal character; so do a `:` that would start an
# autolink (`https://…`) or an emoji shortcode (`:DONE:`), and a character that opens a block
# (heading, list, quote) at the start of the text. `&` is in the table so an entity already in
# the text is shown as typed, not decoded. Everything else stays as typed, so titles read well.
_FEISHU_ENTITIES = {ord(ch): f"&#{ord(ch)};" for ch in "&<>[]*_~`|\\$"}
_FEISHU_COLON = re.compile(r":(?=//)|:(?=\w+:)")
_FEISHU_LINE_START = re.compile(r"^([#+\->!=]|\d+[.)])")


def feishu_text(text: str) -> str:
    """Feishu card markdown: one line; no mention, link, tag or formatting survives."""
    line = " ".join(clean_text(text).split()).translate(_FEISHU_ENTITIES)
    line = _FEISHU_COLON.sub("&#58;", line)
    return _FEISHU_LINE_START.sub(lambda m: "".join(f"&#{ord(c)};" for c in m.group(1)), line)
