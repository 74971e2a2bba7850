"""`week <period> [public] [owner/repo] [filters]`: the whole card of a period (named: it is
what tells this verb from `summary`)."""

from __future__ import annotations

from service.commands.kinds import AnswerKind
from service.commands.verbs import VerbSpec
from service.commands.verbs.views import VIEW_TOKENS, digest_view

SPEC = VerbSpec(
    name="week",
    respond=digest_view(AnswerKind.WEEK),
    tokens=VIEW_TOKENS,
    reads=True,
    filters=True,
    required=(("period", "cmd.error.missing_week"),),
)
