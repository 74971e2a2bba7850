"""`help` (`?`, or no text at all): every verb's usage."""

from __future__ import annotations

from service.commands.kinds import Answer, HelpAnswer
from service.commands.verbs import Request, VerbSpec

NAME = "help"


def respond(request: Request) -> Answer:
    return HelpAnswer(repo=request.repo, usage=list(request.usage))


SPEC = VerbSpec(name=NAME, respond=respond, aliases=("?",), lenient=True)
