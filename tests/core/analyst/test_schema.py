"""The answer schema sent to the model and the parser of its answers: JSON for the schema or a
clear reason why not."""

from __future__ import annotations

import json

import pytest

from service.core.analyst.schema import (
    LIMITS,
    SECTIONS,
    Draft,
    InvalidAnswerError,
    answer_schema,
    parse_answer,
    response_format,
)
from tests.fakes.openai import recorded_answer


def test_the_schema_is_strict_and_names_the_prs_of_every_item() -> None:
    schema = answer_schema()
    assert schema["required"] == list(SECTIONS)
    assert schema["additionalProperties"] is False
    for section in SECTIONS[1:]:
        array = schema["properties"][section]
        assert array["maxItems"] == LIMITS[section]
        item = array["items"]
        assert item["additionalProperties"] is False
        assert set(item["required"]) == set(item["properties"])
        assert item["properties"]["prs"] == {"type": "array", "items": {"type": "integer"}}
    assert response_format()["type"] == "json_schema"
    assert response_format()["json_schema"]["strict"] is True
    assert LIMITS["summary"] == 5
    assert LIMITS["key_changes"] == 6
    assert LIMITS["pr_points"] == 10
    assert LIMITS["recommendations"] == 5


def test_a_recorded_answer_parses_into_drafts_in_section_order() -> None:
    drafts = parse_answer(recorded_answer("2026-W04.good.zh"))
    assert drafts[0] == Draft(
        "headline", "本周主线是 rollout 架构的进程分离与新推理引擎接入", (4280, 4665)
    )
    assert [d.section for d in drafts].count("summary") == 5
    point = next(d for d in drafts if d.section == "pr_points")
    assert point.prs == (4280,)  # the point's PR comes first
    change = next(d for d in drafts if d.section == "key_changes")
    assert change.theme == "Rollout 架构"


def test_thinking_and_code_fences_around_the_json_are_dropped() -> None:
    answer = json.loads(recorded_answer("2026-W04.good.en"))
    text = "<think>let me see</think>\n```json\n" + json.dumps(answer) + "\n```"
    assert parse_answer(text) == parse_answer(json.dumps(answer))


def test_unknown_fields_are_ignored() -> None:
    answer = json.loads(recorded_answer("2026-W04.good.en"))
    answer["mood"] = "great"
    answer["summary"][0]["confidence"] = 0.9
    assert len(parse_answer(json.dumps(answer))) == len(
        parse_answer(recorded_answer("2026-W04.good.en"))
    )


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{"headline": {"text": "x", "prs": []}, "summary": [', "not JSON"),
        ("Sure! Here is the report.", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"headline": {"text": "x", "prs": []}}', "missing summary"),
        ("SUMMARY_AS_STRING", "summary is not a list"),
        ("PRS_AS_STRINGS", r"summary\[0\].prs is not a list of integers"),
        ("TEXT_AS_NUMBER", r"summary\[0\].text is not a string"),
        ("POINT_WITHOUT_PR", r"pr_points\[0\].pr is not an integer"),
    ],
)
def test_an_answer_that_is_not_json_for_the_schema_says_why(text: str, why: str) -> None:
    answer = json.loads(recorded_answer("2026-W04.good.en"))
    broken = {
        "SUMMARY_AS_STRING": {**answer, "summary": "all good"},
        "PRS_AS_STRINGS": {**answer, "summary": [{"text": "x", "prs": ["#1"]}]},
        "TEXT_AS_NUMBER": {**answer, "summary": [{"text": 3, "prs": []}]},
        "POINT_WITHOUT_PR": {**answer, "pr_points": [{"text": "x", "prs": []}]},
    }
    raw = json.dumps(broken[text]) if text in broken else text
    with pytest.raises(InvalidAnswerError, match=why):
        parse_answer(raw)


def test_every_item_carries_evidence_quotes_in_strict_mode() -> None:
    schema = answer_schema()
    for section in SECTIONS:
        prop = schema["properties"][section]
        item = prop.get("items", prop)
        quote = item["properties"]["evidence"]["items"]
        assert "evidence" in item["required"]
        assert quote["additionalProperties"] is False
        assert quote["required"] == ["pr", "quote"]
        assert quote["properties"] == {"pr": {"type": "integer"}, "quote": {"type": "string"}}


def _with_evidence(evidence: object) -> str:
    answer = json.loads(recorded_answer("2026-W04.good.zh"))
    answer["pr_points"][0]["evidence"] = evidence
    return json.dumps(answer)


def test_evidence_is_read_into_the_draft_and_an_answer_without_it_has_none() -> None:
    quote = {"pr": 4280, "quote": "+verl/a.py: x: int = 1"}
    drafts = parse_answer(_with_evidence([quote, quote]))
    point = next(d for d in drafts if d.section == "pr_points")
    assert point.evidence == ((4280, "+verl/a.py: x: int = 1"),)
    older = parse_answer(recorded_answer("2026-W04.good.zh"))  # an answer of the earlier prompt
    assert all(d.evidence == () for d in older)


@pytest.mark.parametrize(
    "evidence", ["#4729", [{"pr": "4729", "quote": "x"}], [{"pr": 1}], [{"pr": True, "quote": "x"}]]
)
def test_malformed_evidence_is_no_answer(evidence: object) -> None:
    with pytest.raises(InvalidAnswerError, match="evidence"):
        parse_answer(_with_evidence(evidence))
