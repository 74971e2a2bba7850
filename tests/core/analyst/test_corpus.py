"""The labelled corpus (tests/data/llm/corpus): sentences written the way a fluent model writes
about four recorded weeks, in zh and en, true and false. No false sentence is kept, and at
least 85% of the true ones are, per language; the audit list keeps each dropped sentence with
its reasons and never prints a secret."""

from __future__ import annotations

from collections import Counter

import pytest

from service.core.analyst.checker import Checker, check_answer, check_text
from service.core.analyst.schema import Draft
from tests.core.analyst.corpus import CLASSES, Sentence, corpus_facts, load_corpus

CORPUS = load_corpus()
WEEKS = sorted({s.week for s in CORPUS})
MIN_TRUE_KEPT = 0.85
MIN_FALSE_PER_CLASS = 3


def _kept(sentence: Sentence) -> bool:
    checker = Checker(corpus_facts(sentence.week, sentence.lang))
    return not check_text(sentence.text, sentence.prs, sentence.section, checker)


def test_the_corpus_covers_four_weeks_both_languages_and_every_class() -> None:
    assert len(CORPUS) >= 150
    assert WEEKS == ["2025-W47", "2025-W48", "2026-W03", "2026-W04"]
    false = Counter((s.lang, s.kind) for s in CORPUS if not s.label)
    for lang in ("zh", "en"):
        for kind in CLASSES:
            assert false[(lang, kind)] >= MIN_FALSE_PER_CLASS, (lang, kind)
        assert sum(s.label for s in CORPUS if s.lang == lang) >= 40
    assert {s.kind for s in CORPUS if not s.label} == set(CLASSES)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_false_sentence_is_kept(lang: str) -> None:
    kept = [s.text for s in CORPUS if s.lang == lang and not s.label and _kept(s)]
    assert kept == []


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_at_least_85_percent_of_true_sentences_are_kept(lang: str) -> None:
    true = [s for s in CORPUS if s.lang == lang and s.label]
    dropped = [s.text for s in true if not _kept(s)]
    assert len(true) - len(dropped) >= MIN_TRUE_KEPT * len(true), dropped


@pytest.mark.parametrize("week", WEEKS)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_an_answer_of_the_corpus_keeps_the_true_and_audits_the_false(week: str, lang: str) -> None:
    """Through check_answer, as the narrator runs it: each false sentence is in the audit list
    with at least one reason, and no secret a sentence copied is printed there."""
    sentences = [s for s in CORPUS if s.week == week and s.lang == lang]
    drafts = [
        Draft(s.section, s.text, s.prs, "主题" if s.section == "key_changes" else "")
        for s in sentences
    ]
    checker_facts = corpus_facts(week, lang)
    audited = {}
    for draft in drafts:  # one at a time: section limits are not what this test is about
        analysis = check_answer([draft], checker_facts, model="m", prompt_version="1")
        audited.update({d.text.split(": ", 1)[-1]: d.reasons for d in analysis.dropped})
    for sentence in sentences:
        if not sentence.label:
            shown = [t for t in audited if sentence.text[:12] in t or t[:12] in sentence.text]
            assert shown, sentence.text
            assert all(audited[t] for t in shown)
    printed = " ".join([*audited, *(r for reasons in audited.values() for r in reasons)])
    assert "ghp_1234567890abcdefghij" not in printed
    assert "sk-proj-AbCdEf1234567890XyZ" not in printed
    assert "ghp_abcdefghijklmnopqrstuvwxyz" not in printed
