"""Per-destination cadence: the destinations that get a monthly digest besides (or instead of)
the weekly one, and when the monthly run ticks.

`DIGEST_MONTHLY_DESTINATIONS=slack:C0123,feishu:oc_abc:en,feishu-webhook:default` names them (each
`platform:id`, optionally `:zh` / `:en`); a destination in SLACK_CHANNELS / FEISHU_CHAT_IDS /
FEISHU_WEBHOOK_URL keeps its weekly card, and one named only here gets the monthly card only.
`DIGEST_MONTHLY_SCHEDULE` (cron) defaults to DIGEST_SCHEDULE's minute and hour on the 1st."""

from __future__ import annotations

import re

from service.core.languages import LANGUAGES

# any registered platform's name (the registry checks it when the service is composed)
PLATFORM_RE = re.compile(r"^[a-z][a-z0-9-]*$")
EXAMPLE = "slack:C0123, feishu:oc_abc:en or feishu-webhook:default"
CRON_FIELDS = 5


def split_destination(item: str) -> tuple[str, str | None]:
    """`slack:C0123:en` → (`slack:C0123`, `en`); `feishu:oc_a` → (`feishu:oc_a`, None).
    Raises ValueError on anything else."""
    platform, sep, rest = item.strip().partition(":")
    target, lang_sep, lang = rest.rpartition(":")
    if not lang_sep:
        target, lang = rest, ""
    if not PLATFORM_RE.match(platform) or not sep or not target or (lang and lang not in LANGUAGES):
        raise ValueError(f"expected destinations such as {EXAMPLE}, got {item.strip()!r}")
    if platform == "slack":
        target = target.lstrip("#")
    return f"{platform}:{target}", lang or None


def monthly_cron(weekly: str) -> str:
    """DIGEST_SCHEDULE's minute and hour, on the first day of every month."""
    fields = weekly.split()
    if len(fields) != CRON_FIELDS:
        raise ValueError(f"expected a 5-field cron, got {weekly!r}")
    return f"{fields[0]} {fields[1]} 1 * *"
