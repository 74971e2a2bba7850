"""The full report (Markdown, HTML, JSON) on real verl weeks: golden files, sections, links,
escaping of hostile PR text, and the HTML's structure."""

from __future__ import annotations

import functools
import gc
import os
import re
import sys
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.core.digest import build_digest
from service.core.mentions import risk_groups
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
from service.core.titles import parse_title
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
    """The ids the table of contents links (PR rows and risk items are anchors of their own)."""
    return {
        value
        for name, value in page.attrs
        if name == "id" and not value.startswith(("pr-", "risk-"))
    }


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
def test_markdown_links_every_pr_it_names(week: str, lang: str) -> None:
    digest = real_digest(week, lang)
    text = render_markdown(digest)
    for pr in digest.prs[:TOP_PRS_MARKDOWN]:
        assert f"[#{pr.number}]({_pr_url(digest, pr.number)})" in text
    # no bare `#N` PR reference is left unlinked, and no `##N` from a `#{number}` catalog
    assert not re.search(r"(?<![\[\w/&;`])#\d{3,}(?!\]\()", _strip_code(text))
    assert "#[#" not in text


@pytest.mark.parametrize(("lang", "label"), [("en", "**Upgrading:** "), ("zh", "**升级须知：**")])
def test_the_summary_opens_with_what_users_must_do_on_upgrading_labelled(
    lang: str, label: str
) -> None:
    """2025-W48's breaking PRs (#4352 moves modules, #4283 moves recipes out, #4211 changes
    defaults): the summary's first paragraph is their upgrade steps under one label, and the
    rest of the summary is a paragraph of its own."""
    text = render_markdown(real_digest("2025-W48", lang))
    summary = text.split("\n## ", 2)[1].split("\n\n")
    steps, rest = summary[1], summary[2]
    assert steps.startswith(label + "[#4352](")
    assert "[#4283](" in steps
    assert "[#4211](" in steps
    assert label not in rest
    assert "[#4352](" not in rest


def _strip_code(text: str) -> str:
    return re.sub(r"(`+).*?\1", "", text)


def test_markdown_table_lists_top_prs_and_names_the_rest() -> None:
    digest = real_digest("2025-W48", "zh")
    text = render_markdown(digest)
    table = text.split("## 重点 PR 速览", 1)[1].split("\n\n")[1]
    rows = [line for line in table.splitlines() if line.startswith("| [#")]
    assert len(rows) == TOP_PRS_MARKDOWN == 8 < len(digest.prs)  # the hand-written report's 8
    assert rows[0].startswith(f"| [#{digest.prs[0].number}]")
    assert f"| {digest.prs[0].score:.1f} |" in rows[0]
    assert all(row.count(" | ") == 3 for row in rows)  # 4 cells: pipes inside cells escaped
    rest = f"另有 {len(digest.prs) - TOP_PRS_MARKDOWN} 个 PR 未列入上表，全部 PR 见 HTML 报告。"
    assert rest in text
    after = text.split(rest, 1)[0].rsplit("\n", 2)[-1]
    assert "[#" not in after  # no list of bare numbers for the rest


def test_the_key_point_is_never_the_title() -> None:
    digest = real_digest("2026-W04", "en")
    text = render_markdown(digest)
    for pr in digest.prs[:TOP_PRS_MARKDOWN]:
        row = next(line for line in text.splitlines() if line.startswith(f"| [#{pr.number}]("))
        point = row.rsplit(" | ", 1)[1].removesuffix(" |")
        description = parse_title(pr.title).description
        assert description.lower() not in point.lower()
    # #4936's point is told from its facts, never a fragment of its body
    mtp = next(line for line in text.splitlines() if line.startswith("| [#4936]("))
    assert mtp.endswith(
        "| Adds 5 classes or functions, among them `patch_postprocess`, `unpatch_postprocess`. |"
    )
    assert "Currently, RL training" not in text.split("## Top PRs", 1)[1]


def test_html_table_names_each_prs_risks_beside_its_point() -> None:
    digest = real_digest("2026-W04", "en")
    html = render_html(digest)
    risky = next(p for p in digest.prs if p.risk_count)
    row = html.split(f'<tr id="pr-{risky.number}">', 1)[1].split("</tr>", 1)[0]
    assert " (risks: " in row
    calm = next(p for p in digest.prs if not p.risk_count)
    row = html.split(f'<tr id="pr-{calm.number}">', 1)[1].split("</tr>", 1)[0]
    assert "(risks:" not in row


