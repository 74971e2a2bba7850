"""Checks that rendered output is inert the way each platform reads it: Slack mrkdwn control
sequences, Feishu card markdown and tags, HTML tags/attributes, Markdown links."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

# Slack mrkdwn: `<…>` is a control sequence (mention, channel, link). Ours are links only.
SLACK_CONTROL = re.compile(r"<([^<>]*)>")
SAFE_LINK = re.compile(r"^https?://[^\s|<>]+(\|[^<>]*)?$")
# Markdown / Feishu markdown link targets: `](target)`; an escaped `\]` or entity is not a link.
MD_LINK = re.compile(r"(?<!\\)\]\(\s*([^)\s]*)")
# A tag Feishu's card markdown would honour: <at …>, <a …>, <font …>, <link …>, <text_tag …>.
FEISHU_TAG = re.compile(r"<\s*/?\s*(at|a|font|link|text_tag|img|script)\b", re.IGNORECASE)
URL_KEYS = frozenset({"url", "default_url", "pc_url", "ios_url", "android_url", "href"})


def strings(value: Any) -> list[str]:
    """Every string inside a JSON-like value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def urls(value: Any) -> list[str]:
    """Every value under a URL-ish key (button and link targets)."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, child in value.items():
            if key in URL_KEYS and isinstance(child, str):
                found.append(child)
            else:
                found += urls(child)
    elif isinstance(value, list):
        for child in value:
            found += urls(child)
    return found


def slack_problems(text: str, blocks: list[dict[str, Any]]) -> list[str]:
    """What in a Slack message would ping, mention or link somewhere it should not."""
    problems = []
    for s in [text, *strings(blocks)]:
        for inner in SLACK_CONTROL.findall(s):
            if not SAFE_LINK.match(inner):
                problems.append(f"mrkdwn control sequence <{inner[:60]}>")
    for url in urls(blocks):
        if not re.match(r"^https?://", url):
            problems.append(f"button url {url[:60]!r}")
    return problems


def feishu_problems(card: dict[str, Any]) -> list[str]:
    """What in a Feishu card would mention, link or format from untrusted text."""
    problems = []
    for s in strings(card):
        if FEISHU_TAG.search(s):
            problems.append(f"tag in {s[:80]!r}")
        # an unsafe PR URL falls back to the report page: no link target is empty or foreign
        problems += [f"link to {t[:60]!r}" for t in MD_LINK.findall(s) if not _web(t)]
    problems += [f"url {u[:60]!r}" for u in urls(card) if u and not _web(u)]
    return problems


def _web(target: str) -> bool:
    return bool(re.match(r"^https?://", target))


def strip_code(markdown: str) -> str:
    """Markdown without code spans (their content is shown literally)."""
    return re.sub(r"(`+).*?\1", "", markdown, flags=re.DOTALL)


def markdown_problems(markdown: str) -> list[str]:
    """Raw tags or script links in Markdown (as text, before any Markdown renderer)."""
    plain = strip_code(markdown)
    problems = [f"raw {tag}" for tag in ("<!channel>", "<!here>", "<@U", "<at", "<script")
                if tag in plain.lower() or tag in plain]  # fmt: skip
    problems += [f"link to {t[:60]!r}" for t in MD_LINK.findall(plain) if t and not _web(t)]
    return problems


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += [(name, value or "") for name, value in attrs]


def html_problems(page: str, *, allowed_scripts: int = 0) -> list[str]:
    """Tags, event handlers and script URLs that untrusted text could have brought in."""
    parser = _Page()
    parser.feed(page)
    parser.close()
    problems = []
    if parser.tags.count("script") > allowed_scripts:
        problems.append("script tag")
    problems += [f"<{t}> tag" for t in ("at", "img", "iframe", "object") if t in parser.tags]
    problems += [f"handler {n}" for n, _ in parser.attrs if n.startswith("on")]
    for name, value in parser.attrs:
        if name in ("href", "src", "action") and value.strip().lower().startswith("javascript:"):
            problems.append(f"{name}={value[:40]!r}")
    if "<!channel>" in page or "<at id=all>" in page:
        problems.append("raw mention")
    return problems


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
