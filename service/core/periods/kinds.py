"""Kinds of reporting period, as a registry: each kind (week, month, range, …) is one module
holding one `PeriodRules`, and `register` makes it known to every parser, route and renderer.

A kind answers for its labels: their shape (`pattern`), the period a label names, the period
before one (the trends' baseline), the relative words it owns (`last-month`), and its title in
a catalog's words (`format.period.<kind>` keys of templates/strings)."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from datetime import date, datetime, time
from typing import Any, ClassVar, Protocol
from zoneinfo import ZoneInfo

from service.core.models import Period
from service.errors import InputError

THIS, LAST = "this", "last"


class Words(Protocol):
    """A catalog's translator (render/strings.py): a sentence by key, its fields filled."""

    def t(self, key: str, /, **params: Any) -> str: ...


class PeriodRules(ABC):
    """What one kind of period knows about its labels. Subclasses set `name` and `pattern`
    (a regular expression of the kind's labels: URL-safe, no anchors)."""

    name: str
    pattern: str
    # the relative words of the kind: `last-month` → LAST, `this-month` → THIS
    relative: ClassVar[Mapping[str, str]] = {}
    # whether a period of the kind must be over to be told (a range ending after today is not)
    over_only: bool = False

    def matches(self, label: str) -> bool:
        return re.fullmatch(self.pattern, label.strip()) is not None

    @abstractmethod
    def of_label(self, label: str, timezone: str) -> Period:
        """The period `label` names (whenever it is); InputError when it names none."""

    @abstractmethod
    def previous(self, period: Period) -> Period:
        """The period before `period` (period-over-period); InputError when there is none."""

    @abstractmethod
    def title(self, period: Period, words: Words) -> str:
        """`period`'s name in the catalog's words (`Week 4 of 2026`, `January 2026`)."""

    def containing(self, moment: datetime, timezone: str) -> Period:
        """The period of this kind `moment` falls in (for `this-…` / `last-…` words)."""
        raise InputError(f"a {self.name} has no period that contains a moment")

    def relative_period(self, which: str, timezone: str, now: datetime) -> Period:
        this = self.containing(now, timezone)
        return this if which == THIS else self.previous(this)

    def parse(self, label: str, timezone: str, now: datetime) -> Period:
        """The period `label` names, as a reader asks for it at `now` (the calendar checked
        by the caller: core/periods)."""
        return self.of_label(label, timezone)


_KINDS: dict[str, PeriodRules] = {}


def register(rules: PeriodRules) -> PeriodRules:
    """Make a kind known (again: a later registration of the same name replaces it)."""
    _KINDS[rules.name] = rules
    return rules


def unregister(name: str) -> None:
    _KINDS.pop(name, None)


def kinds() -> list[PeriodRules]:
    """Every known kind, in registration order."""
    return list(_KINDS.values())


def rules_of(kind: str) -> PeriodRules:
    """The rules of the kind named `kind`; InputError when no such kind is known."""
    rules = _KINDS.get(str(kind))
    if rules is None:
        raise InputError(f"no period kind {kind!r} is known")
    return rules


def rules_for_label(label: str) -> PeriodRules | None:
    """The kind whose labels look like `label` (syntax only); None when none does."""
    return next((rules for rules in _KINDS.values() if rules.matches(label)), None)


def relative_words() -> dict[str, tuple[PeriodRules, str]]:
    """Every kind's relative words: `last-month` → (month's rules, LAST)."""
    words: dict[str, tuple[PeriodRules, str]] = {}
    for rules in _KINDS.values():
        words.update({word: (rules, which) for word, which in rules.relative.items()})
    return words


def label_pattern() -> str:
    """Any known kind's label, as one regular expression (report URLs)."""
    return "(?:" + "|".join(rules.pattern for rules in _KINDS.values()) + ")"


def midnight(day: date, timezone: str) -> datetime:
    """Local midnight starting `day` in `timezone`."""
    return datetime.combine(day, time(0), tzinfo=ZoneInfo(timezone))


def date_words(day: date, words: Words, style: str = "long") -> str:
    """A date through the catalog's `format.date.<style>` (long or short), month names included."""
    month_name = words.t(f"format.month.m{day.month}")
    return words.t(
        f"format.date.{style}", year=day.year, month=day.month, day=day.day, month_name=month_name
    )
