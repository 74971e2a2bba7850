"""Digest → the full report: Markdown and HTML through templates/report/, and JSON."""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from service.core.models import Digest, Factor, Risk, ScoredPR, Statement, TrendBucket
from service.core.risks import message_keys
from service.errors import InputError
from service.render import escape
from service.render.environment import (
    environment,
    format_date,
    signed,
    translator,
    week_label,
)
from service.render.strings import Translator

FORMATS = ("markdown", "html", "json")
# The Markdown table lists the most important PRs; the rest are linked in one line below it.
TOP_PRS_MARKDOWN = 20
# PRs whose score factors the Markdown report spells out under the table.
EXPLAINED_PRS = 5
# Evidence items shown per risk (Markdown names how many more; HTML folds the rest away).
EVIDENCE_PER_RISK = 5
GIST_CHARS = 160
TITLE_CHARS = 140
# Inline-SVG module chart: at most this many bars, each BAR_HEIGHT px high, longest BAR_MAX_WIDTH.
CHART_BARS = 15
BAR_HEIGHT = 22
BAR_GAP = 6
BAR_MAX_WIDTH = 420
CHART_LABEL_WIDTH = 170
CHART_COUNT_WIDTH = 60
# Parameters whose int value is a PR number (rendered as a link, not as a count).
_PR_PARAM_NAMES = frozenset({"pr", "number", "earlier", "later", "reverted", "original"})
_PR_PARAM_SUFFIXES = ("_pr",)
# A plain-text PR list as core writes it: `#6200, #6162` or `#1, #2, …(+3)`.
_PR_LIST_TEXT = re.compile(r"#\d+(?:\s*[,、]\s*#\d+)*(?:\s*[,、]\s*…\s*\(\+\d+\))?")
_PR_NUMBER = re.compile(r"#(\d+)")
_TRUNCATED = "…"
# `#123` in escaped text, not inside a word, URL fragment, entity (`&#39;`) or escape (`\#`).
_PR_REF = re.compile(r"(?<![\w&;#\\/\[])#(\d{1,7})\b")
_BACKTICK_SPAN = re.compile(r"`([^`\n]+)`")
_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})")
TEMPLATES = {"markdown": "report/report.md.j2", "html": "report/report.html.j2"}

ParamValue = str | int | float | list[int] | list[str]


@dataclass(frozen=True)
class _Target:
    """How one output format writes untrusted text and links."""

    text: Callable[[str], str]
    link: Callable[[str, str], str]
    code: Callable[[str], str]


def _md_link(url: str, label: str) -> str:
    return f"[{label}]({escape.md_url(url)})"


def _html_link(url: str, label: str) -> str:
    return f'<a href="{escape.html_text(url)}">{label}</a>'


def _html_code(value: str) -> str:
    return f"<code>{escape.html_text(value)}</code>"


def _html_inline(value: str) -> str:
    """Escaped text in which `code` spans of the PR body are shown as <code> (content escaped)."""
    return _BACKTICK_SPAN.sub(r"<code>\1</code>", escape.html_text(value))


MARKDOWN = _Target(text=escape.md_text, link=_md_link, code=escape.md_code)
HTML = _Target(text=_html_inline, link=_html_link, code=_html_code)


def _is_pr_param(name: str) -> bool:
    return name in _PR_PARAM_NAMES or name.endswith(_PR_PARAM_SUFFIXES)


def _is_pr_list(value: object) -> bool:
    if isinstance(value, str):
        return bool(_PR_LIST_TEXT.fullmatch(value.strip()))
    return isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    )


def _is_pr_value(name: str, value: object) -> bool:
    """Whether a parameter names PRs (and so renders as `#N` links)."""
    single = isinstance(value, int) and not isinstance(value, bool) and _is_pr_param(name)
    return single or _is_pr_list(value)


def _plain_number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else round(value, 2)


