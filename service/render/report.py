"""Digest → the full report: Markdown and HTML through templates/report/, and JSON."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from service.core.mentions import TOP_TABLE_ROWS
from service.core.models import Digest, ScoredPR, TrendBucket
from service.core.ranking import ranked_prs
from service.core.scope import pr_ref
from service.errors import InputError
from service.render import escape
from service.render.environment import (
    HtmlSpeaking,
    environment,
    format_date,
    html_sentences,
    period_label,
    render_released,
    translator,
)
from service.render.speaker import HTML, MARKDOWN, Speaker, Target, repo_web_url

FORMATS = ("markdown", "html", "json")
# The Markdown table lists the most important PRs (core/mentions.py: TOP_TABLE_ROWS); the HTML
# lists every PR.
TOP_PRS_MARKDOWN = TOP_TABLE_ROWS
# The Markdown table's titles are cut at a word, its points at a clause (HTML: whole).
TITLE_CHARS = 50
POINT_CHARS = 60
# Inline-SVG module chart: at most this many bars, each BAR_HEIGHT px high, longest BAR_MAX_WIDTH.
CHART_BARS = 15
BAR_HEIGHT = 22
BAR_GAP = 6
BAR_MAX_WIDTH = 420
CHART_LABEL_WIDTH = 170
CHART_COUNT_WIDTH = 60
TEMPLATES = {"markdown": "report/report.md.j2", "html": "report/report.html.j2"}
# the Speaker's methods that return no HTML (a URL): the autoescaping page escapes them
PLAIN_SPEAKER_METHODS = frozenset({"pr_url"})


def _zone(digest: Digest) -> ZoneInfo | None:
    try:
        return ZoneInfo(digest.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _local(moment: datetime, digest: Digest) -> datetime:
    zone = _zone(digest)
    return moment.astimezone(zone) if zone else moment


def _dates(digest: Digest, lang: str) -> dict[str, str]:
    start = _local(digest.start, digest)
    last = _local(digest.end, digest) - timedelta(days=1)
    generated = _local(digest.generated_at, digest)
    return {
        "period": period_label(digest.window, lang),
        "start": format_date(start, lang, "short"),
        "end": format_date(last, lang, "short"),
        "start_long": format_date(start, lang),
        "end_long": format_date(last, lang),
        "generated": f"{format_date(generated, lang)} {generated:%H:%M}",
    }


def _chart(buckets: list[TrendBucket]) -> dict[str, Any]:
    bars = buckets[:CHART_BARS]
    top = max((b.count for b in bars), default=0) or 1
    rows = [
        {
            "key": b.key,
            "count": b.count,
            "delta": b.delta,
            "y": i * (BAR_HEIGHT + BAR_GAP),
            "width": max(round(BAR_MAX_WIDTH * b.count / top), 1),
            "percent": max(round(100 * b.count / top), 1),
        }
        for i, b in enumerate(bars)
    ]
    return {
        "rows": rows,
        "bar_height": BAR_HEIGHT,
        "label_width": CHART_LABEL_WIDTH,
        "width": CHART_LABEL_WIDTH + BAR_MAX_WIDTH + CHART_COUNT_WIDTH,
        "height": max(len(rows) * (BAR_HEIGHT + BAR_GAP), BAR_HEIGHT),
        "hidden": max(len(buckets) - len(bars), 0),
    }


def _discussion_url(digest: Digest) -> str:
    web = repo_web_url(digest)
    return escape.safe_url(digest.discussion_url, f"{web}/pulls" if web else "")


def _context(digest: Digest, lang: str, target: Target) -> dict[str, Any]:
    tr = translator(lang, digest.window.kind)
    speaker = Speaker(digest, tr, target)
    ranked = ranked_prs(digest)
    # the top rows, and any PR below them the model wrote a checked point for (a kept sentence
    # is shown, whatever the table's size)
    pointed = speaker.written.points if speaker.written else {}
    top: list[ScoredPR] = [
        p for i, p in enumerate(ranked) if i < TOP_PRS_MARKDOWN or p.number in pointed
    ]
    html = target is HTML  # the HTML page autoescapes: what is HTML already comes as Markup
    return {
        "t": html_sentences(tr) if html else tr.t,
        "lang": lang,
        "digest": digest,
        "s": HtmlSpeaking(speaker, PLAIN_SPEAKER_METHODS) if html else speaker,
        "model": speaker.written,
        "dates": _dates(digest, lang),
        "top_prs": top,
        "rest_prs": [p for p in ranked if p not in top],
        "point_chars": POINT_CHARS,
        "title_chars": TITLE_CHARS,
        "chart": _chart(digest.trends.modules),
        "discussion_url": _discussion_url(digest),
        "example_pr": _example_pr(digest),
    }


def _example_pr(digest: Digest) -> str:
    """The top PR as `/verl-week pr …` takes it: `6091`, or `verl-omni#25` for a PR of a
    family's other repository (its key is no number a user knows)."""
    if not digest.prs:
        return "1"
    return pr_ref(digest.prs[0].number, digest.prs[0].repo).removeprefix("#")


def render_markdown(digest: Digest, lang: str | None = None) -> str:
    """The full Markdown report (sections as in the hand-written verl weekly report)."""
    context = _context(digest, lang or digest.language, MARKDOWN)
    return render_released(environment().get_template(TEMPLATES["markdown"]), context)


def render_html(digest: Digest, lang: str | None = None) -> str:
    """One self-contained HTML page: inline CSS, an inline-SVG module chart, every PR linked."""
    context = _context(digest, lang or digest.language, HTML)
    return render_released(environment().get_template(TEMPLATES["html"]), context)


def render_json(digest: Digest) -> str:
    """The digest itself as JSON (round-trips through Digest.model_validate_json)."""
    return render_json_bytes(digest).decode()


def render_json_bytes(digest: Digest) -> bytes:
    """`render_json` as UTF-8 bytes, serialised straight to bytes: a 2,000-PR week's report is
    tens of MB, and as a str (4 bytes a character once one emoji is in it) copied for stdout."""
    # a single repository's digest reads as it did before families (core/family.py)
    single: dict[str, Any] = {"repos": True, "crossings": True, "prs": {"__all__": {"repo"}}}
    exclude = None if digest.repos else single
    shown = digest.__pydantic_serializer__.to_json(digest, indent=2, exclude=exclude)
    return escape.json_inert_bytes(shown)


def render_report(digest: Digest, fmt: str, lang: str | None = None) -> str:
    """Dispatch on `fmt` (markdown, html or json)."""
    if fmt == "markdown":
        return render_markdown(digest, lang)
    if fmt == "html":
        return render_html(digest, lang)
    if fmt == "json":
        return render_json(digest)
    raise InputError(f"unknown report format {fmt!r}; expected one of {', '.join(FORMATS)}")
