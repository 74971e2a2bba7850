"""Feishu cards: real verl weeks and a 2,000-PR week fit the documented limits in zh and en,
the header follows the worst risk, the buttons carry their callbacks, hostile text is inert."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from service.commands.answer import (
    Caller,
    EngineContext,
    answer_failure,
    answer_text,
)
from service.core.digest import build_digest
from service.core.models import Digest, Evidence, Risk, RiskKind, Severity
from service.core.profile import load_profile
from service.render import escape
from service.render.feishu import render_answer, render_digest
from service.render.feishu_limits import (
    FEISHU,
    Via,
    app_message_body,
    feishu_violations,
    fit_feishu,
    iter_components,
    webhook_body,
    worst_case_body,
)
from service.store.repository import Store
from tests.conftest import NOW, load_week
from tests.feishu.builders import WEEK_LABELS, big_digest, real_digest

LANGS = ("zh", "en")
VIAS: tuple[Via, ...] = ("app", "webhook")
URL = "http://reports.test/reports/volcengine/verl/2026-W04"
HOSTILE = [
    "<at id=all></at>",
    '<at user_id="ou_boss">boss</at>',
    "[x](https://evil.example)",
    '<a href="https://evil.example">x</a>',
    "**bold** __under__ ~~gone~~ `code`",
    "# heading",
    "https://evil.example/autolink",
    ":DONE: <font color='red'>red</font>",
]


def markdown_of(card: dict[str, Any]) -> list[str]:
    return [c["content"] for c in iter_components(card) if c.get("tag") == "markdown"]


@pytest.fixture(scope="module")
def digests() -> dict[tuple[str, str], Digest]:
    return {
        (label, lang): real_digest(label, language=lang) for label in WEEK_LABELS for lang in LANGS
    }


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("label", WEEK_LABELS)
def test_real_weeks_fit_both_deliveries(
    digests: dict[tuple[str, str], Digest], label: str, lang: str
) -> None:
    digest = digests[(label, lang)]
    for via in ("app", "webhook"):
        card = render_digest(digest, report_url=URL, lang=lang, via=via)
        assert feishu_violations(card, via=via) == []
        assert card["schema"] == "2.0"
        assert card["config"] == {"update_multi": True}
        assert "_priority" not in json.dumps(card)
    text = "\n".join(markdown_of(card))
    top = max(digest.prs, key=lambda p: (p.score, -p.number))
    assert f"#{top.number}" in text
    assert str(digest.stats.prs) in text


def test_header_colour_follows_the_worst_risk(digests: dict[tuple[str, str], Digest]) -> None:
    digest = digests[("2025-W48", "zh")]
    assert any(r.severity is Severity.HIGH for r in digest.risks)
    assert render_digest(digest, report_url=URL, lang="zh")["header"]["template"] == "red"
    medium = digest.model_copy(
        update={"risks": [r for r in digest.risks if r.severity is not Severity.HIGH]}
    )
    assert render_digest(medium, report_url=URL, lang="zh")["header"]["template"] == "orange"
    calm = digest.model_copy(update={"risks": []})
    assert render_digest(calm, report_url=URL, lang="zh")["header"]["template"] == "green"


def test_buttons_open_the_report_and_call_back(digests: dict[tuple[str, str], Digest]) -> None:
    card = render_digest(digests[("2026-W04", "zh")], report_url=URL, lang="zh")
    buttons = [c for c in iter_components(card) if c.get("tag") == "button"]
    texts = [b["text"]["content"] for b in buttons]
    assert texts == ["完整报告", "风险列表", "重新生成"]
    behaviours = [b["behaviors"][0] for b in buttons]
    assert behaviours[0] == {"type": "open_url", "default_url": URL}
    assert behaviours[1]["value"] == {
        "verb": "risks",
        "repo": "volcengine/verl",
        "period": "2026-W04",
    }
    assert behaviours[2]["value"]["verb"] == "regenerate"


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGS)
def test_a_2000_pr_week_fits_both_limits(lang: str) -> None:
    digest = big_digest(2000, language=lang)
    assert len(digest.prs) == 2000
    assert len(digest.risks) > 100
    limits: list[tuple[Via, int]] = [
        ("app", FEISHU.app_message_body_bytes),
        ("webhook", FEISHU.webhook_body_bytes),
    ]
    for via, limit in limits:
        card = render_digest(digest, report_url=URL, lang=lang, via=via)
        assert feishu_violations(card, via=via) == []
        assert len(worst_case_body(card, via)) <= limit
        assert sum(1 for _ in iter_components(card)) <= FEISHU.card_elements


def hostile_digest() -> Digest:
    digest = big_digest(60, titles=HOSTILE)
    prs = [p.model_copy(update={"author": "<at id=all></at>"}) for p in digest.prs]
    prs[0] = prs[0].model_copy(update={"title": "<at id=all></at>" + "x" * 100_000, "score": 10.0})
    risk = Risk(
        kind=RiskKind.DANGEROUS_COMMAND,
        rule="",
        severity=Severity.HIGH,
        prs=[prs[0].number],
        evidence=[Evidence(path="[x](https://evil.example)", line=1, snippet="<at id=all></at>")],
        params={
            "command": "<at id=all></at> rm -rf / **now**",
            "path": "[x](https://evil)",
            "line": 1,
            "pattern": "**x**",
            "count": 1,
            "files": 1,
            "lines": 1,
            "top_path": "<at id=all></at>",
            "names": "**bold**",
            "targets": "[x](https://evil)",
        },
    )
    return digest.model_copy(update={"prs": prs, "risks": [risk, *digest.risks]})


def assert_inert(text: str) -> None:
    assert "<at" not in text
    assert "</at>" not in text
    assert "<a " not in text
    assert "<font" not in text
    assert "](https://evil" not in text
    assert "https://evil" not in text  # no autolink either: ':' and '/' are entities
    assert "__under__" not in text
    assert "~~gone~~" not in text
    assert "`code`" not in text
    assert ":DONE:" not in text
    # The only ** left are the catalog's own bold markers around trusted text.
    assert "**bold**" not in text
    assert "**now**" not in text


def test_hostile_titles_are_inert_in_the_weekly_card() -> None:
    for via in ("app", "webhook"):
        card = render_digest(hostile_digest(), report_url=URL, lang="zh", via=via)
        assert feishu_violations(card, via=via) == []
        for text in markdown_of(card):
            assert_inert(text)


def test_hostile_answers_are_inert(tmp_path: Any) -> None:
    store = Store.open(f"sqlite:///{tmp_path}/h.db")
    store.save_digest(hostile_digest())
    ctx = EngineContext(
        reader=store,
        repos=["volcengine/verl"],
        language="zh",
        timezone="Asia/Shanghai",
        clock=lambda: NOW,
        report_url=lambda r, w: f"http://reports.test/reports/{r}/{w}",
    )
    number = hostile_digest().prs[0].number
    for text in [
        "risks 2026-W04",
        f"pr {number} 2026-W04",
        "top 10 2026-W04",
        "<at id=all></at> [x](https://evil.example) **bold**",
    ]:
        reply = answer_text(text, Caller("ou_x", "feishu", "oc_1"), ctx)
        card = render_answer(reply, "zh")
        assert feishu_violations(card, via="app") == []
        for content in markdown_of(card):
            assert_inert(content)


def test_feishu_text_escapes_every_markdown_and_tag_character() -> None:
    escaped = escape.feishu_text("<at id=all></at> [x](https://e) **b** _i_ ~s~ `c` | t\n2. x")
    bare = re.sub(r"&#\d+;", "", escaped)
    assert re.search(r"[<>\[\]*_~`|&]", bare) is None
    assert "://" not in bare
    assert "\n" not in escaped
    assert escape.feishu_text("1. first") == "&#49;&#46; first"
    assert escape.feishu_text("# not a heading") == "&#35; not a heading"
    assert escape.feishu_text(":DONE: ok") == "&#58;DONE: ok"
    assert escape.feishu_text("AT&T &amp;") == "AT&#38;T &#38;amp;"
    assert escape.feishu_text("a\u200bb") == "ab"


def test_feishu_text_keeps_ordinary_titles_readable() -> None:
    title = "[trainer] feat: support x-y (v0.4.1), see #12"
    assert escape.feishu_text(title) == "&#91;trainer&#93; feat: support x-y (v0.4.1), see #12"


def _card(*elements: dict[str, Any]) -> dict[str, Any]:
    return {
        "schema": "2.0",
        "config": {"update_multi": True},
        "header": {"title": {"tag": "plain_text", "content": "t"}, "template": "red"},
        "body": {"elements": list(elements)},
    }


def test_fit_drops_least_important_elements_first() -> None:
    lines = "\n".join(f"line {i} " + "字" * 200 for i in range(60))
    card = _card(
        {"tag": "markdown", "content": "keep"},
        {"tag": "markdown", "content": lines, "_priority": 1},
        {"tag": "markdown", "content": "mid", "_priority": 2},
        {"tag": "markdown", "content": "head"},
    )
    fitted = fit_feishu(card, via="webhook", more_url=URL)
    assert [e["content"] for e in fitted["body"]["elements"]] == ["keep", "mid", "head"]


def test_fit_cuts_long_text_line_by_line_once_nothing_optional_is_left() -> None:
    lines = "\n".join(f"line {i} " + "字" * 200 for i in range(60))
    card = _card(
        {"tag": "markdown", "content": "keep"},
        {"tag": "markdown", "content": "mid", "_priority": 2},
        {"tag": "markdown", "content": "head\n" + lines},
    )
    fitted = fit_feishu(card, via="webhook", more_url=URL)
    contents = [e["content"] for e in fitted["body"]["elements"]]
    assert contents[0] == "keep"
    assert len(contents) == 2
    assert contents[1].startswith("head\nline 0 ")
    assert contents[1].endswith("\n…")
    assert feishu_violations(fitted, via="webhook") == []


def test_a_card_that_cannot_shrink_falls_back_to_the_report_link() -> None:
    card = _card({"tag": "markdown", "content": "字" * 20_000})
    fitted = fit_feishu(card, via="app", more_url=URL, more_text="more")
    assert fitted["body"]["elements"] == [{"tag": "markdown", "content": f"[more]({URL})"}]


def test_bodies_count_the_card_string_inside_the_json() -> None:
    card = {"schema": "2.0", "body": {"elements": [{"tag": "markdown", "content": '"引号"'}]}}
    app = app_message_body(card, receive_id="oc_1", uuid="u")
    hook = webhook_body(card, timestamp="1", sign="s")
    assert json.loads(json.loads(app)["content"]) == card
    assert json.loads(hook)["card"] == card
    assert len(app) > len(hook)  # the quotes of the inner JSON are escaped again
    assert "引号".encode() in app  # UTF-8, 3 bytes a character, not \\u escapes


@pytest.mark.parametrize("lang", LANGS)
def test_every_answer_kind_renders(tmp_path: Any, lang: str) -> None:
    store = Store.open(f"sqlite:///{tmp_path}/a.db")
    for label in WEEK_LABELS:
        store.save_digest(real_digest(label, language=lang))
    ctx = EngineContext(
        reader=store,
        repos=["volcengine/verl"],
        language=lang,
        timezone="Asia/Shanghai",
        clock=lambda: NOW,
        admins=frozenset({"ou_admin"}),
        report_url=lambda r, w: f"http://reports.test/reports/{r}/{w}",
    )
    kinds = set()
    for text in [
        "help",
        "risks",
        "risks high 2025-W48",
        "pr 4352",
        "pr 1",
        "top 3",
        "summary",
        "trends",
        "week 2025-W48",
        "regenerate",
        "bogus",
        "risks 2030-W01",
    ]:
        reply = answer_text(text, Caller("ou_x", "feishu", "oc_1"), ctx)
        card = render_answer(reply, lang)
        kinds.add(reply.kind)
        assert feishu_violations(card, via="app") == [], text
        assert markdown_of(card), text
    failure = render_answer(answer_failure("abc"), lang)
    assert "abc" in json.dumps(failure, ensure_ascii=False)
    assert len(kinds) >= 10


def hostile_week_digest(lang: str) -> Digest:
    """The real pipeline over a real week whose titles are hostile and bodies are 100 kB."""
    week = load_week("2026-W04")
    body = ("<at id=all></at> [x](https://evil.example) **bold** " * 2000)[:100_000]
    prs = [
        pr.model_copy(update={"title": f"{HOSTILE[i % len(HOSTILE)]} {pr.title}", "body": body})
        for i, pr in enumerate(week.prs)
    ]
    hostile = week.model_copy(update={"prs": prs})
    return build_digest(hostile, load_profile(week.repo), language=lang, now=NOW)


@pytest.mark.parametrize("lang", LANGS)
def test_hostile_week_through_the_real_pipeline_is_inert(lang: str) -> None:
    digest = hostile_week_digest(lang)
    assert digest.narrative.summary
    for via in VIAS:
        card = render_digest(digest, report_url=URL, lang=lang, via=via)
        assert feishu_violations(card, via=via) == []
        for text in markdown_of(card):
            assert_inert(text)


@pytest.mark.parametrize("lang", LANGS)
def test_an_empty_week_renders(lang: str) -> None:
    week = load_week("2026-W04").model_copy(update={"prs": []})
    digest = build_digest(week, load_profile(week.repo), language=lang, now=NOW)
    card = render_digest(digest, report_url=URL, lang=lang)
    assert feishu_violations(card, via="app") == []
    assert card["header"]["template"] == "green"
    assert any("0" in text for text in markdown_of(card))
