"""Autoescape, the second line of defence behind the per-target filters: the HTML templates (web
pages, the report page and its macros) escape a value a template forgets to filter, and escape
a filtered one only once; the HTML built in Python (the Speaker, catalog sentences with links)
comes in as Markup, so the report is byte for byte what it was (test_report.py's golden files);
cards and Markdown do not autoescape (they have escaping of their own)."""

from __future__ import annotations

import jinja2
import pytest
from markupsafe import Markup

from service.core.models import (
    Analysis,
    AnalysisItem,
    Completeness,
    Contributor,
    Digest,
    Evidence,
    Factor,
    MissingItem,
    TrendBucket,
)
from service.render import escape
from service.render.environment import (
    HtmlSpeaking,
    environment,
    html_sentences,
    is_autoescaped,
    render,
    translator,
)
from service.render.report import render_html
from service.render.speaker import HTML, Speaker
from tests.render.test_report import parse_page, real_digest

HOSTILE = "<script>alert('x')</script> & \"q\""


def _probe(name: str) -> jinja2.Template:
    loader = jinja2.DictLoader({name: "{{ x }}|{{ x | html_text }}"})
    return environment().overlay(loader=loader).get_template(name)


@pytest.mark.parametrize("name", ["web/probe.html.j2", "report/probe.html.j2"])
def test_an_html_template_escapes_an_unfiltered_value_and_a_filtered_one_once(name: str) -> None:
    out = _probe(name).render(x=HOSTILE)
    unfiltered, filtered = out.split("|")
    assert "<script>" not in unfiltered
    assert unfiltered == "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &#34;q&#34;"
    assert filtered == "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &quot;q&quot;"


@pytest.mark.parametrize(
    ("name", "escaped"),
    [
        ("web/reports.html.j2", True),
        ("web/not_found.html.j2", True),
        ("report/report.html.j2", True),
        ("report/base.html.j2", True),
        ("report/_html.j2", True),
        ("report/_analysis_html.j2", True),
        ("report/report.md.j2", False),
        ("report/_md.j2", False),
        ("report/_analysis_md.j2", False),
        ("text/risks.md.j2", False),
        ("slack/digest.json.j2", False),
        ("feishu/digest.json.j2", False),
        ("prompts/en/user.txt.j2", False),
        (None, False),
    ],
)
def test_which_templates_autoescape(name: str | None, escaped: bool) -> None:
    assert is_autoescaped(name) is escaped


def test_not_found_page_escapes_a_hostile_repository_name_once() -> None:
    page = render(
        "web/not_found.html.j2", "en", repo=HOSTILE, periods=["2026-W04"], repos=[HOSTILE]
    )
    assert "<script>" not in page
    assert "&amp;lt;" not in page  # not escaped twice
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page


def test_a_sentence_escapes_its_text_parameters_and_keeps_its_markup_ones() -> None:
    t = html_sentences(translator("en"))
    link = Markup('<a href="https://x.example/1">#1</a>')
    sentence = t("report.with_prs", sentence=HOSTILE, prs=link)
    assert isinstance(sentence, Markup)
    assert escape.html_text(HOSTILE) in sentence
    assert str(link) in sentence
    assert "<script>" not in sentence
    assert t("report.trends.type_count", name="feat", count=1) == translator("en").t(
        "report.trends.type_count", name="feat", count=1
    )  # numbers stay numbers (`count == 1` still picks the `_one` sentence)


def test_the_html_speaker_says_markup_but_a_url_or_the_digest_is_not_marked() -> None:
    digest = real_digest("2026-W04", "en")
    number = digest.prs[0].number
    s = HtmlSpeaking(Speaker(digest, translator("en"), HTML), frozenset({"pr_url"}))
    assert isinstance(s.pr_link(number), Markup)
    assert s.pr_link(number).startswith("<a href=")
    assert all(isinstance(r, Markup) for g in s.risk_groups() for r in s.recommendations(g))
    assert not isinstance(s.pr_url(number), Markup)
    assert s.digest is digest


# --- hostile PR text through every field of the report page ------------------------------


