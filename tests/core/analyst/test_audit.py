"""Each draft of an answer matched to the checker's own verdict, in answer order."""

from __future__ import annotations

from service.core.analyst.audit import audit_answer
from service.core.analyst.checker import check_answer
from service.core.analyst.schema import Draft, parse_answer
from tests.core.analyst.helpers import week_facts
from tests.fakes.openai import recorded_answer


def test_verdicts_agree_with_the_checker_on_the_recorded_answers() -> None:
    for name, lang in (("2026-W04.bad.zh", "zh"), ("2026-W04.good.en", "en")):
        drafts = parse_answer(recorded_answer(name))
        facts = week_facts(language=lang)
        verdicts = audit_answer(drafts, facts)
        analysis = check_answer(drafts, facts, model="m", prompt_version="2")
        assert len(verdicts) == len(drafts)
        dropped = [v for v in verdicts if v.reasons]
        assert [list(v.reasons) for v in dropped] == [d.reasons for d in analysis.dropped]
        assert [v.text for v in dropped] == [d.text for d in analysis.dropped]


def test_places_are_numbered_per_section_and_limits_and_duplicates_are_verdicts() -> None:
    point = Draft("pr_points", "TensorRT-LLM becomes a rollout engine.", (4665,))
    drafts = [
        Draft("headline", "", ()),
        point,
        point,
        *[Draft("summary", "22 PRs were merged this week.", ())] * 6,
    ]
    verdicts = audit_answer(drafts, week_facts(language="en"))
    assert [v.where for v in verdicts[:4]] == [
        "headline",
        "pr_points[0]",
        "pr_points[1]",
        "summary[0]",
    ]
    assert verdicts[0].empty
    assert not verdicts[0].kept
    assert verdicts[1].kept
    assert verdicts[2].reasons == ("duplicate: a second point for #4665",)
    assert all(v.kept for v in verdicts[3:8])
    assert verdicts[8].reasons == ("over_limit: at most 5 in summary",)


def test_a_theme_is_shown_with_its_sentence() -> None:
    draft = Draft("key_changes", "#9999 adds an engine.", (9999,), theme="Engines")
    (verdict,) = audit_answer([draft], week_facts(language="en"))
    assert verdict.text == "Engines: #9999 adds an engine."
    assert "pr_not_in_week: #9999" in verdict.reasons
