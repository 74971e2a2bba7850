"""What a chat card shows, the same on every platform: how many top PRs, risk lines and
modules a weekly card lists, how many risks and pieces of evidence an answer gives, and where a
title is cut. (Each platform's size limits are in limits.py; its own layout in its renderer.)"""

from __future__ import annotations

# the weekly card
TOP_PRS = 5  # the most important PRs, each with its point
CARD_RISK_LINES = 3  # one line per risk item of the report, at most
CARD_RISK_PRS = 4  # PRs a risk line names
TOP_MODULES = 6  # the busiest modules
# answers
TOP_RISKS = 5  # the risks a `pr N` answer lists
EVIDENCE_PER_RISK = 2
TITLE_CHARS = 90  # a PR title, cut at a word
