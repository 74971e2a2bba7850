"""Fixtures of the risk detector tests: the real weeks' risks, computed once per session."""

from __future__ import annotations

import pytest

from service.core.models import CollectedPeriod, Risk
from service.core.profile import RepoProfile
from service.core.risks import detect_risks
from tests.core.risks.helpers import LABELS, earlier_of


@pytest.fixture(scope="session")
def real_risks(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> dict[str, list[Risk]]:
    """detect_risks of each real week, with the previous week as `earlier` when we have it."""
    return {
        label: detect_risks(weeks[label].prs, verl_profile, earlier=earlier_of(weeks, label))
        for label in LABELS
    }
