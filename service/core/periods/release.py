"""A release (`v0.7.0`): from the day of the tag before it to the day of its own tag, local
midnights (the PRs merged on a tag's day belong to the next release). A kind whose periods
come from data, not the calendar: it is registered with the tags' dates it knows
(`register(ReleaseRules({"v0.6.1": date(2026, 1, 14), …}))`)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta

from service.core.models import Period
from service.core.periods.kinds import PeriodRules, Words, date_words, midnight
from service.errors import InputError

RELEASE = "release"


class ReleaseRules(PeriodRules):
    name = RELEASE
    pattern = r"v\d+(?:\.\d+){0,3}"

    def __init__(self, tags: Mapping[str, date]) -> None:
        # oldest first: a release's period starts at the tag before it
        self.tags = dict(sorted(tags.items(), key=lambda item: item[1]))

    def _before(self, tag: str) -> str:
        names = list(self.tags)
        if tag not in self.tags:
            raise InputError(f"no release {tag!r} is known: {', '.join(names) or 'none'}")
        index = names.index(tag)
        if index == 0:
            raise InputError(f"{tag} is the first release known: it has no start")
        return names[index - 1]

    def of_label(self, label: str, timezone: str) -> Period:
        tag = label.strip()
        first, last = self.tags[self._before(tag)], self.tags[tag]
        return Period(
            kind=RELEASE,
            label=tag,
            timezone=timezone,
            start=midnight(first, timezone),
            end=midnight(last, timezone),
        )

    def previous(self, period: Period) -> Period:
        return self.of_label(self._before(period.label), period.timezone)

    def title(self, period: Period, words: Words) -> str:
        last = period.last_day + timedelta(days=1)  # the tag's own day, where the release ends
        return words.t(
            "format.period_release",
            tag=period.label,
            first=date_words(period.first_day, words),
            last=date_words(last, words),
        )
