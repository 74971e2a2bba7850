"""The checker on the model-written corpus (tests/data/llm/model_corpus): floors at the
figures measured, rules alone and with the recorded verifier answers replayed through the real
verification pass; benchmarks/model_corpus.py prints the full figures.

Parts `tune` to `tune5` and `seen` to `seen10` are tuned on: their misses were read, and a fix that
moves a figure up raises its floor. The `heldout` parts are never read sentence by sentence: their
requests were captured from weeks and languages no tuned part holds, answered and labelled by
independent request-only models, and its floors were set once, from its first measurement, to
guard it from sliding back, never as a target to tune to. When a held-out part's figures have been
reported it becomes the next `seenN` and a fresh one is recorded. The history of each part (which
verify request its verifier answers follow, relabellings) is in the git log of this file."""

from __future__ import annotations

import pytest

from tests.core.analyst.model_corpus import Verdict, verdicts

# (part, batch) → (least share of true sentences kept, most false or misleading ones kept)
FLOORS = {
    ("heldout", "adversarial"): (0.9, 12),  # 36/40 (14 kept at the first measurement)
    ("heldout", "answers"): (0.87, 5),  # 105/120 (103/120 and 6 at the first measurement)
    ("seen10", "adversarial"): (0.97, 6),  # 39/40 (34/40 and 16 when held out)
    ("seen10", "answers"): (0.97, 5),  # 119/122 (115/122 and 6 when held out)
    ("seen9", "adversarial"): (0.95, 4),  # 38/40
    ("seen9", "answers"): (1.0, 1),  # 122/122 (3 wrong kept before the family's contributors
    # were counted right: two answers copied the request's wrong total)
    ("seen7", "adversarial"): (0.85, 13),  # 34/40
    ("seen7", "answers"): (0.94, 1),  # 50/53
    ("seen8", "adversarial"): (0.8, 14),  # 24/30
    ("seen8", "answers"): (1.0, 2),  # 26/26
    ("seen5", "adversarial"): (0.91, 28),  # 56/61
    ("seen5", "answers"): (0.96, 12),  # 96/100
    ("seen6", "adversarial"): (0.75, 3),  # 9/12
    ("seen6", "answers"): (1.0, 3),  # 17/17
    ("seen", "adversarial"): (0.95, 4),  # 44/46
    ("seen", "answers"): (0.98, 7),  # 136/138
    ("seen2", "adversarial"): (0.95, 8),  # 47/49
    ("seen2", "answers"): (0.95, 12),  # 106/111
    ("seen3", "adversarial"): (0.9, 10),  # 46/51
    ("seen3", "answers"): (0.97, 4),  # 119/122
    ("seen4", "adversarial"): (0.91, 5),  # 64/70
    ("seen4", "answers"): (0.97, 7),  # 113/116
    ("tune", "adversarial"): (1.0, 1),  # 47/47
    ("tune", "answers"): (0.98, 2),  # 119/121
    ("tune2", "adversarial"): (0.88, 6),  # 32/36
    ("tune2", "answers"): (0.98, 7),  # 52/53
    ("tune3", "adversarial"): (0.92, 5),  # 37/40
    ("tune3", "answers"): (0.98, 4),  # 115/117
    ("tune4", "adversarial"): (0.92, 9),  # 37/40
    ("tune4", "answers"): (0.96, 5),  # 119/123
    ("tune5", "adversarial"): (0.97, 11),  # 39/40 (36/40 and 16 at the first measurement)
    ("tune5", "answers"): (0.98, 5),  # 119/121 (114/121 and 6)
}
# the same with the verification pass (recorded verifier answers: v8 for heldout and seen10,
# v7 for tune2 and seen3 to seen9, v5 for seen2, v4 else; a verifier is a model: runs on
# near-identical requests differed by up to seven kept wrong sentences of the seen answers, so
# these floors hold one run, not the verifier's best)
VERIFIED_FLOORS = {
    ("heldout", "adversarial"): (0.9, 0),  # 36/40 (verify request 8)
    ("heldout", "answers"): (0.91, 4),  # 110/120 (109/120 at the first measurement)
    ("seen10", "adversarial"): (0.95, 2),  # 38/40 (verify request 8; 37/40 and 3 when held out)
    ("seen10", "answers"): (0.98, 4),  # 120/122 (117/122 and 5 when held out)
    ("seen9", "adversarial"): (0.87, 4),  # 35/40
    ("seen9", "answers"): (0.96, 1),  # 118/122
    ("seen7", "adversarial"): (0.77, 0),  # 31/40
    ("seen7", "answers"): (0.92, 1),  # 49/53
    ("seen8", "adversarial"): (0.7, 0),  # 21/30
    ("seen8", "answers"): (0.88, 2),  # 23/26
    ("seen5", "adversarial"): (0.96, 4),  # 59/61
    ("seen5", "answers"): (0.98, 10),  # 98/100
    ("seen6", "adversarial"): (0.75, 1),  # 9/12
    ("seen6", "answers"): (1.0, 1),  # 17/17
    ("seen", "adversarial"): (0.91, 0),  # 42/46
    ("seen", "answers"): (0.99, 7),  # 137/138
    ("seen2", "adversarial"): (0.85, 0),  # 42/49
    ("seen2", "answers"): (0.97, 9),  # 108/111
    ("seen3", "adversarial"): (0.92, 1),  # 47/51
    ("seen3", "answers"): (0.98, 1),  # 120/122
    ("seen4", "adversarial"): (0.74, 1),  # 52/70
    ("seen4", "answers"): (1.0, 5),  # 116/116
    ("tune", "adversarial"): (0.93, 0),  # 44/47
    ("tune", "answers"): (0.96, 1),  # 117/121
    ("tune2", "adversarial"): (0.86, 0),  # 31/36
    ("tune2", "answers"): (0.98, 4),  # 52/53
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
    ("seen5", "answers"): (100, 21),
    ("seen5", "adversarial"): (61, 59),
    ("seen6", "answers"): (17, 3),
    ("seen6", "adversarial"): (12, 10),
    ("seen7", "answers"): (53, 1),
    ("seen7", "adversarial"): (40, 40),
    ("seen8", "answers"): (26, 2),
    ("seen8", "adversarial"): (30, 30),
    ("seen9", "answers"): (122, 6),
    ("seen9", "adversarial"): (40, 40),
    ("tune3", "answers"): (117, 11),
    ("tune4", "answers"): (123, 5),
    ("tune4", "adversarial"): (40, 40),
    ("seen10", "answers"): (122, 6),
    ("seen10", "adversarial"): (40, 40),
    ("tune3", "adversarial"): (40, 40),
    ("tune5", "answers"): (121, 7),
    ("tune5", "adversarial"): (40, 43),
    ("heldout", "answers"): (120, 8),
    ("heldout", "adversarial"): (40, 43),
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
