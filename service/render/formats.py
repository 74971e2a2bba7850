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


def format_names() -> list[str]:
    """Every format `render_format` knows: the report's, then each platform's card."""
    return [*REPORT_FORMATS, *card_format_names()]
