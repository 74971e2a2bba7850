"""`trends [period] [public] [owner/repo] [filters]`: the busiest modules and change types."""

from __future__ import annotations

from service.commands.kinds import AnswerKind
from service.commands.verbs import VerbSpec
from service.commands.verbs.views import VIEW_TOKENS, digest_view

SPEC = VerbSpec(
    name="trends",
    respond=digest_view(AnswerKind.TRENDS),
    tokens=VIEW_TOKENS,
    aliases=("trend",),
    reads=True,
    filters=True,
)
