"""Misreadings of the seen10 answers (two-week periods: volcengine/verl 2025-11-17..30 zh and
2026-01-12..25 en, verl-project/verl 2026-05-04..17 en and 05-11..24 zh), read sentence by
sentence after stop 43: each test replays a real corpus sentence with its evidence on the
period's real facts, and a wrong variant of it is still dropped."""

from __future__ import annotations

import dataclasses
import functools
import json

from service.core.analyst.checker import check_answer
from service.core.analyst.facts import PeriodFacts
from service.core.analyst.schema import parse_answer
from tests.core.analyst.model_corpus import CORPUS, facts_for

PART = "seen10"


@functools.cache
def _facts(week: str, language: str) -> PeriodFacts:
    meta = json.loads((CORPUS / PART / "weeks.json").read_text("utf-8"))[week]
    facts: PeriodFacts = facts_for({"week": week, **meta}, language)
    return facts


def _reasons(stem: str, starts: str, text: str | None = None) -> list[str]:
    """The reasons the checker drops the draft of answer `stem` starting with `starts` for
    (empty: kept); with `text`, the same draft (PRs, evidence) saying `text` instead."""
    week, language = stem.split(".")[:2]
    facts = _facts(week, language)
    answer = (CORPUS / PART / f"{stem}.answer.json").read_text("utf-8")
    (draft,) = [d for d in parse_answer(answer) if d.text.startswith(starts)]
    if text is not None:
        draft = dataclasses.replace(draft, text=text)
    checked = check_answer([draft], facts, model="m", prompt_version="p")
    return [r for d in checked.dropped for r in d.reasons]


def _rules(reasons: list[str]) -> set[str]:
    return {r.split(":")[0].split(" ")[0] for r in reasons}


# --- relations in relative clauses --------------------------------------------------------------


def test_a_passive_relative_clause_relates_the_pr_it_modifies() -> None:
    # "被 #6360 撤销的 #6350": #6360 reverted #6350; #6386 is not related to #6360 by it
    starts = "建议核对 #6386 是否完整恢复"
    assert _reasons("2026-W20-W21.zh", starts) == []
    told = (
        "建议核对 #6386 是否完整恢复了被 #6350 撤销的 #6360 中 `use_remove_padding=False` "
        "路径修复，该撤销链被标记为后续跟进风险。"
    )
    assert "relation" in _rules(_reasons("2026-W20-W21.zh", starts, told))


def test_a_relation_verb_with_its_object_before_a_pr_is_that_prs() -> None:
    # "与随后改写这些脚本的 #6429": #6429 rewrote the scripts #6285 added
    starts = "建议复核 #6285 重构的 NPU 脚本"
    assert _reasons("2026-W20-W21.zh", starts) == []
    told = "建议复核 #6429 改写的 NPU 脚本中的绝对路径风险，并确认与随后改写这些脚本的 #6285 保持一致。"
    assert "relation" in _rules(_reasons("2026-W20-W21.zh", starts, told))


# --- values said in words -------------------------------------------------------------------------


def test_an_empty_dict_is_the_value_braces_spell() -> None:
    # legacy_data.yaml adds `mm_processor_kwargs: {}`
    starts = "#6276 adds audio data support"
    assert _reasons("2026-W19-W20.en.adversarial", starts) == []
    told = (
        "#6276 adds audio data support, with a new `audio_key` data setting that defaults to "
        "`audios` and an `mm_processor_kwargs` setting that defaults to an empty list."
    )
    assert "value" in _rules(_reasons("2026-W19-W20.en.adversarial", starts, told))



def test_a_file_a_setting_goes_to_is_no_value() -> None:
    # "adding `mtp` settings to hf_model.yaml": the file is where the settings go, not the value
    # they take (the on/off of a block's settings is not read yet: the sentence stays dropped)
    reasons = _reasons("2026-W03-W04.en", "#4936 brings MTP")
    assert reasons
    assert not any("hf_model.yaml" in r for r in reasons)
