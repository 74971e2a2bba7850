"""Facts of the real recorded weeks, for the analyst's tests."""

from __future__ import annotations

import functools

from service.core.analyst.facts import PeriodFacts, build_facts
from service.core.models import Digest
from tests.commands.builders import digest_from_week
from tests.conftest import load_week

SAMPLE = "2026-W04"


@functools.lru_cache(maxsize=16)
def week_digest(label: str = SAMPLE, language: str = "zh") -> Digest:
    return digest_from_week(load_week(label), language=language)


@functools.lru_cache(maxsize=16)
def week_facts(label: str = SAMPLE, language: str = "zh") -> PeriodFacts:
    """The facts of a recorded week, as the narrator builds them (cached: read-only)."""
    return build_facts(week_digest(label, language), load_week(label).prs)
