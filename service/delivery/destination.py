"""Where a card goes, when and in what language, as one value: a `Destination`.

A destination names a platform and a target on it (`slack:C0123`), the language its cards are
written in (None: the chat's or the service's), the filter they are narrowed by ("" for the
whole period), the cadence it gets them at (weekly, monthly) and the scope they are about (a
repository or a family; None: every scope of DIGEST_REPOS). The settings name destinations as
`platform:target`, optionally followed by `:zh` / `:en`; the platform it names parses the
target (platforms/registry.py), so that a destination is parsed once, in one place.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.core.cadences import CADENCES, MONTHLY, WEEKLY
from service.core.languages import LANGUAGES
from service.delivery.outbox import Target

__all__ = ["CADENCES", "MONTHLY", "WEEKLY", "Destination", "check_entry", "split_entry"]


@dataclass(frozen=True)
class Destination:
    """One route of cards: a platform's target, its language, filter, cadence and scope."""

    platform: str
    target: str
    language: str | None = None
    filter: str = ""
    cadence: str = WEEKLY
    scope: str | None = None

    @property
    def name(self) -> str:
        """`slack:C0123`: what the outbox logs and senders are keyed by."""
        return f"{self.platform}:{self.target}"

    def serves(self, scope: str, cadence: str) -> bool:
        """Whether this route gets `scope`'s cards of `cadence`."""
        return self.cadence == cadence and self.scope in (None, scope)

    def as_target(self, language: str | None = None) -> Target:
        """The outbox's view: destination, filter and language (`language` when it has none)."""
        return Target(self.name, self.filter, self.language or language)


def split_language(item: str) -> tuple[str, str | None]:
    """`C0456:en` → (`C0456`, `en`); `C0123` → (`C0123`, None): a target as the settings name
    it and the language after it (checked by `check_entry`)."""
    target, sep, lang = item.strip().rpartition(":")
    return (target, lang) if sep else (item.strip(), None)


def split_entry(item: str) -> tuple[str, str, str | None]:
    """`feishu:oc_a:en` → (`feishu`, `oc_a`, `en`); `slack:C0123` → (`slack`, `C0123`, None)."""
    platform, _, rest = item.strip().partition(":")
    target, lang = split_language(rest) if rest.count(":") else (rest, None)
    return platform, target, lang


def check_entry(target: str, lang: str | None, what: str, example: str) -> None:
    """ValueError unless `target` is named and `lang` is None or a language of the service."""
    if not target or (lang is not None and lang not in LANGUAGES):
        raise ValueError(
            f"expected {what} such as {example}, with :zh or :en after it to set its "
            f"language ({example}:en), got {target + (':' + lang if lang is not None else '')!r}"
        )


def check_cadence(cadence: str) -> str:
    """`cadence` when it is one of CADENCES; ValueError naming them otherwise."""
    if cadence not in CADENCES:
        raise ValueError(f"expected a cadence among {', '.join(CADENCES)}, got {cadence!r}")
    return cadence
