"""The checker on the model-written corpus (tests/data/llm/model_corpus): floors at the
figures measured after issue 26's checker work, rules alone and with the recorded verifier
answers replayed through the real verification pass; benchmarks/model_corpus.py prints the
full figures. A held-out part's floors were set once, from its first measurement: they guard it
from sliding back and were never a target to tune to. checker36 (a session when all three
parts then recorded were open to tuning) raised the floors its fact checks moved up. checker37
renamed the former held-out part `seen2` (its misses were read and are tuned on) and the part
then called `fresh` `heldout` (never read), with floors at its figures that day; after its
rule changes (tuned on tune, seen and seen2 only) and the held-out part's verifier answers to
verify request v5, the floors are the figures measured then; seen2's verifier answers were
then made to v5 as well (by independent request-only models), its verified floors with them.
After stop 37 reported its figures, that held-out part became `seen3` (tuned on since); a new
held-out part is recorded from weeks no part held in that language or repository (verl-omni
2026-W20 en and 2026-W34 zh, verl 2025-W47 en and 2026-W04 zh), its floors at its first
figures, with verifier answers to verify request v5. checker38 (tuned on tune, seen, seen2,
seen3) raised the floors its changes moved up: sentences the rules could only not confirm judged
by the verifier (deferral.py), every Python file's patch collected, and a name review renamed
around another middle dropped. checker38b (tuned on tune, tune2, seen, seen2, seen3) added tune2
(verl-omni, a repository the rules were never fitted to) with verifier answers to verify request
v6, replaced seen3's v5 verifier answers by v6 ones (seen3's verified false-kept floor is that
run's), and raised the floors its fixes of misread contradictions moved up (relations, comparison
clauses, commit hashes, concept words inside other words, file values, failures, defaults).
The lead then made seen3's and tune2's verifier answers to verify request 7
(quotes with where they were found) by request-only models. Two authors behind one placeholder
login now count as two contributors, and three labels that counted them as one (seen 2026-W19
zh, 2026-W21 zh; seen3 2026-W20 zh adversarial) were relabelled misleading, as seen3's reader
had labelled the same figure; the verifier answers recorded before saw the merged count, so
seen answers keep 8 wrong sentences verified and seen3 adversarial 1. At the end of stop 38
the held-out part's verifier answers were made to verify request 7 (request-only models) and
its floors set at the figures measured once then (never read sentence by sentence)."""

from __future__ import annotations

import pytest

from tests.core.analyst.model_corpus import Verdict, verdicts

# (part, batch) → (least share of true sentences kept, most false or misleading ones kept)
FLOORS = {
    ("tune", "answers"): (0.97, 2),
    ("tune", "adversarial"): (1.0, 2),
    ("tune2", "answers"): (0.98, 7),
    ("tune2", "adversarial"): (0.86, 10),
    ("seen", "answers"): (0.97, 7),
    ("seen", "adversarial"): (0.95, 4),
    ("seen2", "answers"): (0.96, 12),
    ("seen2", "adversarial"): (0.95, 10),
    ("seen3", "answers"): (0.96, 4),
    ("seen3", "adversarial"): (0.88, 16),
    ("seen4", "answers"): (0.89, 10),
    ("seen4", "adversarial"): (0.57, 12),
}
# the same with the verification pass (recorded verifier answers: v7 for tune2, seen3 and heldout,
# v5 for seen2, v4 else;
# a verifier is a model: runs on near-identical requests differed by up to seven kept wrong
# sentences of the seen answers, so these floors hold one run, not the verifier's best)
VERIFIED_FLOORS = {
    ("tune", "answers"): (0.95, 1),
    ("tune", "adversarial"): (0.93, 0),
    ("tune2", "answers"): (0.98, 4),
    ("tune2", "adversarial"): (0.83, 0),
    ("seen", "answers"): (0.98, 8),
    ("seen", "adversarial"): (0.91, 0),
    ("seen2", "answers"): (0.98, 9),
    ("seen2", "adversarial"): (0.85, 0),
    ("seen3", "answers"): (0.99, 2),
    ("seen3", "adversarial"): (0.92, 1),
    ("seen4", "answers"): (0.93, 5),
    ("seen4", "adversarial"): (0.57, 1),
}
# (part, batch) → how many sentences the readers labelled true and false or misleading
LABELLED = {
    ("tune", "answers"): (121, 7),
    ("tune", "adversarial"): (47, 58),
    ("seen", "answers"): (138, 22),
    ("seen", "adversarial"): (46, 63),
    ("seen2", "answers"): (111, 12),
    ("seen2", "adversarial"): (49, 63),
    ("seen3", "answers"): (122, 6),
    ("seen3", "adversarial"): (51, 58),
    ("tune2", "answers"): (53, 7),
    ("tune2", "adversarial"): (36, 33),
    ("seen4", "answers"): (116, 12),
    ("seen4", "adversarial"): (70, 63),
}


@pytest.mark.parametrize(("part", "batch"), sorted(FLOORS))
def test_the_checker_holds_its_figures_on_model_written_answers(part: str, batch: str) -> None:
    rows: list[Verdict] = [v for v in verdicts(part) if v.batch == batch]
    true = [v for v in rows if v.label == "true"]
    wrong = [v for v in rows if v.label != "true"]
    assert (len(true), len(wrong)) == LABELLED[(part, batch)]  # every labelled sentence read
    least_kept, most_wrong = FLOORS[(part, batch)]
    assert sum(v.kept for v in true) / len(true) >= least_kept
    assert sum(v.kept for v in wrong) <= most_wrong


@pytest.mark.parametrize(("part", "batch"), sorted(VERIFIED_FLOORS))
def test_the_verification_pass_holds_its_figures(part: str, batch: str) -> None:
    rows: list[Verdict] = [v for v in verdicts(part, verified=True) if v.batch == batch]
    true = [v for v in rows if v.label == "true"]
    wrong = [v for v in rows if v.label != "true"]
    assert (len(true), len(wrong)) == LABELLED[(part, batch)]
    least_kept, most_wrong = VERIFIED_FLOORS[(part, batch)]
    assert sum(v.kept for v in true) / len(true) >= least_kept
    assert sum(v.kept for v in wrong) <= most_wrong
    assert any(v.reasons and v.reasons[0].startswith("verifier") for v in rows if not v.kept)
