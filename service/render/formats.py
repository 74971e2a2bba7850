"""One dispatch from a CLI format name to the renderer that produces it."""

from __future__ import annotations

import json

from service.core.models import Digest
from service.errors import InputError


def render_format(digest: Digest, fmt: str, lang: str, *, report_url: str) -> str:
    """`markdown | html | json` (full report) or `slack | feishu` (the card payload as JSON)."""
    if fmt in ("markdown", "html", "json"):
        from service.render.report import render_report

        return render_report(digest, fmt, lang)
    if fmt == "slack":
        from service.render import slack

        message = slack.render_digest(digest, report_url=report_url, lang=lang)
        return json.dumps(
            {"text": message.text, "blocks": message.blocks}, ensure_ascii=False, indent=2
        )
    if fmt == "feishu":
        from service.render import feishu

        card = feishu.render_digest(digest, report_url=report_url, lang=lang)
        return json.dumps(card, ensure_ascii=False, indent=2)
    raise InputError(f"unknown format {fmt!r}: expected markdown, html, json, slack or feishu")
