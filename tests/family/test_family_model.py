"""The language model on a family digest: the facts name each PR of another repository by its
reference (`verl-omni#373`) beside its key, the model's `verl-omni#373` is checked as that PR
(not verl's #373) and the report writes it back as a link to verl-omni's PR."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from service.core.analyst.facts import DATA_BUDGET, build_facts, facts_json
from service.core.analyst.family_refs import keyed_text
from service.core.analyst.schema import InvalidAnswerError, answer_schema, parse_answer
from service.core.analyst.verdicts import Quote, Sentence, batch_data
from service.core.family import keyed_prs
from service.core.scope import pr_key
from service.pipeline.jobs import build_scope
from service.render.environment import translator
from service.render.prompt import CLOSE, OPEN, prompt_messages, prompt_version
from service.render.speaker import MARKDOWN, Speaker
from service.render.verify_prompt import verify_messages
from tests.fakes.openai import API_KEY, MODEL, serve_model
from tests.family.conftest import FAMILY, family_service, w34
from tests.family.test_family_report import family_digest_of, recorded

OMNI_373 = pr_key(1, 373)


def _answer() -> str:
    """An answer as the family's prompt asks for it: each PR named by its reference."""
    sentence = "verl-omni#373 makes pixel responses always uint8, a breaking change."
    wrong = "verl-omni#999 rewrites the rollout."
    primary = "#7373 lends idle trainer GPUs to generation in separate_async."
    empty: list[object] = []
    quote = "[BREAKING][rollout, diffusion] feat: make pixel responses always uint8"
    return json.dumps(
        {
            "headline": {
                "text": "verl-omni#373 makes pixel responses uint8",
                "prs": ["verl-omni#373"],
            },
            "summary": [
                {
                    "text": sentence,
                    "prs": ["verl-omni#373"],
                    "evidence": [{"pr": "verl-omni#373", "quote": quote}],
                },
                {"text": wrong, "prs": []},
                {"text": primary, "prs": ["#7373"]},
            ],
            "key_changes": empty,
            "pr_points": empty,
            "trends": empty,
            "recommendations": empty,
            "review_notes": empty,
        }
    )


def _no_family_key(text: str) -> None:
    """No PR is named by its family key (`#10000373`, `10000373`)."""
    found = re.search(r"\b\d000\d{4}\b", text)
    assert found is None, text[max(found.start() - 200, 0) : found.end() + 50] if found else ""


def test_references_of_the_model_are_keyed_per_repository() -> None:
    assert keyed_text("verl-omni#373 and #373 and verl#7347", FAMILY) == (
        f"#{OMNI_373} and #373 and #7347"
    )
    assert keyed_text("other/repo#5", FAMILY) == "other/repo#5"


