"""A throwaway chat verb that exists only for the tests: `echo [owner/repo]` answers who asked,
in which channel, about which repository. It is the whole of a new verb but its catalog keys:
one module with its tokens, its answer model and its answer function, registered through
`service.commands.registry.register` (tests/channels/test_new_verb.py). It is a button of the
digest's Slack and Feishu cards too (`button`), which the cards show and the button answers."""

from __future__ import annotations

from typing import Literal

from service.commands import tokens
from service.commands.kinds import Said
from service.commands.verbs import CardButton, Request, VerbSpec

NAME = "echo"
ANSWER_KEY = "cmd.answer.echo"
# the catalog keys a real verb would add to templates/strings/<lang>/ (the test adds them)
CATALOG = {
    "en": {
        f"cmd.usage.{NAME}": "`echo [owner/repo]`: who asks, where",
        f"feishu.button.{NAME}": "Echo",
        f"slack.button.{NAME}": "Echo",
        ANSWER_KEY: "{user} asked in {channel} about {repo}",
    },
    "zh": {
        f"cmd.usage.{NAME}": "`echo [owner/repo]`：谁在哪里问",
        f"feishu.button.{NAME}": "回声",
        f"slack.button.{NAME}": "回声",
        ANSWER_KEY: "{user} 在 {channel} 问了 {repo}",
    },
}


class EchoAnswer(Said):
    """The verb's own answer kind: one catalog sentence."""

    kind: Literal["echo"] = "echo"


def respond(request: Request) -> EchoAnswer:
    caller = request.caller
    params: dict[str, str | int] = {
        "user": caller.user_id,
        "channel": caller.channel,
        "repo": request.repo,
    }
    return EchoAnswer(repo=request.repo, key=ANSWER_KEY, params=params)


SPEC = VerbSpec(
    name=NAME,
    respond=respond,
    tokens=(tokens.period, tokens.repository),
    models=(EchoAnswer,),
    button=CardButton(),
)