def test_markdown_states_each_risk_item_once_with_its_prs_and_evidence() -> None:
    digest = real_digest("2025-W48", "en")
    text = render_markdown(digest)
    risks = text.split("## Risk watch", 1)[1].split("## Top PRs", 1)[0]
    groups = risk_groups(digest.risks)
    items = re.findall(r"^(\d+)\. \*\*(High|Medium|Low) · (.+?)\*\*", risks, flags=re.MULTILINE)
    assert [int(n) for n, _, _ in items] == list(range(1, len(groups) + 1))
    for (_, severity, _), group in zip(items, groups, strict=True):
        assert severity.lower() == group.severity.value
    blocks = re.split(r"^\d+\. ", risks, flags=re.MULTILINE)[1:]
    for block, group in zip(blocks, groups, strict=True):
        for number in group.prs:
            assert f"[#{number}](" in block
    shell = next(r for r in digest.risks if r.kind == RiskKind.UNSET_SHELL_VAR)
    ev = shell.evidence[0]
    assert f"`{ev.path}:{ev.line}`" in risks
    # a risk's recommendation is said once, in the recommendations, pointing at its item
    assert "Recommendation" not in risks
    recommendations = text.split("## Follow-up recommendations", 1)[1]
    assert "(risk watch: " in recommendations


def test_markdown_trends_are_one_table_one_topic_line_and_the_most_active() -> None:
    digest = real_digest("2026-W04", "en")
    text = render_markdown(digest)
    trends = text.split("## Module and topic trends", 1)[1].split("## Risk watch", 1)[0]
    assert trends.count("| Module | PRs |") == 1
    top = digest.trends.modules[0]
    assert top.delta is not None
    row = next(line for line in trends.splitlines() if line.startswith(f"| `{top.key}` |"))
    assert f"| {top.count} | {top.delta:+d} |" in row
    named = digest.narrative.module_table[0].prs
    assert all(f"[#{n}]" in row for n in named)
    assert f"and {top.count - len(named)} more" in row
    assert "vs Week 3, 2026" in trends  # the previous week, named in the language
    topics = [line for line in trends.splitlines() if line.startswith("By topic: ")]
    assert topics == [
        "By topic: Fixes 8 (-7), Features 7 (±0), Hardware and NPU 2 (+1), Performance and "
        "memory 2 (±0), Documentation 1 (-2), Infrastructure and CI 1 (-2), Refactoring and "
        "decoupling 1 (±0)."
    ]
    assert "most active: @Huazhong (2), ℍ𝕠𝕝𝕝𝕠𝕨 𝕄𝕒𝕟 (2)." in trends
    assert "By change type" not in text  # one taxonomy: the types live inside their topic


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
    assert digest.period == empty.period


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
    assert "`docs/run_0.sh:0`" in markdown
    assert "`docs/run_1.sh:1`" not in markdown
    html = render_html(one)
    folded = html.split("all 9 pieces of evidence (expand)</summary>", 1)[1].split("</details>")[0]
    for i in range(9):
        assert f"<code>docs/<wbr>run_{i}.sh:{i}</code>" in folded


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
    assert "adds a dangerous command (`pkill -9`) to `scripts/run.sh`, line 7" in texts["base"]
    assert "kills every matching process of the user" in texts["specific"]
    assert "adds a dangerous command (`pkill -9`)" in texts["unknown"]
    assert "`scripts/run.sh:7` `pkill -9 python`" in texts["specific"]


def test_html_shows_every_factor_of_every_pr_on_expand() -> None:
    digest = real_digest("2025-W48", "en")
    html = render_html(digest)
    assert html.count('<details><summary class="score"') == len(digest.prs)
    top = digest.prs[0]
    row = html.split(f'<tr id="pr-{top.number}">', 1)[1].split("</tr>", 1)[0]
    for factor in top.factors:
        if factor.points:
            assert f"<b>{factor.points:+g}</b>" in row
    assert "on a log scale" in row  # the size factor's catalog sentence


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
    # bars in HTML (labels keep their size on a phone, where a scaled SVG shrank them)
    assert html.count('<div class="bar-row"') == bars
    assert "svg" not in page.tags
    top = digest.trends.modules[0]
    assert f'title="{top.key}: {top.count}"' in html
    assert '<span class="bar" style="width: 100%">' in html
    assert f"<b>{digest.stats.prs}</b>" in html


@pytest.mark.parametrize("lang", LANGS)
def test_html_tables_stack_on_a_phone(lang: str) -> None:
    # every table stacks under 640 px, each cell after the first labelled with its column
    html = render_html(real_digest("2026-W04", lang))
    assert "@media (max-width: 640px)" in html
    assert html.count("<table") == html.count('<table class="stack">')
    row = html.split('<tr id="pr-4280">', 1)[1].split("</tr>", 1)[0]
    labels = [part.split('"', 1)[0] for part in row.split('data-label="')[1:]]
    assert len(labels) == 5  # importance, point, modules, author, lines; the PR and title lead


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


# --- roll-ups, evidence sides, what GitHub did not tell -------------------------------------


def _rollup(numbers: list[int]) -> Risk:
    members = [
        Risk(
            kind=RiskKind.CORE_WITHOUT_TESTS,
            severity=Severity.MEDIUM,
            prs=[n],
            params={"files": 2, "lines": 40, "top_path": f"verl/m{n}.py"},
            evidence=[
                Evidence(path=f"verl/m{n}.py", line=n % 97, snippet="def f():", side="added", pr=n),
                Evidence(path=f"verl/old{n}.py", line=7, snippet="def g():", side="removed", pr=n),
            ],
        )
        for n in numbers
    ]
    return Risk(
        kind=RiskKind.CORE_WITHOUT_TESTS, severity=Severity.MEDIUM, prs=numbers, members=members
    )