def hostile(field: str) -> str:
    """A value that shows, escaped once, which field it came through (no `/`, `#` or backtick,
    which the renderers turn into a line break opportunity, a link or code)."""
    return f"<i title=\"{field}\" onclick='x'>{field} &amp; <b>{field}"


def _once(field: str) -> str:
    return escape.html_text(hostile(field))


DETERMINISTIC_FIELDS = (
    "repo",
    "timezone",
    "moved_from",
    "title",
    "gist",
    "author",
    "module",
    "evidence_path",
    "evidence_snippet",
    "risk_param",
    "factor_reason",
    "trend_module",
    "trend_label",
    "trend_category",
    "contributor",
    "contributor_name",
    "missing_what",
    "missing_reason",
)
MODEL_FIELDS = ("model_name", "model_text", "model_theme")


def _hostile_report(lang: str) -> Digest:
    digest = real_digest("2026-W04", lang).model_copy(deep=True)
    digest.repo, digest.timezone = hostile("repo"), hostile("timezone")
    digest.moved_from = [hostile("moved_from")]
    first, second = digest.prs[0], digest.prs[1]
    first.title, first.gist, first.modules = hostile("title"), hostile("gist"), [hostile("module")]
    second.author = hostile("author")
    first.factors.append(Factor(name="hostile", points=1, reason=hostile("factor_reason")))
    risk = digest.risks[0]
    risk.evidence.append(Evidence(path=hostile("evidence_path"), line=1))
    risk.evidence.append(Evidence(path="a.py", line=2, snippet=hostile("evidence_snippet")))
    risk.params = {
        k: hostile("risk_param") if isinstance(v, str) else v for k, v in risk.params.items()
    }
    trends = digest.trends
    trends.modules[0].key = hostile("trend_module")
    trends.labels = [TrendBucket(key=hostile("trend_label"), count=1, prs=[first.number])]
    trends.categories[0].key = hostile("trend_category")
    trends.contributors[0] = Contributor(
        login=hostile("contributor"), name=hostile("contributor_name"), prs=[first.number]
    )
    digest.completeness = Completeness(
        complete=False,
        missing=[
            MissingItem(number=None, what=hostile("missing_what"), reason=hostile("missing_reason"))
        ],
    )
    return digest


def _with_hostile_analysis(digest: Digest) -> Digest:
    numbers = [p.number for p in digest.prs]
    items = [
        AnalysisItem(text=f"{hostile('model_text')} {n}", prs=[n], theme=hostile("model_theme"))
        for n in numbers[:6]
    ]
    analysis = Analysis(
        model=hostile("model_name"),
        prompt_version="1",
        language=digest.language,
        headline=items[0],
        summary=items[:2],
        # every kept sentence is shown once: key changes of their own, not the summary's again
        key_changes=items[3:6],
        trends=items[:1],
        recommendations=items[:1],
        review_notes=items[:1],
    )
    return digest.model_copy(update={"analysis": analysis})


def _assert_each_field_escaped_once(page: str, fields: tuple[str, ...]) -> None:
    assert "<i title=" not in page  # no value came through raw
    assert "&amp;lt;" not in page  # nor escaped twice
    assert "&amp;quot;" not in page
    assert "&amp;amp; &amp;lt;b" not in page
    missing = [field for field in fields if _once(field) not in page]
    assert missing == []
    parsed = parse_page(page)
    assert parsed.errors == []
    assert "i" not in parsed.tags
    assert not any(name.startswith("on") for name, _ in parsed.attrs)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_hostile_text_in_every_field_reaches_the_report_page_escaped_exactly_once(
    lang: str,
) -> None:
    page = render_html(_hostile_report(lang))
    # a report tells each PR's point from its facts, in either language: no body text (gist)
    fields = tuple(f for f in DETERMINISTIC_FIELDS if f != "gist")
    assert _once("gist") not in page
    _assert_each_field_escaped_once(page, fields)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_hostile_model_text_reaches_the_report_page_escaped_exactly_once(lang: str) -> None:
    page = render_html(_with_hostile_analysis(_hostile_report(lang)))
    _assert_each_field_escaped_once(page, MODEL_FIELDS)
