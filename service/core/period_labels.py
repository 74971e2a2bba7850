"""What the command line's `--help` says of period labels (core/periods/), apart so that `--help`
reads it without loading the models; each kind's label shape is its own (core/periods/kinds.py)."""

from __future__ import annotations

RANGE_SEPARATOR = ".."
PERIOD_HELP = "2026-W04, 2026-01, 2026-01-12..2026-01-25, last-week, last-month or this-month"