def test_a_roll_up_is_one_markdown_item_listing_its_prs_with_short_evidence() -> None:
    numbers = [4936, 5033, 4931, 4632, 4191]
    digest = real_digest("2026-W04", "en").model_copy(update={"risks": [_rollup(numbers)]})
    text = render_markdown(digest)
    risks = text.split("## Risk watch", 1)[1].split("## Top PRs", 1)[0]
    assert risks.count("\n1. ") == 1
    assert "\n2. " not in risks
    assert "**Medium · Core code changed without tests** (5 PRs)" in risks
    lines = [line.strip() for line in risks.splitlines() if line.startswith("   - ")]
    assert [re.match(r"- \[#(\d+)\]", line).group(1) for line in lines] == [  # type: ignore[union-attr]
        str(n) for n in numbers
    ]
    assert f"`verl/m4936.py:{4936 % 97}` (added line) `def f():`" in lines[0]
    assert "verl/old4936.py" not in risks  # one line of evidence per PR in the short report


def test_the_html_keeps_each_members_evidence_folded_with_its_side() -> None:
    numbers = [4936, 5033, 4931, 4632, 4191]
    digest = real_digest("2026-W04", "zh").model_copy(update={"risks": [_rollup(numbers)]})
    html = render_html(digest)
    item = html.split('id="risk-1"', 1)[1].split("</article>", 1)[0]
    assert item.count("<details><summary>全部 2 处证据（展开）</summary>") == len(numbers)
    for n in numbers:
        assert f"<code>verl/<wbr>m{n}.py:{n % 97}</code>（新增行）" in item
        assert f"<code>verl/<wbr>old{n}.py:7</code>（删除行）" in item


@pytest.mark.parametrize("lang", LANGS)
def test_what_github_did_not_tell_is_said_once(lang: str) -> None:
    digest = real_digest("2026-W04", lang)
    assert digest.unknown == ["reviews", "checks", "labels", "first_time"]
    note = {
        "zh": "数据说明：本周数据（录制的 verl 历史数据）没有评审记录、检查结果、标签与"
        "首次贡献信息",
        "en": "About the data: this week's data (recorded verl history) has no reviews, check "
        "results, labels and first-time contributor flags",
    }[lang]
    text = render_markdown(digest)
    assert text.count(note) == 1
    assert render_html(digest).count(note) == 1
    unknown = {"zh": "首次贡献：未知", "en": "first-time: unknown"}[lang]
    assert unknown in text
    told = digest.model_copy(update={"unknown": []})
    assert note not in render_markdown(told)


def test_html_table_cells_never_break_inside_a_word() -> None:
    html = render_html(real_digest("2026-W04", "zh"))
    css = html.split("<style>", 1)[1].split("</style>", 1)[0]
    # `break-all` let a narrow column split "feat" into "fea/t"; `anywhere` would do the same
    assert "break-all" not in css
    assert "anywhere" not in css
    assert re.search(r"th, td \{[^}]*word-break: normal; overflow-wrap: normal;", css)
    assert "td.label, th, .tag, .sev, .num-label { white-space: nowrap; }" in css
    # labels (categories, types, modules, PR numbers) sit in nowrap cells: a CJK label wraps whole
    assert '<td class="label">硬件与 NPU</td>' in html
    assert re.search(r'<td class="label"( data-label="[^"]*")?>功能 1、修复 1</td>', html)
    assert '<td class="label"><code>rollout</code></td>' in html
    # a long path may wrap only after a folder's slash
    assert "<code>verl/<wbr>models/<wbr>mcore/<wbr>mtp_patch.py</code>" in html


def test_people_are_logins_with_their_name_beside() -> None:
    zh = render_markdown(real_digest("2025-W48", "zh"))
    assert "@yyDing1（Yuyang Ding，4 个）" in zh  # the name says more than the login
    assert "@Chi-Zhang（6 个）" in zh  # "Chi Zhang" only respells the login
    html = render_html(real_digest("2025-W48", "en"))
    assert "@yyDing1 (Yuyang Ding): " in html
    assert "ℍ𝕠𝕝𝕝𝕠𝕨 𝕄𝕒𝕟: " in html  # no login in git history: the name, without an @


@pytest.mark.parametrize("render", [render_markdown, render_html])
def test_a_rendered_report_keeps_no_hold_on_its_digest(render: Callable[[Digest], str]) -> None:
    """The render's jinja contexts (its own, its imports' `with context`) sit in reference
    cycles with their macros: emptied after the render, none of them keeps the digest alive
    until a full collection (gc disabled meanwhile, so no collection frees it here), and a
    second render in the same process reads the same."""
    digest = real_digest("2026-W04", "en")
    first = render(digest)
    gc.collect()
    gc.disable()
    try:
        held = sys.getrefcount(digest)
        again = render(digest)
        assert sys.getrefcount(digest) == held
    finally:
        gc.enable()
    assert again == first