class Speaker:
    """Turns catalog keys and digest values into safe text for one target and language."""

    def __init__(self, digest: Digest, tr: Translator, target: _Target) -> None:
        self.digest = digest
        self.tr = tr
        self.target = target
        self.sep = tr.t("report.list_sep")
        self.sentence_sep = tr.t("report.sentence_sep")
        self._urls = {p.number: p.url for p in digest.prs}
        self._risks: dict[int, list[Risk]] = {}
        for risk in digest.risks:
            for number in dict.fromkeys(risk.prs):
                self._risks.setdefault(number, []).append(risk)

    def pr_url(self, number: int) -> str:
        """The PR's own URL when it is a safe http(s) URL, else <repo web URL>/pull/<n> on the
        host the digest's PR URLs come from, else '' (no link)."""
        web = repo_web_url(self.digest)
        return escape.safe_url(self._urls.get(number, ""), f"{web}/pull/{number}" if web else "")

    def pr_risks(self, number: int) -> str:
        """The titles of the risks that name PR `number` (each kind once), or ''."""
        titles = dict.fromkeys(self.risk_text(r, "title") for r in self._risks.get(number, []))
        if not titles:
            return ""
        return self.tr.t("report.top.risks", titles=self.sep.join(titles))

    def pr_link(self, number: int) -> str:
        url = self.pr_url(number)
        return self.target.link(url, f"#{number}") if url else f"#{number}"

    def pr_links(self, numbers: Sequence[int]) -> str:
        return self.sep.join(self.pr_link(n) for n in numbers)

    def text(self, value: str) -> str:
        """Untrusted text, escaped for the target; `#N` references become PR links."""
        return _PR_REF.sub(lambda m: self.pr_link(int(m.group(1))), self.target.text(value))

    def _pr_list_text(self, value: str, prs: Sequence[int]) -> str:
        """`#1, #2, …(+3)` → links; a shortened list is completed from the statement's PRs."""
        numbers = [int(n) for n in _PR_NUMBER.findall(value)]
        if _TRUNCATED in value and set(numbers) <= set(prs):
            numbers = list(prs)
        return self.pr_links(numbers)

    def _param(self, name: str, value: ParamValue, prs: Sequence[int] = ()) -> ParamValue:
        if _is_pr_value(name, value):
            if isinstance(value, str):
                return self._pr_list_text(value, prs)
            if isinstance(value, list):
                return self.pr_links([int(v) for v in value])
            return self.pr_link(int(value))
        if isinstance(value, list):
            return self.sep.join(self.text(str(v)) for v in value)
        if isinstance(value, bool):
            return str(value)
        if isinstance(value, int | float):
            return _plain_number(value)
        return self.text(value)

    def params(self, raw: dict[str, Any], prs: Sequence[int] = ()) -> dict[str, Any]:
        return {name: self._param(name, value, prs) for name, value in raw.items()}

    def _resolve(self, key: str, params: dict[str, Any]) -> str:
        if params.get("count") == 1 and self.tr.has(f"{key}_one"):
            return f"{key}_one"
        return key

    def fill(self, key: str, raw: dict[str, Any], prs: Sequence[int] = ()) -> str:
        """The sentence for `key` (or its `_one` variant) with every parameter made safe.

        A PR number becomes a `#N` link; a catalog that writes `#{number}` keeps one `#`.
        """
        key = self._resolve(key, raw)
        template = self.tr.catalog.get(key)
        if template is None:
            return self.tr.t(key)  # raises the missing-key error with the language
        params = self.params(raw, prs)
        for name, value in raw.items():
            if _is_pr_value(name, value):
                template = template.replace(f"#{{{name}}}", f"{{{name}}}")
        return template.format_map(_Strict(params))

    def say(self, statement: Statement) -> str:
        """The statement's sentence; its PRs not already named in the sentence follow as links."""
        sentence = self.fill(statement.key, statement.params, statement.prs)
        template = self.tr.catalog[self._resolve(statement.key, statement.params)]
        used = {f for _, f, _, _ in string.Formatter().parse(template) if f}
        named = _prs_in(statement.params, used, statement.prs)
        rest = [n for n in statement.prs if n not in named]
        if not rest:
            return sentence
        return self.tr.t("report.with_prs", sentence=sentence, prs=self.pr_links(rest))

    def risk_text(self, risk: Risk, field: str) -> str:
        """Risk wording: the first of core's `message_keys` the catalog has (rule, then kind;
        a roll-up's summary is its `rollup` sentence)."""
        keys = message_keys(risk, field)
        key = next((k for k in keys if self.tr.has(k)), keys[-1])
        raw: dict[str, Any] = {"prs": list(risk.prs), **risk.params}
        if risk.prs:
            raw.setdefault("pr", risk.prs[0])
        return self.fill(key, raw, risk.prs)

    def factor_text(self, factor: Factor) -> str:
        """A score factor's reason: `factor.<name>` from the catalog, else the model's reason."""
        key = f"factor.{factor.name}"
        if not self.tr.has(key):
            return self.text(factor.reason)
        return self.fill(key, factor.params)

    def factors(self, pr: ScoredPR) -> str:
        """The PR's non-zero factors, largest first, each with its signed points."""
        ranked = sorted((f for f in pr.factors if f.points), key=lambda f: -abs(f.points))
        items = (
            self.tr.t("report.top.factor", reason=self.factor_text(f), points=signed(f.points))
            for f in ranked
        )
        return self.sep.join(items)

    def label(self, group: str, name: str) -> str:
        """`report.<group>.<name>` (a category, type or source name), else the name itself."""
        key = f"report.{group}.{name}"
        return self.tr.t(key) if self.tr.has(key) else self.text(name)

    def person(self, login: str) -> str:
        """`@login` for a GitHub login; a display name (recorded history) without the `@`."""
        return self.text(f"@{login}" if _LOGIN.fullmatch(login) else login)

    def category(self, name: str) -> str:
        return self.label("category", name)

    def code(self, value: str) -> str:
        return self.target.code(value)


