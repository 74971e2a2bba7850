"""Escaping of untrusted text for the full report: md_text, md_cell, md_code, html_text, URLs."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.render import escape
from service.render.escape import (
    clean_text,
    html_text,
    md_cell,
    md_code,
    md_text,
    md_url,
    one_line,
    safe_url,
    slack_text,
    truncate,
)

TAGS = re.compile(r"<\s*/?\s*[A-Za-z!@]")


def _markdown_to_html(markdown: str) -> str:
    markdown_it = pytest.importorskip("markdown_it")
    parser = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table")
    return str(parser.render(markdown))


# --- md_text ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("<script>alert(1)</script>", "&lt;script>alert(1)&lt;/script>"),
        ("> quoted", "\\> quoted"),
        (">>nested", "\\>>nested"),
        ("[x](javascript:alert(1))", "\\[x\\](javascript:alert(1))"),
        ("a | b", "a \\| b"),
        ("line one\nline two\r\n\n- three", "line one line two - three"),
        ("**bold** and `code`", "\\*\\*bold\\*\\* and \\`code\\`"),
        ("# heading", "\\# heading"),
        ("- item", "\\- item"),
        ("1. first", "1\\. first"),
        ("_emph_", "\\_emph\\_"),
        ("&amp; stays visible", "&amp;amp; stays visible"),
    ],
)
def test_md_text_neutralises_markup(raw: str, escaped: str) -> None:
    assert md_text(raw) == escaped


@pytest.mark.parametrize(
    "plain",
    [
        "fix: wire up sum_pi_squared for optimal_token_baseline",
        "bump vllm to 0.11 (+2 fixes) & sglang",
        "PR #6091 uses 1x + buffer_size",
        "BREAKING change: rollout 2.0",
        "requires tensorrt-llm>=1.2.0rc6 when data_parallel_size > 1",
    ],
)
def test_md_text_leaves_ordinary_titles_readable(plain: str) -> None:
    assert md_text(plain) == plain


def test_md_text_drops_zero_width_and_control_characters() -> None:
    assert md_text("ab\u200bc\u202e\x07d\ufeff") == "abcd"


def test_md_cell_keeps_a_table_row_one_row() -> None:
    cell = md_cell("a | b\n| c | d |\n\n# heading")
    row = f"| 1 | {cell} |"
    rendered = _markdown_to_html(f"| x | y |\n|---|---|\n{row}\n")
    assert rendered.count("<tr>") == 2
    assert rendered.count("<td>") == 2
    assert "<h1>" not in rendered


# --- md_code ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("pkill -9 python", "`pkill -9 python`"),
        ("echo `date`", "`` echo `date` ``"),
        ("`x`", "`` `x` ``"),
        ("a | b", "`a \\| b`"),
        ("trainer.nnodes=$ARNOLD_WORKER_NUM \\", "`trainer.nnodes=$ARNOLD_WORKER_NUM \\`"),
        ("cmd 2>&1 | tee log", "`cmd 2>&1 \\| tee log`"),
        ("", ""),
    ],
)
def test_md_code_wraps_text_in_a_long_enough_fence(raw: str, code: str) -> None:
    assert md_code(raw) == code


@pytest.mark.parametrize("raw", ["<script>x</script>", "<!channel>", "<at id=all></at>", "<@U1>"])
def test_md_code_with_tag_like_text_is_written_as_escaped_text(raw: str) -> None:
    out = md_code(raw)
    assert "<" not in out
    assert out == md_text(raw)


def test_md_code_shows_its_content_literally_once_rendered() -> None:
    snippet = "[x](javascript:alert(1)) **b** _i_"
    rendered = _markdown_to_html(md_code(snippet))
    assert f"<code>{html.escape(snippet, quote=False)}</code>" in rendered
    assert "<a " not in rendered


# --- html_text and URLs -------------------------------------------------------------------


def test_html_text_escapes_tags_and_quotes() -> None:
    assert html_text('<a href="x">\'') == "&lt;a href=&quot;x&quot;&gt;&#x27;"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "https://github.com/volcengine/verl/pull/6091",
            "https://github.com/volcengine/verl/pull/6091",
        ),
        ("http://localhost:8080/reports/x", "http://localhost:8080/reports/x"),
        ("javascript:alert(1)", "F"),
        (" JavaScript:alert(1)", "F"),
        ("data:text/html,<script>", "F"),
        ("https://ex.org/a b", "F"),
        ('https://ex.org/"onmouseover="x', "F"),
        ("//ex.org/x", "F"),
        ("", "F"),
    ],
)
def test_safe_url_accepts_only_absolute_http_urls(url: str, expected: str) -> None:
    assert safe_url(url, "F") == expected


def test_md_url_encodes_what_ends_a_markdown_link() -> None:
    assert md_url("https://ex.org/a_(b)<c>") == "https://ex.org/a_%28b%29%3Cc%3E"


def test_slack_text_is_unchanged_by_the_report_helpers() -> None:
    assert slack_text("<!channel> & <@U1>") == "&lt;!channel&gt; &amp; &lt;@U1&gt;"


def test_truncate_and_one_line() -> None:
    assert truncate("short", 10) == "short"
    assert truncate("one two three four", 16) == "one two three…"
    assert len(truncate("x" * 500, 100)) == 100
    assert one_line(" a\n\tb  c ") == "a b c"
    assert clean_text("a\u200db") == "ab"


# --- properties ---------------------------------------------------------------------------


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text())
def test_md_text_is_one_line_without_raw_tags(text: str) -> None:
    out = md_text(text)
    assert "\n" not in out
    assert "\r" not in out
    assert "<" not in out  # so a `>` left readable closes no tag
    assert not out.startswith(">")  # and opens no quote
    assert not re.search(r"(?<!\\)\|", out)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    st.text(
        alphabet=st.sampled_from(list("<>[]()!`*_|#-+=\\ \nabcjvscript:at=/\"'&;1.")), max_size=80
    )
)
def test_markup_never_survives_markdown_rendering(text: str) -> None:
    payload = f"{text}<script>x</script>[y](javascript:alert(1)){text}"
    for out in (md_text(payload), md_code(payload)):
        rendered = _markdown_to_html(f"prefix {out}")
        assert "<script" not in rendered
        assert "<a " not in rendered
        assert "<img" not in rendered


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text())
def test_html_text_leaves_no_tag_or_quote(text: str) -> None:
    out = html_text(text)
    assert not TAGS.search(out)
    assert '"' not in out
    assert "'" not in out


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text())
def test_safe_url_returns_an_http_url_or_the_fallback(text: str) -> None:
    out = safe_url(text, "F")
    assert out == "F" or (
        out.startswith(("http://", "https://")) and not any(c.isspace() for c in out)
    )


SPOOFERS = "\u2066\u2067\u2068\u2069\u061c\u00ad\u180e\u3164\U000e0001\U000e0041\U000e007f"


@pytest.mark.parametrize(
    "target", [escape.slack_text, escape.md_text, escape.html_text, escape.feishu_text]
)
def test_bidi_isolates_fillers_and_tag_characters_are_dropped_for_every_target(
    target: Callable[[str], str],
) -> None:
    out = target(f"fix{SPOOFERS} ok \u26a0\ufe0f")
    assert not any(ch in out for ch in SPOOFERS)
    assert "fix" in out
    assert "\u26a0\ufe0f" in out  # an emoji's variation selector is not a spoofer


def test_json_inert_escapes_invisible_characters_and_keeps_the_data() -> None:
    data = {"title": f"a{SPOOFERS}b", "nested": [f"\u202e{SPOOFERS}"]}
    text = escape.json_inert(json.dumps(data, ensure_ascii=False))
    assert not any(ch in text for ch in SPOOFERS)
    assert "\\u2066" in text
    assert json.loads(text) == data
