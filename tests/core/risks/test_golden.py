"""Every risk of the real weeks (with and without code-search answers) and of generated
fortnights, against golden JSON (tests/data/golden/risks/). The files were written by the
detectors as they stood before issue 14's speed work (main at 2336da1: a patch parsed again in
every detector, pairwise follow-ups, difflib on every pair), so reading each patch once, the
follow-up index and the pre-filters are shown to change no result, evidence and order included.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from service.core.models import CollectedPeriod, Risk
from service.core.profile import RepoProfile
from service.core.risks import detect_risks
from tests.core.risks.generated import fortnight, recorded_prs, searched
from tests.core.risks.helpers import LABELS, earlier_of

GOLDEN = Path(__file__).parents[2] / "data" / "golden" / "risks"
# `UPDATE_GOLDEN=1 .venv/bin/pytest tests/core/risks/test_golden.py` rewrites the files
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
FORTNIGHTS = (0, 1, 2)


def _check_golden(name: str, risks: list[Risk]) -> None:
    text = json.dumps([r.model_dump(mode="json") for r in risks], ensure_ascii=False, indent=1)
    path = GOLDEN / f"{name}.json"
    if UPDATE or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"golden file {path.name} was missing and has been written; rerun")
    assert text + "\n" == path.read_text(encoding="utf-8"), (
        f"{path.name} differs; if the change is intended, rerun with UPDATE_GOLDEN=1"
    )


@pytest.mark.parametrize("label", LABELS)
def test_real_week_risks_match_golden(label: str, real_risks: dict[str, list[Risk]]) -> None:
    assert real_risks[label]
    _check_golden(label, real_risks[label])


@pytest.mark.parametrize("label", LABELS)
def test_real_week_risks_with_search_answers_match_golden(
    label: str, weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    prs = weeks[label].prs
    references = searched(prs)
    risks = detect_risks(prs, verl_profile, earlier=earlier_of(weeks, label), references=references)
    _check_golden(f"{label}-searched", risks)


@pytest.mark.parametrize("seed", FORTNIGHTS)
def test_generated_fortnight_risks_match_golden(
    seed: int, weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    week, earlier = fortnight(recorded_prs(weeks), seed)
    risks = detect_risks(week, verl_profile, earlier=earlier)
    # the fortnight reaches every family that reads more than one PR or many lines at a time
    kinds = {str(leaf.kind) for r in risks for leaf in (r.members or [r])}
    assert {"followup", "breaking", "core_without_tests"} <= kinds
    _check_golden(f"fortnight-{seed}", risks)
