"""The verification pass's pure part: the sentences the rules kept with their quotes, batches
bounded in tokens, the verdict schema and its parser (junk is an error, an id left out is not
judged), and the analysis with only the entailed sentences left."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from service.core.analyst.checker import check_answer
from service.core.analyst.schema import Draft, parse_answer
from service.core.analyst.verdicts import (
    BATCH_CHARS,
    VERDICTS,
    InvalidVerdictsError,
    Judgement,
    Quote,
    Sentence,
    apply_verdicts,
    batch_data,
    batches,
    parse_verdicts,
    quotes_of,
    response_format,
    sentences_of,
    unjudged_note,
)
from service.core.models import Analysis
from tests.core.analyst.helpers import week_facts
from tests.fakes.openai import recorded_answer


def _checked(lang: str = "zh") -> tuple[Analysis, list[Draft]]:
    drafts = parse_answer(recorded_answer(f"2026-W04.good.{lang}"))
    return check_answer(drafts, week_facts(language=lang), model="m", prompt_version="1"), drafts


def test_the_schema_is_strict_with_the_three_verdicts() -> None:
    fmt = response_format()
    assert fmt["json_schema"]["strict"] is True
    item = fmt["json_schema"]["schema"]["properties"]["verdicts"]["items"]
    assert item["properties"]["verdict"]["enum"] == list(VERDICTS)
    assert set(item["required"]) == set(item["properties"])
    assert item["additionalProperties"] is False


def test_every_kept_sentence_is_asked_about_in_order_with_its_theme() -> None:
    analysis, drafts = _checked()
    sentences = sentences_of(analysis, drafts)
    assert [s.id for s in sentences] == list(range(1, 22))
    assert sentences[0].section == "headline"
    change = next(s for s in sentences if s.section == "key_changes")
    assert change.text.startswith("Rollout 架构: #4280")
    assert all(s.quotes == () for s in sentences)  # this answer carries no evidence


@dataclass(frozen=True)
class _WithEvidence:
    section: str
    text: str
    prs: tuple[int, ...]
    theme: str
    evidence: tuple[object, ...]


def test_quotes_are_read_from_evidence_objects_or_dicts() -> None:
    @dataclass(frozen=True)
    class Evidence:
        pr: int
        quote: str

    found = (Evidence(1, "a"), {"pr": 2, "quote": "b"}, (3, "c"), (4, ""))
    draft = _WithEvidence("summary", "x", (1,), "", found)
    assert quotes_of(draft) == (Quote(1, "a"), Quote(2, "b"), Quote(3, "c"))  # type: ignore[arg-type]
    assert quotes_of(Draft("summary", "x")) == ()


def test_batches_stay_within_the_token_and_size_bounds() -> None:
    analysis, drafts = _checked()
    facts = week_facts()
    sentences = sentences_of(analysis, drafts)
    assert [len(b) for b in batches(sentences, facts, 2000)] == [21]
    small = batches(sentences, facts, 400)  # 5 verdicts per answer
    assert [len(b) for b in small] == [5, 5, 5, 5, 1]
    assert [s for b in small for s in b] == sentences
    many = [Sentence(i, "summary", i, "#4280 " + "很长的句子" * 20, (4280,)) for i in range(400)]
    for batch in batches(many, facts, 32_000):
        assert len(batch_data(batch, facts)) <= BATCH_CHARS


def test_the_data_carries_the_week_the_cited_prs_and_no_angle_brackets() -> None:
    facts = week_facts()
    sentence = Sentence(1, "summary", 0, "<b>#4280</b> x", (4280,), (Quote(4280, "a <tag>"),))
    data = batch_data([sentence], facts)
    assert "<" not in data
    assert ">" not in data
    parsed = json.loads(data)
    assert parsed["totals"]["prs"] == 22
    assert [pr["number"] for pr in parsed["prs"]] == [4280]
    assert parsed["sentences"][0]["quotes"] == [
        {"pr": 4280, "quote": "a <tag>", "found": "no: not in #4280's data"}
    ]


def _batch() -> list[Sentence]:
    return [Sentence(i, "summary", i - 1, f"s{i}", ()) for i in (1, 2, 3)]


def test_verdicts_parse_by_id_the_first_counts_and_strangers_are_ignored() -> None:
    answer = {
        "verdicts": [
            {"id": 1, "verdict": "entailed", "reason": "ok"},
            {"id": 2, "verdict": "contradicted", "reason": "  wrong\nvalue "},
            {"id": 2, "verdict": "entailed", "reason": "second thoughts"},
            {"id": 9, "verdict": "contradicted", "reason": "not asked"},
        ]
    }
    found = parse_verdicts(json.dumps(answer), _batch())
    assert found == {1: Judgement("entailed", "ok"), 2: Judgement("contradicted", "wrong value")}


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[1]",
        '{"verdicts": "all good"}',
        '{"verdicts": [{"id": 1, "verdict": "probably"}]}',
        '{"verdicts": [{"verdict": "entailed"}]}',
        '{"verdicts": [1]}',
        "[" * 100_000,
        json.dumps({"verdicts": [], "pad": "x" * 70_000}),
    ],
)
def test_junk_is_an_invalid_verdicts_error(text: str) -> None:
    with pytest.raises(InvalidVerdictsError):
        parse_verdicts(text, _batch())


def test_only_entailed_or_unjudged_sentences_stay() -> None:
    analysis, drafts = _checked()
    sentences = sentences_of(analysis, drafts)
    judged = {
        1: Judgement("contradicted", "the headline overstates"),
        3: Judgement("not_enough_information", "no such fact"),
        4: Judgement("entailed", "stated"),
    }
    note = unjudged_note(18, "HTTP 500")
    out = apply_verdicts(analysis, sentences, judged, note)
    assert out.headline is None
    assert len(out.summary) == len(analysis.summary) - 1
    assert [d.reasons for d in out.dropped] == [
        ["verifier contradicted: the headline overstates"],
        ["verifier not_enough_information: no such fact"],
        ["verifier_failed: HTTP 500"],
    ]
    assert out.dropped[-1].text == "verification incomplete: 18 sentences kept without a verdict"
    assert apply_verdicts(analysis, sentences, {}) == analysis


def test_a_secret_in_the_verifiers_reason_is_masked() -> None:
    analysis, drafts = _checked()
    sentences = sentences_of(analysis, drafts)
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    out = apply_verdicts(analysis, sentences, {2: Judgement("contradicted", f"see {token}")})
    assert token not in json.dumps(out.model_dump(), ensure_ascii=False)
