"""The full report (Markdown, HTML, JSON) on real verl weeks: golden files, sections, links,
escaping of hostile PR text, and the HTML's structure."""

from __future__ import annotations

import functools
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.core.digest import build_digest
from service.core.models import (
    Completeness,
    Digest,
    Evidence,
    MissingItem,
    Risk,
    RiskKind,
    Severity,
    Statement,
)
from service.core.profile import load_profile
from service.errors import InputError
from service.render.report import (
    CHART_BARS,
    TOP_PRS_MARKDOWN,
    render_html,
    render_json,
    render_markdown,
    render_report,
)
from tests.conftest import DATA, NOW, load_week

GOLDEN = DATA / "golden"
# `UPDATE_GOLDEN=1 .venv/bin/pytest tests/render/test_report.py` rewrites the golden files.
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
WEEKS = {"2025-W48": "2025-W47", "2026-W04": "2026-W03"}
LANGS = ("zh", "en")
SECTIONS = {
    "zh": [
        "执行摘要",
        "本周重点变化",
        "模块与主题趋势",
        "风险观察",
        "重点 PR 速览",
        "后续建议",
        "参与讨论",
    ],
    "en": [
        "Executive summary",
        "Key changes",
        "Module and topic trends",
        "Risk watch",
        "Top PRs at a glance",
        "Follow-up recommendations",
        "Join the discussion",
    ],
}
HOSTILE = [
    "<script>alert(1)</script>",
    "<!channel> <!here>",
    "<at id=all></at>",
    "[x](javascript:alert(1))",
    '<img src=x onerror="alert(1)">',
    "a | b\n| c | d |\n\n# heading",
    "zero\u200bwidth\u202e",
    "```\n<script>\n```",
]


@functools.cache
def real_digest(week: str, lang: str) -> Digest:
    """The digest build_digest makes of a real recorded week, with last week as `previous`."""
    profile = load_profile("volcengine/verl")
    before = load_week(WEEKS[week])
    previous = build_digest(before, profile, language=lang, now=NOW)
    return build_digest(
        load_week(week), profile, language=lang, now=NOW, previous=previous, earlier=before.prs
    )


def _pr_url(digest: Digest, number: int) -> str:
    return f"https://github.com/{digest.repo}/pull/{number}"


def _check_golden(path: Path, text: str) -> None:
    if UPDATE or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"golden file {path.name} was missing and has been written; rerun")
    assert text == path.read_text(encoding="utf-8"), (
        f"{path.name} differs; if the change is intended, rerun with UPDATE_GOLDEN=1"
    )


