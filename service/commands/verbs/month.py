"""`month [2026-01|this-month] [public] [owner/repo] [filters]`: the card of a month (alone: the
last complete one)."""

from __future__ import annotations

from service.commands.kinds import AnswerKind
from service.commands.verbs import VerbSpec
from service.commands.verbs.views import VIEW_TOKENS, digest_view

SPEC = VerbSpec(
    name="month",
    respond=digest_view(AnswerKind.WEEK),
    tokens=VIEW_TOKENS,
    reads=True,
    filters=True,
    default_period="month",
)
