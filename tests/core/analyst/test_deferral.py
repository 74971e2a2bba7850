"""Sentences the rules could not confirm go to the verifier instead of being deleted (issue 26,
checker38): a true sentence of the model corpus the rules dropped only for a word they did not
find comes back when the verifier judges it entailed, stays dropped (with the verifier's
reason) when it does not, and stays dropped when the verifier fails; a sentence a rule
contradicts is never asked about."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from service.core.analyst.checker import check_answer
from service.core.analyst.deferral import deferrable, unconfirmed
from service.core.analyst.facts import PeriodFacts
from service.core.analyst.schema import Draft
from service.core.analyst.verdicts import CLOSE, OPEN
from service.core.models import Analysis
from service.errors import ModelError
from service.llm.completion import Completion
from service.pipeline.verifier import Verifier
from tests.core.analyst.model_corpus import CORPUS, facts_for

# tune2 2026-W21 en adversarial, labelled true: #69's lines spell it `zmq`, in code names
# the entity rule does not read as the concept
ZMQ = (
    "The ZMQ handle now includes the Ray job id from VERL_RAY_JOB_ID, defaulting to 0, to "
    "avoid cross-job socket collisions on shared hosts."
)
# seen2 2026-W20 en: the old and new values of #58's default told the wrong way round
SWAPPED = (
    "Flagged as a medium-severity breaking change because the `sde_window_range` default "
    "in `diffusion_rollout.yaml` moved from null to [0, 5]."
)


def _facts(part: str, week: str, language: str) -> PeriodFacts:
    meta = json.loads((CORPUS / part / "weeks.json").read_text("utf-8"))[week]
    facts: PeriodFacts = facts_for({"week": week, **meta}, language)
    return facts


@dataclass
class _Model:
    """A verifier model answering every sentence it is asked about with `verdict` (or failing),
    and remembering what it was asked."""

    verdict: str = "entailed"
    fails: bool = False
    model: str = "test-verifier"
    asked: list[str] = field(default_factory=list)

    def complete(self, messages: list[dict[str, str]], response_format: dict[str, Any]) -> Any:
        if self.fails:
            raise ModelError("the verifier timed out")
        user = messages[-1]["content"]
        data = json.loads(user[user.index(OPEN) + len(OPEN) : user.rindex(CLOSE)])
        self.asked += [s["text"] for s in data["sentences"]]
        verdicts = [
            {"id": s["id"], "verdict": self.verdict, "reason": "the body says so"}
            for s in data["sentences"]
        ]
        return Completion(json.dumps({"verdicts": verdicts}), 0, 0)


class _NoCache:
    def get_model_answer(self, *_: Any) -> None:
        return None

    def save_model_answer(self, *_: Any) -> None:
        return None


def _verified(model: _Model, draft: Draft, facts: PeriodFacts) -> tuple[Analysis, Analysis]:
    checked = check_answer([draft], facts, model="m", prompt_version="p")
    verifier = Verifier(model, _NoCache(), 60.0, 2_000)
    return checked, verifier.verified(checked, [draft], facts)


def test_an_unconfirmed_true_sentence_comes_back_when_entailed() -> None:
    facts = _facts("tune2", "2026-W21", "en")
    draft = Draft("pr_points", ZMQ, (69,))
    checked, verified = _verified(_Model(), draft, facts)
    (dropped,) = checked.dropped
    assert "entity: ZMQ" in dropped.reasons
    assert deferrable(dropped.reasons)
    assert [item.text for item in verified.pr_points] == [ZMQ]
    assert verified.dropped == []


def test_an_unconfirmed_sentence_the_verifier_refuses_stays_dropped_with_its_reason() -> None:
    facts = _facts("tune2", "2026-W21", "en")
    draft = Draft("pr_points", ZMQ, (69,))
    _, verified = _verified(_Model("not_enough_information"), draft, facts)
    assert verified.pr_points == []
    (dropped,) = verified.dropped
    assert dropped.reasons[0] == "entity: ZMQ"
    assert dropped.reasons[-1] == "verifier not_enough_information: the body says so"


def test_a_failing_verifier_restores_nothing() -> None:
    facts = _facts("tune2", "2026-W21", "en")
    draft = Draft("pr_points", ZMQ, (69,))
    checked, verified = _verified(_Model(fails=True), draft, facts)
    assert verified.pr_points == []
    assert verified.dropped[0] == checked.dropped[0]


def test_a_contradicted_sentence_is_never_asked_about() -> None:
    facts = _facts("seen2", "2026-W20", "en")
    model = _Model()
    draft = Draft("pr_points", SWAPPED, (58,))
    checked, verified = _verified(model, draft, facts)
    (dropped,) = checked.dropped
    assert any(r.startswith("value of sde_window_range") for r in dropped.reasons)
    assert not deferrable(dropped.reasons)
    assert model.asked == []
    assert verified.pr_points == []


def test_only_not_found_reasons_are_unconfirmed() -> None:
    assert unconfirmed("entity: vla")
    assert unconfirmed("figure: 68")
    assert unconfirmed("default: 默认 (no changed line of #6340 gives rollout_n the default 4)")
    assert unconfirmed("action: 去掉 (#4063's title, body and diff show no remove)")
    assert unconfirmed("comparison: no earlier figure for 上一周")
    # what the data contradicts: the wrong side, another kind, a count, a missing relation
    assert not unconfirmed("action: adds (`step_start` is on removed lines only of #7)")
    assert not unconfirmed("entity: SGLang (the PR is about another of its kind)")
    assert not unconfirmed("comparison: docs 3 vs 4 上一周")
    assert not unconfirmed("relation: #4352 破坏 #4211")
    assert not unconfirmed("action: 恢复了 (#7492's title, body and diff show no add)")
    assert not unconfirmed("action: reverts (#12's title, body and diff show no revert)")
    assert not deferrable([])
    assert not deferrable(["figure: 68", "count: 3 PRs, the digest says 4"])


def test_a_test_only_prs_patch_is_collected_so_a_sentence_about_it_stands() -> None:
    # seen2 2026-W20 en, labelled true: #72 changes test files only; without their patches
    # neither the rules nor the verifier could find `sample_strategy` or `ValueError`
    facts = _facts("seen2", "2026-W20", "en")
    pr = facts.evidence.collected[72] if facts.evidence is not None else None
    assert pr is not None
    assert all(f.patch for f in pr.files)
    text = (
        "#72 replaces the algo_type tests with checks that an unknown sample_strategy and a "
        "non-positive iters_per_group raise ValueError."
    )
    checked = check_answer([Draft("pr_points", text, (72,))], facts, model="m", prompt_version="p")
    assert [item.text for item in checked.pr_points] == [text]


def test_analyst_check_says_what_the_rules_could_not_confirm_and_who_judged_it() -> None:
    from service.core.analyst.audit import audit_answer
    from service.ops.analyst_check import verdict_lines, verified

    facts = _facts("tune2", "2026-W21", "en")
    drafts = [Draft("pr_points", ZMQ, (69,))]
    (before,) = audit_answer(drafts, facts)
    assert not before.kept
    verifier = Verifier(_Model(), _NoCache(), 60.0, 2_000)
    (after,), notes = verified([before], drafts, facts, verifier)
    assert after.kept
    assert notes == []
    lines = verdict_lines(after)
    assert lines[0].startswith("kept")
    assert lines[1:] == [
        "        + verifier entailed what the rules could not confirm: the body says so",
        "        + unconfirmed by the rules: entity: ZMQ",
    ]
    refusing = Verifier(_Model("contradicted"), _NoCache(), 60.0, 2_000)
    (refused,), _ = verified([before], drafts, facts, refusing)
    assert refused.reasons == ("entity: ZMQ", "verifier contradicted: the body says so")