class _Strict(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        raise KeyError(f"catalog placeholder {{{key}}} has no value")


def _prs_in(params: dict[str, Any], used: set[str], prs: Sequence[int]) -> set[int]:
    """PR numbers the sentence names through the placeholders it uses."""
    out: set[int] = set()
    for name in used & set(params):
        value = params[name]
        if not _is_pr_value(name, value):
            continue
        if isinstance(value, str):
            numbers = {int(n) for n in _PR_NUMBER.findall(value)}
            out.update(set(prs) if _TRUNCATED in value and numbers <= set(prs) else numbers)
        elif isinstance(value, list):
            out.update(int(v) for v in value)
        else:
            out.add(int(value))
    return out


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
        "week": week_label(digest.week, lang),
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


def repo_web_url(digest: Digest) -> str:
    """The repository's web page on its own GitHub host (github.com or an Enterprise one), as
    the API's PR URLs give it: `https://HOST/<repo>`; '' when no PR URL says."""
    suffix = re.compile(rf"^(https?://[^\s/]+(?:/[^\s]*)?/{re.escape(digest.repo)})/pull/\d+$")
    for pr in digest.prs:
        match = suffix.match(escape.safe_url(pr.url))
        if match:
            return match.group(1)
    return ""


def _discussion_url(digest: Digest) -> str:
    web = repo_web_url(digest)
    return escape.safe_url(digest.discussion_url, f"{web}/pulls" if web else "")


def _context(digest: Digest, lang: str, target: _Target) -> dict[str, Any]:
    tr = translator(lang)
    speaker = Speaker(digest, tr, target)
    top: list[ScoredPR] = digest.prs[:TOP_PRS_MARKDOWN]
    return {
        "t": tr.t,
        "lang": lang,
        "digest": digest,
        "s": speaker,
        "dates": _dates(digest, lang),
        "top_prs": top,
        "rest_prs": digest.prs[len(top) :],
        "explained": digest.prs[:EXPLAINED_PRS],
        "evidence_limit": EVIDENCE_PER_RISK,
        "gist_chars": GIST_CHARS,
        "title_chars": TITLE_CHARS,
        "chart": _chart(digest.trends.modules),
        "discussion_url": _discussion_url(digest),
        "example_pr": digest.prs[0].number if digest.prs else 1,
    }


def render_markdown(digest: Digest, lang: str | None = None) -> str:
    """The full Markdown report (sections as in the hand-written verl weekly report)."""
    context = _context(digest, lang or digest.language, MARKDOWN)
    return environment().get_template(TEMPLATES["markdown"]).render(**context)


def render_html(digest: Digest, lang: str | None = None) -> str:
    """One self-contained HTML page: inline CSS, an inline-SVG module chart, every PR linked."""
    context = _context(digest, lang or digest.language, HTML)
    return environment().get_template(TEMPLATES["html"]).render(**context)


def render_json(digest: Digest) -> str:
    """The digest itself as JSON (round-trips through Digest.model_validate_json)."""
    return escape.json_inert(digest.model_dump_json(indent=2))


def render_report(digest: Digest, fmt: str, lang: str | None = None) -> str:
    """Dispatch on `fmt` (markdown, html or json)."""
    if fmt == "markdown":
        return render_markdown(digest, lang)
    if fmt == "html":
        return render_html(digest, lang)
    if fmt == "json":
        return render_json(digest)
    raise InputError(f"unknown report format {fmt!r}; expected one of {', '.join(FORMATS)}")