def test_a_family_is_narrated_with_each_pr_named_by_its_repository(tmp_path: Path) -> None:
    with serve_model() as model:
        model.answer(_answer())
        llm = {"LLM_BASE_URL": model.url, "LLM_API_KEY": API_KEY, "LLM_MODEL": MODEL}
        with family_service(tmp_path, **llm) as (_fakes, settings, pipeline):
            digest = build_scope(pipeline, settings.scope(["verl-project"]), w34())
            asked = json.dumps(model.calls[0].json(), ensure_ascii=False)
    assert "verl-omni#373" in asked  # the facts carry each PR's repository
    _no_family_key(asked)
    assert digest.analysis is not None
    # verl-omni#999 is no PR of the family's week; #7373 is verl's, not verl-omni's
    kept, primary = digest.analysis.summary
    assert primary.prs == [7373]
    assert kept.prs == [OMNI_373]
    assert f"#{OMNI_373}" in kept.text
    # a key the week does not hold is refused like any PR the week does not hold
    assert any(f"#{pr_key(1, 999)}" in d.text for d in digest.analysis.dropped)
    # written back as a link to verl-omni's PR wherever the report shows the sentence
    shown = Speaker(digest, translator("en"), MARKDOWN).text(kept.text)
    assert shown.startswith("[verl-omni#373](https://github.com/verl-project/verl-omni/pull/373)")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_prompts_name_the_family_and_each_pr_by_its_reference(lang: str) -> None:
    """The writer's and the verifier's prompts of the recorded 2026-W34: the family and its
    repositories named, each PR as `#7347` or `verl-omni#373`, never by its family key."""
    weeks = [recorded(repo, "2026-W34") for repo in FAMILY]
    digest = family_digest_of(weeks, lang=lang)
    every = [p for i, w in enumerate(weeks) for p in keyed_prs(w.prs, i)]
    facts = build_facts(digest, every, lang)
    system, user = (m["content"] for m in prompt_messages(facts))
    assert "verl-project/verl+" not in system
    assert "verl-project/verl-omni" in system
    assert "verl-omni#25" in system  # how to write another repository's PR
    _no_family_key(system + user)
    data = json.loads(user[user.rindex(OPEN) + len(OPEN) : user.index(CLOSE)])
    assert data["repos"] == list(FAMILY)
    numbers = [p["number"] for p in data["prs"]]
    assert "verl-omni#373" in numbers
    assert "#7347" in numbers
    assert any(b["prs"] and "verl-omni#363" in b["prs"] for b in data["trends"]["modules"])
    related = [r for p in data["prs"] for r in p.get("relations", [])]
    assert "superseded_by verl-omni#426" in related
    assert data["totals"]["prs"] == digest.stats.prs  # counts stay numbers
    # a bare "#373" in verl-omni#383's own body is verl-omni's PR 373
    omni_383 = next(p for p in data["prs"] if p["number"] == "verl-omni#383")
    assert "#373" not in json.dumps(omni_383).replace("verl-omni#373", "")
    # the schema asks for references
    schema = answer_schema(family=True)
    assert schema["properties"]["summary"]["items"]["properties"]["prs"]["items"] == {
        "type": "string"
    }
    assert prompt_version(lang, True) != prompt_version(lang)
    # the verifier's prompt too
    sentence = Sentence(
        id=1,
        section="summary",
        index=0,
        text=f"#{OMNI_373} makes pixel responses uint8; #7347 is verl's.",
        prs=(OMNI_373, 7347),
        quotes=(Quote(OMNI_373, "make pixel responses always uint8"),),
    )
    asked = batch_data([sentence], facts)
    verify = verify_messages(facts.repo, facts.period, lang, asked, facts.repos)
    _no_family_key(verify[0]["content"] + verify[1]["content"])
    said = json.loads(asked)["sentences"][0]
    assert said["prs"] == ["verl-omni#373", "#7347"]
    assert said["text"].startswith("verl-omni#373 makes")
    assert said["quotes"][0]["pr"] == "verl-omni#373"


def test_a_familys_answer_names_prs_by_reference() -> None:
    answer = json.loads(_answer())
    answer["pr_points"] = [{"pr": "verl-omni#373", "text": "uint8", "prs": [], "evidence": []}]
    drafts = parse_answer(json.dumps(answer), FAMILY)
    assert drafts[0].prs == (OMNI_373,)
    assert drafts[-1].prs == (OMNI_373,)
    assert drafts[1].evidence[0][0] == OMNI_373
    assert [d.prs for d in drafts if d.text.startswith("#7373")] == [(7373,)]
    with pytest.raises(InvalidAnswerError):
        parse_answer(json.dumps({**answer, "headline": {"text": "x", "prs": ["nope#1"]}}), FAMILY)


@pytest.mark.parametrize("week", ["2026-W20", "2026-W21"])
def test_four_repositories_stay_within_the_prompt_budget(week: str) -> None:
    weeks = [recorded(repo, week) for repo in FAMILY]
    digest = family_digest_of(weeks, lang="zh")
    every = [p for i, w in enumerate(weeks) for p in keyed_prs(w.prs, i)]
    data = facts_json(build_facts(digest, every, "zh"))
    assert len(data) <= DATA_BUDGET
    _no_family_key(data)
    assert "verl-recipe#" in data
