"""The language model on a family digest: the facts name each PR of another repository by its
reference (`verl-omni#373`) beside its key, the model's `verl-omni#373` is checked as that PR
(not verl's #373) and the report writes it back as a link to verl-omni's PR."""

from __future__ import annotations

import json
from pathlib import Path

from service.core.analyst.family_refs import keyed_text
from service.core.scope import pr_key
from service.jobs import build_scope
from service.render.environment import translator
from service.render.speaker import MARKDOWN, Speaker
from tests.fakes.openai import API_KEY, MODEL, serve_model
from tests.family.conftest import FAMILY, family_service, w34

OMNI_373 = pr_key(1, 373)


def _answer() -> str:
    sentence = "verl-omni#373 makes pixel responses always uint8, a breaking change."
    wrong = "verl-omni#999 rewrites the rollout."
    empty: list[object] = []
    return json.dumps(
        {
            "headline": {"text": "verl-omni#373 makes pixel responses uint8", "prs": [OMNI_373]},
            "summary": [
                {"text": sentence, "prs": [OMNI_373]},
                {"text": wrong, "prs": []},
            ],
            "key_changes": empty,
            "pr_points": empty,
            "trends": empty,
            "recommendations": empty,
            "review_notes": empty,
        }
    )


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
    assert digest.analysis is not None
    [kept] = digest.analysis.summary  # verl-omni#999 is no PR of the family's week
    assert kept.prs == [OMNI_373]
    assert f"#{OMNI_373}" in kept.text
    # a key the week does not hold is refused like any PR the week does not hold
    assert any(f"#{pr_key(1, 999)}" in d.text for d in digest.analysis.dropped)
    # written back as a link to verl-omni's PR wherever the report shows the sentence
    shown = Speaker(digest, translator("en"), MARKDOWN).text(kept.text)
    assert shown.startswith("[verl-omni#373](https://github.com/verl-project/verl-omni/pull/373)")
