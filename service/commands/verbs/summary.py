"""`summary [period] [public] [owner/repo] [filters]`: the period's summary sentences."""

from __future__ import annotations

from service.commands.kinds import AnswerKind
from service.commands.verbs import VerbSpec
from service.commands.verbs.views import VIEW_TOKENS, digest_view

SPEC = VerbSpec(
    name="summary",
    respond=digest_view(AnswerKind.SUMMARY),
    tokens=VIEW_TOKENS,
    reads=True,
    filters=True,
)
