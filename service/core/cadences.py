"""The cadences a card is delivered at, and the kind of period each delivers: a chat subscribes
to a scope's `weekly` or `monthly` digest (the words of `/verl-week subscribe … monthly`)."""

from __future__ import annotations

WEEKLY = "weekly"
MONTHLY = "monthly"
# each cadence and the period kind it delivers (core/periods.py's kinds)
CADENCES: dict[str, str] = {WEEKLY: "week", MONTHLY: "month"}
