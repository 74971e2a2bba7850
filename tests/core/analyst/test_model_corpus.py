"""The checker on the model-written corpus (tests/data/llm/model_corpus), rules alone: floors
at the figures measured after issue 26's checker work (rules that check facts, not trigger
words); benchmarks/model_corpus.py prints the full figures. The held-out part is measured
by the lead and has no floor here."""

from __future__ import annotations

import pytest

from tests.core.analyst.model_corpus import Verdict, verdicts

# (part, batch) → (least share of true sentences kept, most false or misleading ones kept)
FLOORS = {
    ("tune", "answers"): (0.96, 7),
    ("tune", "adversarial"): (0.82, 6),
    ("seen", "answers"): (0.94, 18),
    ("seen", "adversarial"): (0.81, 6),
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
