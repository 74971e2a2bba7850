"""Words per kind of period (templates/strings/<lang>/periods.toml, render/strings.py): a month's
digest and its cards say 本月 / this month where a week's say 本周 / this week, a range's say
本期 / this period, in every format and both languages, on the recorded January weeks; a week
rendered afterwards (or alongside, in another thread) keeps the week's words. The goldens pin
the week's and the month's outputs byte for byte."""

from __future__ import annotations

import functools
import re
from concurrent.futures import ThreadPoolExecutor

import pytest

from service.commands.kinds import AnswerKind, DigestViewAnswer
from service.core.digest import build_digest
from service.core.models import Digest
from service.core.periods import period_of_label
from service.core.profile import load_profile
from service.pipeline.recorded import within
from service.render import feishu, slack
from service.render.environment import period_label, templates_dir
from service.render.formats import render_format
from service.render.strings import load_catalog
from tests.conftest import NOW, load_week

REPO = "volcengine/verl"
TZ = "Asia/Shanghai"
FORMATS = ("markdown", "html", "slack", "feishu")
# the week's words, anywhere but in the product's name and in ids (`verl-week`, `verl_week_…`,
# the `"week":` key of button values)
WEEK_WORDS = re.compile(r"本周|上周|周报|周环比|(?<![-_\"])\b[Ww]eek(?:ly)?\b(?!\")")
SCALED = {
    ("2026-01", "zh"): ("本月", "较上月", "月报"),
    ("2026-01", "en"): ("this month", "vs last month", "monthly digest"),
    ("2026-01-12..2026-01-25", "zh"): ("本期", "较上期"),
    ("2026-01-12..2026-01-25", "en"): ("this period", "vs the previous period"),
}


@functools.cache
def digest_of(label: str, lang: str) -> Digest:
    w03, w04 = load_week("2026-W03"), load_week("2026-W04")
    january = w04.model_copy(update={"prs": [*w03.prs, *w04.prs]})
    return build_digest(
        within(january, period_of_label(label, TZ)), load_profile(REPO), language=lang, now=NOW
    )


def _render(digest: Digest, fmt: str, lang: str) -> str:
    return render_format(digest, fmt, lang, report_url="http://reports.test/r")


@pytest.mark.parametrize(("label", "lang"), list(SCALED))
def test_months_and_ranges_are_told_in_their_own_words(label: str, lang: str) -> None:
    digest = digest_of(label, lang)
    outputs = {fmt: _render(digest, fmt, lang) for fmt in FORMATS}
    for fmt, text in outputs.items():
        assert WEEK_WORDS.findall(text) == [], (fmt, WEEK_WORDS.findall(text)[:3])
    markdown = outputs["markdown"]
    for words in SCALED[(label, lang)]:
        assert words in markdown, words
    assert period_label(label, lang) in markdown.splitlines()[0]
    # the report's hint names the period: `risks` alone would answer about the newest week
    assert f"/verl-week risks {label}" in markdown
    assert f"/verl-week risks {label}" in outputs["html"]


def test_a_week_keeps_its_words_after_and_beside_a_month() -> None:
    week = build_digest(load_week("2026-W04"), load_profile(REPO), language="zh", now=NOW)
    before = _render(week, "markdown", "zh")
    assert "本周" in before
    _render(digest_of("2026-01", "zh"), "markdown", "zh")
    assert _render(week, "markdown", "zh") == before
    with ThreadPoolExecutor(4) as pool:  # a month and a week told at once, in other threads
        months = [pool.submit(_render, digest_of("2026-01", "zh"), "slack", "zh") for _ in range(4)]
        weeks = [pool.submit(_render, week, "markdown", "zh") for _ in range(4)]
        assert all(w.result() == before for w in weeks)
        assert all("本月" in m.result() for m in months)


def test_labels_of_months_and_ranges() -> None:
    assert period_label("2026-01", "zh") == "2026 年 1 月"
    assert period_label("2026-01", "en") == "Jan 2026"
    assert period_label("2026-01-12..2026-01-25", "zh") == "2026 年 1 月 12 日 至 1 月 25 日"
    assert period_label("2026-01-12..2026-01-25", "en") == "Jan 12 – Jan 25, 2026"
    assert period_label("2025-12-29..2026-01-11", "en") == "Dec 29, 2025 – Jan 11, 2026"
    across = "2025 年 12 月 29 日 至 2026 年 1 月 11 日"
    assert period_label("2025-12-29..2026-01-11", "zh") == across
    assert period_label("2026-W04", "en") == "Week 4, 2026"  # a week is titled by its kind too


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_answers_about_a_month_are_worded_for_it(lang: str) -> None:
    digest = digest_of("2026-01", lang)
    answer = DigestViewAnswer(
        kind=AnswerKind.SUMMARY, repo=REPO, period=digest.window, digest=digest
    )
    for card in (slack.render_answer(answer, lang), feishu.render_answer(answer, lang)):
        text = str(card)
        assert WEEK_WORDS.findall(text) == [], WEEK_WORDS.findall(text)[:3]
        assert ("本月" if lang == "zh" else "this month") in text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_kinds_sentences_each_stand_for_a_weeks_sentence(lang: str) -> None:
    """`period.<kind>.<key>` only ever words a sentence the catalogs have, with its placeholders."""
    catalog = load_catalog(str(templates_dir() / "strings"), lang)
    own = {key: text for key, text in catalog.items() if key.startswith("period.")}
    assert own
    for key, text in own.items():
        _, _kind, week_key = key.split(".", 2)
        assert week_key in catalog, key
        assert set(re.findall(r"{(\w+)}", text)) == set(re.findall(r"{(\w+)}", catalog[week_key]))
