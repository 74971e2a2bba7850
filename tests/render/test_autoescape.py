"""Autoescape, the second line of defence behind the per-target filters: the web pages'
templates escape a value a template forgets to filter, and escape a filtered one only once; the
report's templates are not autoescaped yet (test_report.py's golden files are unchanged)."""

from __future__ import annotations

import jinja2
import pytest

from service.render.environment import environment, is_autoescaped, render

HOSTILE = "<script>alert('x')</script> & \"q\""


def _probe(name: str) -> jinja2.Template:
    loader = jinja2.DictLoader({name: "{{ x }}|{{ x | html_text }}"})
    return environment().overlay(loader=loader).get_template(name)


def test_a_web_page_escapes_an_unfiltered_value_and_a_filtered_one_once() -> None:
    out = _probe("web/probe.html.j2").render(x=HOSTILE)
    unfiltered, filtered = out.split("|")
    assert "<script>" not in unfiltered
    assert unfiltered == "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &#34;q&#34;"
    assert filtered == "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &quot;q&quot;"


@pytest.mark.parametrize(
    ("name", "escaped"),
    [
        ("web/reports.html.j2", True),
        ("web/not_found.html.j2", True),
        ("report/report.html.j2", False),
        ("report/report.md.j2", False),
        ("slack/digest.json.j2", False),
        (None, False),
    ],
)
def test_which_templates_autoescape(name: str | None, escaped: bool) -> None:
    assert is_autoescaped(name) is escaped


def test_not_found_page_escapes_a_hostile_repository_name_once() -> None:
    page = render("web/not_found.html.j2", "en", repo=HOSTILE, weeks=["2026-W04"], repos=[HOSTILE])
    assert "<script>" not in page
    assert "&amp;lt;" not in page  # not escaped twice
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
