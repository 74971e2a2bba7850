"""Per-destination cadence: the destinations that get a monthly digest besides (or instead of)
the weekly one, and when the monthly run ticks.

`DIGEST_MONTHLY_DESTINATIONS=slack:C0123,feishu:oc_abc:en,webhook:feishu` names them (each
`platform:id`, optionally `:zh` / `:en`); a destination in SLACK_CHANNELS / FEISHU_CHAT_IDS /
FEISHU_WEBHOOK_URL keeps its weekly card, and one named only here gets the monthly card only.
`DIGEST_MONTHLY_SCHEDULE` (cron) defaults to DIGEST_SCHEDULE's minute and hour on the 1st."""

from __future__ import annotations

PLATFORMS = ("slack", "feishu", "webhook")
LANGUAGES = ("zh", "en")
EXAMPLE = "slack:C0123, feishu:oc_abc:en or webhook:feishu"
CRON_FIELDS = 5


def split_destination(item: str) -> tuple[str, str | None]:
    """`slack:C0123:en` → (`slack:C0123`, `en`); `feishu:oc_a` → (`feishu:oc_a`, None).
    Raises ValueError on anything else."""
    platform, sep, rest = item.strip().partition(":")
    target, lang_sep, lang = rest.rpartition(":")
    if not lang_sep:
        target, lang = rest, ""
    if platform not in PLATFORMS or not sep or not target or (lang and lang not in LANGUAGES):
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
