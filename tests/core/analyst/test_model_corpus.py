"""The checker on the model-written corpus (tests/data/llm/model_corpus): floors at the
figures measured after issue 26's checker work, rules alone and with the recorded verifier
answers replayed through the real verification pass; benchmarks/model_corpus.py prints the
full figures. The held-out part's floors were set once, from its first measurement: they
guard it from sliding back and were never a target to tune to. checker36 (a session when all
three parts were open to tuning) raised the floors its fact checks moved up."""

from __future__ import annotations

import pytest

from tests.core.analyst.model_corpus import Verdict, verdicts

# (part, batch) → (least share of true sentences kept, most false or misleading ones kept)
FLOORS = {
    ("tune", "answers"): (0.97, 2),
    ("tune", "adversarial"): (0.95, 2),
    ("seen", "answers"): (0.98, 9),
    ("seen", "adversarial"): (0.89, 5),
    ("heldout", "answers"): (0.96, 12),
    ("heldout", "adversarial"): (0.77, 13),
}
# the same with the verification pass (recorded verifier answers to the current verify prompt;
# a verifier is a model: runs on near-identical requests differed by up to seven kept wrong
# sentences of the seen answers, so these floors hold one run, not the verifier's best)
VERIFIED_FLOORS = {
    ("tune", "answers"): (0.95, 1),
    ("tune", "adversarial"): (0.89, 0),
    ("seen", "answers"): (0.97, 8),
    ("seen", "adversarial"): (0.82, 1),
    ("heldout", "answers"): (0.96, 9),
    ("heldout", "adversarial"): (0.67, 1),
}


@pytest.mark.parametrize(("part", "batch"), sorted(FLOORS))
def test_the_checker_holds_its_figures_on_model_written_answers(part: str, batch: str) -> None:
    rows: list[Verdict] = [v for v in verdicts(part) if v.batch == batch]
    true = [v for v in rows if v.label == "true"]
    wrong = [v for v in rows if v.label != "true"]
    assert len(true) >= 40  # every labelled sentence was read
    assert len(wrong) >= 7
    least_kept, most_wrong = FLOORS[(part, batch)]
    assert sum(v.kept for v in true) / len(true) >= least_kept
    assert sum(v.kept for v in wrong) <= most_wrong


@pytest.mark.parametrize(("part", "batch"), sorted(VERIFIED_FLOORS))
def test_the_verification_pass_holds_its_figures(part: str, batch: str) -> None:
    rows: list[Verdict] = [v for v in verdicts(part, verified=True) if v.batch == batch]
    true = [v for v in rows if v.label == "true"]
    wrong = [v for v in rows if v.label != "true"]
    assert len(true) >= 40
    least_kept, most_wrong = VERIFIED_FLOORS[(part, batch)]
    assert sum(v.kept for v in true) / len(true) >= least_kept
    assert sum(v.kept for v in wrong) <= most_wrong
    assert any(v.reasons and v.reasons[0].startswith("verifier") for v in rows if not v.kept)