class _Page(HTMLParser):
    """Collects tags, links and the open-tag stack of a page to check it is well formed."""

    VOID = frozenset({"meta", "link", "br", "img", "hr", "input", "source", "wbr"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.tags: list[str] = []
        self.hrefs: list[str] = []
        self.attrs: list[tuple[str, str]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            self.attrs.append((name, value or ""))
            if name in ("href", "src"):
                self.hrefs.append(value or "")
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _ids(page: _Page) -> set[str]:
    return {value for name, value in page.attrs if name == "id" and not value.startswith("pr-")}


def parse_page(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    page.close()
    return page


# --- golden files -----------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("week", sorted(WEEKS))
def test_markdown_matches_golden(week: str, lang: str) -> None:
    _check_golden(GOLDEN / f"report-{week}.{lang}.md", render_markdown(real_digest(week, lang)))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("week", sorted(WEEKS))
def test_html_matches_golden(week: str, lang: str) -> None:
    _check_golden(GOLDEN / f"report-{week}.{lang}.html", render_html(real_digest(week, lang)))


# --- Markdown structure -----------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("week", sorted(WEEKS))
def test_markdown_has_every_section_in_order(week: str, lang: str) -> None:
    text = render_markdown(real_digest(week, lang))
    headings = re.findall(r"^## (.+)$", text, flags=re.MULTILINE)
    assert headings == SECTIONS[lang]
    assert text.startswith("# volcengine/verl ")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("week", sorted(WEEKS))
def test_markdown_links_every_pr_of_the_week(week: str, lang: str) -> None:
    digest = real_digest(week, lang)
    text = render_markdown(digest)
    for pr in digest.prs:
        assert f"[#{pr.number}]({_pr_url(digest, pr.number)})" in text
    # no bare `#N` PR reference is left unlinked, and no `##N` from a `#{number}` catalog
    assert not re.search(r"(?<![\[\w/&;`])#\d{3,}(?!\]\()", _strip_code(text))
    assert "#[#" not in text


def _strip_code(text: str) -> str:
    return re.sub(r"(`+).*?\1", "", text)


def test_markdown_table_lists_top_prs_and_names_the_rest() -> None:
    digest = real_digest("2025-W48", "zh")
    text = render_markdown(digest)
    table = text.split("## 重点 PR 速览", 1)[1].split("\n\n")[1]
    rows = [line for line in table.splitlines() if line.startswith("| [#")]
    assert len(rows) == TOP_PRS_MARKDOWN < len(digest.prs)
    assert rows[0].startswith(f"| [#{digest.prs[0].number}]")
    assert f"| {digest.prs[0].score:.1f} |" in rows[0]
    assert all(row.count(" | ") == 3 for row in rows)  # 4 cells: pipes inside cells escaped
    assert f"另有 {len(digest.prs) - TOP_PRS_MARKDOWN} 个 PR 未列入上表" in text


def test_markdown_table_names_each_prs_risks_in_its_key_point() -> None:
    digest = real_digest("2026-W04", "en")
    text = render_markdown(digest)
    risky = next(p for p in digest.prs if p.risk_count)
    row = next(line for line in text.splitlines() if line.startswith(f"| [#{risky.number}]("))
    assert " (risks: " in row
    calm = next(p for p in digest.prs[:TOP_PRS_MARKDOWN] if not p.risk_count)
    row = next(line for line in text.splitlines() if line.startswith(f"| [#{calm.number}]("))
    assert "(risks:" not in row


def test_markdown_states_risks_with_evidence_and_recommendation() -> None:
    digest = real_digest("2025-W48", "en")
    text = render_markdown(digest)
    risks = text.split("## Risk watch", 1)[1].split("## Top PRs", 1)[0]
    assert risks.count("\n### ") == len(digest.risks)
    assert risks.count("**Recommendation:** ") == len(digest.risks)
    shell = next(r for r in digest.risks if r.kind == RiskKind.UNSET_SHELL_VAR)
    ev = shell.evidence[0]
    assert f"`{ev.path}:{ev.line}`" in risks
    assert f"`{ev.snippet}`" in risks
    assert "[High]" in risks


def test_markdown_trends_show_counts_deltas_and_contributors() -> None:
    digest = real_digest("2026-W04", "en")
    text = render_markdown(digest)
    top = digest.trends.modules[0]
    assert top.delta is not None
    row = next(line for line in text.splitlines() if line.startswith(f"| `{top.key}` |"))
    assert f"| {top.count} | {top.delta:+d} |" in row
    assert all(f"[#{n}]" in row for n in top.prs)
    assert f"vs {digest.trends.previous_week}" in text
    for person in digest.trends.contributors:
        is_login = re.fullmatch(r"[A-Za-z0-9-]+", person.login)
        assert f"{'@' if is_login else ''}{person.login} (" in text
    assert any(not re.fullmatch(r"[A-Za-z0-9-]+", p.login) for p in digest.trends.contributors)
    assert "**PRs:** [#" in text


def test_discussion_link_defaults_to_the_repo_and_takes_the_digest_url() -> None:
    digest = real_digest("2026-W04", "zh")
    assert "(https://github.com/volcengine/verl/pulls)" in render_markdown(digest)
    custom = digest.model_copy(update={"discussion_url": "https://example.org/t/42"})
    assert "(https://example.org/t/42)" in render_markdown(custom)
    hostile = digest.model_copy(update={"discussion_url": "javascript:alert(1)"})
    assert "javascript:" not in render_markdown(hostile)
    assert "javascript:" not in render_html(hostile)
    assert "`/verl-week pr " in render_markdown(digest)


def test_incomplete_digest_warns_at_the_top_naming_what_is_missing() -> None:
    digest = real_digest("2026-W04", "zh").model_copy(
        update={
            "completeness": Completeness(
                complete=False,
                missing=[
                    MissingItem(number=5033, what="files", reason="GitHub answered 502"),
                    MissingItem(what="search page 3", reason="rate limit"),
                ],
            )
        }
    )
    text = render_markdown(digest)
    warning = text.index("数据不完整")
    assert warning < text.index("## 执行摘要")
    assert (
        "PR [#5033](https://github.com/volcengine/verl/pull/5033)：files（GitHub answered 502）"
        in text
    )
    assert "search page 3（rate limit）" in text
    html = render_html(digest)
    assert 'role="alert"' in html
    assert "GitHub answered 502" in html
    assert "数据不完整" not in render_markdown(real_digest("2026-W04", "zh"))


def test_lang_argument_overrides_the_digest_language() -> None:
    digest = real_digest("2026-W04", "zh")
    assert "## Executive summary" in render_markdown(digest, "en")
    assert "## 执行摘要" in render_markdown(digest)
    assert '<html lang="en">' in render_html(digest, "en")


def test_empty_week_renders_every_section() -> None:
    digest = real_digest("2026-W04", "en")
    empty = build_digest(
        load_week("2026-W04").model_copy(update={"prs": []}),
        load_profile("volcengine/verl"),
        language="en",
        now=NOW,
    )
    text = render_markdown(empty)
    headings = re.findall(r"^## (.+)$", text, flags=re.MULTILINE)
    assert headings == SECTIONS["en"]
    assert "No pull requests were merged this week" in text
    assert "No risks found this week." in text
    page = parse_page(render_html(empty))
    assert page.errors == []
    assert page.stack == []
    assert digest.week == empty.week


# --- risk and factor wording ------------------------------------------------------------


def test_long_evidence_lists_are_cut_in_markdown_and_folded_in_html() -> None:
    digest = real_digest("2026-W04", "en")
    evidence = [Evidence(path=f"docs/run_{i}.sh", line=i, snippet=f"kill -9 {i}") for i in range(9)]
    risk = Risk(
        kind=RiskKind.DANGEROUS_COMMAND, severity=Severity.LOW, prs=[5022], evidence=evidence
    )
    risk.params = {"command": "kill -9", "path": "docs/run_0.sh", "line": 0}
    one = digest.model_copy(update={"risks": [risk]})
    markdown = render_markdown(one)
    assert "`docs/run_4.sh:4`" in markdown
    assert "`docs/run_5.sh:5`" not in markdown
    assert "4 more pieces of evidence in the HTML or JSON report." in markdown
    html = render_html(one)
    folded = html.split("4 more pieces of evidence (expand)</summary>", 1)[1]
    assert "<code>docs/run_8.sh:8</code>" in folded.split("</details>", 1)[0]


def test_risk_wording_prefers_the_rule_specific_key() -> None:
    digest = real_digest("2026-W04", "en")
    base = Risk(
        kind=RiskKind.DANGEROUS_COMMAND,
        severity=Severity.HIGH,
        prs=[5022],
        evidence=[Evidence(path="scripts/run.sh", line=7, snippet="pkill -9 python")],
        params={"command": "pkill -9", "path": "scripts/run.sh", "line": 7},
    )
    specific = base.model_copy(update={"rule": "pkill_9"})
    unknown = base.model_copy(update={"rule": "no_such_rule"})
    texts = {
        name: render_markdown(digest.model_copy(update={"risks": [risk]}))
        for name, risk in (("base", base), ("specific", specific), ("unknown", unknown))
    }
    assert "adds a dangerous command (pkill -9) to scripts/run.sh, line 7" in texts["base"]
    assert "kills every matching process of the user" in texts["specific"]
    assert "adds a dangerous command (pkill -9)" in texts["unknown"]
    assert "`scripts/run.sh:7` — `pkill -9 python`" in texts["specific"]


def test_html_shows_every_factor_of_every_pr_on_expand() -> None:
    digest = real_digest("2025-W48", "en")
    html = render_html(digest)
    assert html.count('<details><summary class="score"') == len(digest.prs)
    top = digest.prs[0]
    row = html.split(f'<tr id="pr-{top.number}">', 1)[1].split("</tr>", 1)[0]
    for factor in top.factors:
        if factor.points:
            assert f"<b>{factor.points:+g}</b>" in row
    assert "log-scaled" in row  # the size factor's catalog sentence


# --- HTML -------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("week", sorted(WEEKS))
def test_html_is_balanced_and_links_every_pr(week: str, lang: str) -> None:
    digest = real_digest(week, lang)
    page = parse_page(render_html(digest))
    assert page.errors == []
    assert page.stack == []
    for pr in digest.prs:
        assert _pr_url(digest, pr.number) in page.hrefs
    assert "script" not in page.tags
    # links go to GitHub or to this page's own sections; nothing else is fetched
    assert all(h.startswith(("https://", "#")) for h in page.hrefs)
    assert {h for h in page.hrefs if h.startswith("#")} == {f"#{i}" for i in _ids(page)}
    assert "link" not in page.tags  # no stylesheet to fetch: CSS is inline


@pytest.mark.parametrize("lang", LANGS)
def test_html_has_every_section_and_a_module_chart(lang: str) -> None:
    digest = real_digest("2025-W48", lang)
    html = render_html(digest)
    page = parse_page(html)
    for heading in SECTIONS[lang]:
        assert f"<h2>{heading}</h2>" in html
    bars = min(len(digest.trends.modules), CHART_BARS)
    assert page.tags.count("rect") == bars
    assert page.tags.count("svg") == 1
    top = digest.trends.modules[0]
    assert f"<title>{top.key}: {top.count}</title>" in html
    assert f"<b>{digest.stats.prs}</b>" in html


# --- JSON and dispatch ------------------------------------------------------------------


def test_json_round_trips_the_digest() -> None:
    digest = real_digest("2026-W04", "zh")
    again = Digest.model_validate_json(render_json(digest))
    assert again == digest
    assert render_markdown(again) == render_markdown(digest)  # stored digests render the same
    assert render_report(digest, "json") == render_json(digest)
    assert render_report(digest, "markdown", "en") == render_markdown(digest, "en")
    assert render_report(digest, "html") == render_html(digest)


def test_unknown_format_is_an_input_error() -> None:
    with pytest.raises(InputError, match="markdown, html, json"):
        render_report(real_digest("2026-W04", "zh"), "pdf")


# --- hostile text -----------------------------------------------------------------------


def hostile_digest(text: str, lang: str) -> Digest:
    """A real digest whose untrusted fields all carry `text`."""
    digest = real_digest("2025-W48", lang).model_copy(deep=True)
    for pr in digest.prs[:3]:
        pr.title, pr.gist, pr.author = text, text, text
        pr.modules = [text, *pr.modules]
    for risk in digest.risks:
        risk.evidence.append(Evidence(path=text, line=1, snippet=text[:200]))
        risk.params = {k: text if isinstance(v, str) else v for k, v in risk.params.items()}
    for pr in digest.prs:
        for factor in pr.factors:
            factor.reason = text
            factor.params = {k: text if isinstance(v, str) else v for k, v in factor.params.items()}
    for statement in _statements(digest):
        for name, value in statement.params.items():
            if isinstance(value, str):
                statement.params[name] = text
    digest.trends.modules[0].key = text
    digest.trends.contributors[0].login = text
    digest.completeness = Completeness(
        complete=False, missing=[MissingItem(number=1, what=text, reason=text)]
    )
    return digest


def _statements(digest: Digest) -> list[Statement]:
    n = digest.narrative
    return [*n.summary, *n.trends, *n.recommendations, *(i for g in n.key_changes for i in g.items)]


def _assert_html_safe(html: str) -> None:
    page = parse_page(html)
    assert page.errors == []
    assert "script" not in page.tags
    assert "at" not in page.tags
    assert "img" not in page.tags
    assert not any(name.startswith("on") for name, _ in page.attrs)
    assert not any(h.lower().lstrip().startswith("javascript:") for h in page.hrefs)
    assert "<!channel>" not in html
    assert "<at id=all></at>" not in html


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_is_escaped_in_html(text: str) -> None:
    for lang in LANGS:
        _assert_html_safe(render_html(hostile_digest(text, lang)))


# a Markdown link to javascript: (an escaped `\]` is text, not a link)
_JS_LINK = re.compile(r"(?<!\\)\]\(\s*javascript:", re.IGNORECASE)


def _markdown_to_html(markdown: str) -> str:
    markdown_it = pytest.importorskip("markdown_it")
    return str(
        markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)
    )


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_is_inert_once_the_markdown_is_rendered(text: str) -> None:
    markdown = render_markdown(hostile_digest(text, "en"))
    assert "<!channel>" not in markdown
    assert "<at id=all></at>" not in markdown
    assert not _JS_LINK.search(_strip_code(markdown))
    _assert_html_safe(_markdown_to_html(markdown))


def test_hostile_pipes_and_newlines_keep_the_table_shape() -> None:
    markdown = render_markdown(hostile_digest("a | b\n| c | d |\n\n# heading", "zh"))
    table = markdown.split("## 重点 PR 速览", 1)[1].split("\n\n")[1]
    rows = [line for line in table.splitlines() if line.startswith("| [#")]
    assert len(rows) == TOP_PRS_MARKDOWN
    rendered = _markdown_to_html(markdown)
    assert "<h1>heading</h1>" not in rendered


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(text=st.text(), lang=st.sampled_from(LANGS))
def test_any_text_renders_and_stays_escaped(text: str, lang: str) -> None:
    digest = hostile_digest(text, lang)
    markdown = render_markdown(digest)
    html = render_html(digest)
    _assert_html_safe(html)
    assert "<!channel>" not in markdown
    assert not _JS_LINK.search(_strip_code(markdown))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    text=st.text(
        alphabet=st.sampled_from(list("<>!&|[]()`*_#\\\n javscript:at=l/\"'")), max_size=60
    ),
)
def test_markup_heavy_text_never_escapes_into_html(text: str) -> None:
    digest = hostile_digest(f"{text}<script>{text}<!channel><at id=all></at>", "en")
    _assert_html_safe(render_html(digest))
    _assert_html_safe(_markdown_to_html(render_markdown(digest)))
