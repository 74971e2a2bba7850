"""The registered chat platforms, and the destination syntax they share (`platform:target`).

Registration is an explicit `register(platform)` call: the built-in three are registered below,
in one list; a new platform is one package plus one line in BUILTIN (or a `register()` call of
its own, as the tests' fake third platform does). Explicit rather than `verl_week.platforms`
entry points: the platforms are known when the service is built, so nothing is imported that
the code does not name, the order (of doctor lines, of web routes) is the list's order, and a
platform in a checkout (or in tests/) needs no reinstall to be found.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from service.core.languages import LANGUAGES
from service.delivery.destination import MONTHLY, WEEKLY, Destination, split_entry
from service.delivery.outbox import current_name
from service.errors import ConfigError, InputError
from service.platforms.base import Platform
from service.render.cards import FEISHU_CARD, CardFormat, register_card_format

if TYPE_CHECKING:
    from service.settings import Settings

logger = logging.getLogger(__name__)
_PLATFORMS: dict[str, Platform] = {}


def register(platform: Platform) -> Platform:
    """Add `platform` (its card format too); registering the same object twice is a no-op."""
    known = _PLATFORMS.get(platform.name)
    if known is not None and known is not platform:
        raise ValueError(f"platform {platform.name!r} is already registered")
    register_card_format(platform.card)
    _PLATFORMS[platform.name] = platform
    return platform


def unregister(name: str) -> None:
    """Remove a platform (a test's own, once the test is done)."""
    _PLATFORMS.pop(name, None)


def platforms() -> list[Platform]:
    """Every registered platform, built-in ones first, in registration order."""
    return list(_PLATFORMS.values())


def platform(name: str) -> Platform | None:
    return _PLATFORMS.get(name)


def configured(settings: Settings) -> list[Platform]:
    return [p for p in platforms() if p.configured(settings)]


def configured_destinations(settings: Settings) -> list[Destination]:
    """Every destination the settings configure: each platform's weekly chats, then those of
    DIGEST_MONTHLY_DESTINATIONS (the monthly cadence); ConfigError on one no platform takes."""
    found = [d for each in platforms() for d in each.destinations(settings)]
    for item in settings.digest_monthly_destinations:
        try:
            found.append(parse_destination(item, cadence=MONTHLY))
        except InputError as exc:
            raise ConfigError(
                f"invalid setting DIGEST_MONTHLY_DESTINATIONS: {exc.message}"
            ) from exc
    return found


def card_of(destination: str) -> CardFormat:
    """The card format a destination gets (a platform no longer registered: Feishu's, as the
    card of any platform without its own renderer was before the registry)."""
    found = _PLATFORMS.get(destination.partition(":")[0])
    return found.card if found is not None else FEISHU_CARD


def syntax() -> str:
    """`slack:CHANNEL, feishu:CHAT_ID or feishu-webhook:NAME`: the destinations one can name."""
    forms = [p.syntax for p in platforms()]
    return forms[0] if len(forms) == 1 else f"{', '.join(forms[:-1])} or {forms[-1]}"


def parse_destination(item: str, *, cadence: str = WEEKLY, scope: str | None = None) -> Destination:
    """One destination as typed (`slack:#general`, `feishu:oc_a:en`) → its Destination, the
    target as its platform stores it (`slack:general`); an old-style name (`webhook:feishu`)
    still works, with a one-line deprecation warning in the log."""
    name, target, lang = split_entry(item)
    typed = f"{name}:{target}"
    renamed = current_name(typed)
    if renamed != typed:
        logger.warning(deprecated_destination(typed, renamed))
        name, _, target = renamed.partition(":")
    found = _PLATFORMS.get(name)
    if not target or found is None or (lang is not None and lang not in LANGUAGES):
        raise InputError(f"bad --to item {item.strip()!r}: expected {syntax()}")
    return Destination(name, found.parse_target(target), lang, cadence=cadence, scope=scope)


def deprecated_destination(old: str, new: str) -> str:
    from service.operator_text import DEPRECATED_DESTINATION

    return DEPRECATED_DESTINATION.format(old=old, new=new)


def _register_builtin() -> None:
    from service.platforms.feishu import FEISHU_APP, FEISHU_WEBHOOK
    from service.platforms.slack import SLACK

    builtin: tuple[Platform, ...] = (SLACK, FEISHU_APP, FEISHU_WEBHOOK)  # a new one: one more
    for each in builtin:
        register(each)


_register_builtin()
