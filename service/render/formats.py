"""One dispatch from a CLI format name to the renderer that produces it."""

from __future__ import annotations

from service.core.models import Digest
from service.errors import InputError
from service.render.cards import card_format, card_format_names

REPORT_FORMATS = ("markdown", "html", "json")


def render_format(digest: Digest, fmt: str, lang: str, *, report_url: str) -> str:
    """`markdown | html | json` (full report) or a platform's card format (`slack`, `feishu`, …:
    the card payload as JSON)."""
    if fmt in REPORT_FORMATS:
        from service.render.report import render_report

        return render_report(digest, fmt, lang)
    card = card_format(fmt)
    if card is not None:
        return card.digest_json(digest, report_url=report_url, lang=lang)
    raise InputError(f"unknown format {fmt!r}: expected {', '.join(format_names())}")


def render_format_bytes(digest: Digest, fmt: str, lang: str, *, report_url: str) -> bytes:
    """`render_format` as UTF-8 bytes; the JSON report is serialised to bytes directly."""
    if fmt == "json":
        from service.render.report import render_json_bytes

        return render_json_bytes(digest)
    return render_format(digest, fmt, lang, report_url=report_url).encode()


def format_names() -> list[str]:
    """Every format `render_format` knows: the report's, then each platform's card."""
    return [*REPORT_FORMATS, *card_format_names()]
