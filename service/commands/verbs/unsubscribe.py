"""`unsubscribe [owner/repo|family] [weekly|monthly] [filters]` (admins): this channel stops
getting the scope's card (at one cadence, or every one)."""

from __future__ import annotations

from service.commands.kinds import Answer
from service.commands.verbs import Request, VerbSpec
from service.commands.verbs.subscribe import SCOPE_TOKENS, change_subscription


def respond(request: Request) -> Answer:
    return change_subscription(request, subscribe=False)


SPEC = VerbSpec(
    name="unsubscribe",
    respond=respond,
    tokens=SCOPE_TOKENS,
    admin=True,
    filters=True,
    families=True,
)
