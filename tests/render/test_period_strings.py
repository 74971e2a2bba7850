"""Every sentence of a report or card that speaks of the week (本周, 同一周, "the same week",
"this week") has its own wording for each other kind of period, so a month's or a range's report
never says "week" where it means the period (a dangling-file finding said "changed earlier the
same week" in a two-week report). Chat commands and the web index stay weekly: subscriptions post
weekly whatever the report's period."""

from __future__ import annotations

import re

import pytest

from service.render.environment import templates_dir
from service.render.strings import kind_catalog

WEEK_WORDS = {
    "zh": re.compile(r"本周|上周|同一周|这一周|周报|周环比"),
    "en": re.compile(r"\b(?:this|last|same|previous) week\b|\bweekly\b|week-over-week", re.I),
}
# what is about the chat commands, subscriptions and the web index, not a report's period
WEEKLY_BY_DESIGN = ("cmd.", "web.", "period.")


@pytest.mark.parametrize("kind", ["month", "range", "release"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_report_sentence_of_a_period_speaks_of_the_week(lang: str, kind: str) -> None:
    catalog = kind_catalog(str(templates_dir() / "strings"), lang, kind)
    weekly = [
        key
        for key, text in catalog.items()
        if not key.startswith(WEEKLY_BY_DESIGN) and WEEK_WORDS[lang].search(text)
    ]
    assert weekly == []
