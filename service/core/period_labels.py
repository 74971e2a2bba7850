"""The shapes of period labels (core/periods.py), apart so that the command line's `--help`
and the web routes read them without loading the models."""

from __future__ import annotations

import re

WEEK_PATTERN = r"\d{4}-W\d{2}"
MONTH_PATTERN = r"\d{4}-\d{2}"
RANGE_SEPARATOR = ".."
RANGE_PATTERN = r"\d{4}-\d{2}-\d{2}\.\.\d{4}-\d{2}-\d{2}"
# any stored period's label, as report URLs carry it
LABEL_PATTERN = f"(?:{WEEK_PATTERN}|{MONTH_PATTERN}|{RANGE_PATTERN})"
LABEL_RE = re.compile(f"^{LABEL_PATTERN}$")
PERIOD_HELP = "2026-W04, 2026-01, 2026-01-12..2026-01-25, last-week, last-month or this-month"
