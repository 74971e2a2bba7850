"""A command names its period as a PeriodRef (a label or a relative word, as typed or as a
button's value carries it); the engine resolves it to a Period once, in its timezone and clock,
before the verb answers: verbs are handed the Period, never the word."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from service.commands import buttons, registry, tokens
from service.commands.answer import AnswerKind, Caller, EngineContext, answer, answer_text
from service.commands.grammar import PeriodRef
from service.commands.kinds import Answer, HelpAnswer, RisksAnswer, UsageErrorAnswer
from service.commands.verbs import Request, VerbSpec
from service.core.models import Period

USER = Caller(user_id="UPLAIN", platform="slack", channel="C1")
Ctx = Callable[..., EngineContext]
SEEN = "seen"


@pytest.fixture
def seen() -> Iterator[list[Request]]:
    """A verb that keeps the requests it is handed, registered for one test."""
    requests: list[Request] = []

    def respond(request: Request) -> Answer:
        requests.append(request)
        return HelpAnswer()

    registry.register(VerbSpec(name=SEEN, respond=respond, tokens=(tokens.period,)))
    try:
        yield requests
    finally:
        del registry.VERBS[SEEN]
        registry.answer_adapter.cache_clear()


@pytest.mark.parametrize(
    ("text", "kind", "label"),
    [
        ("seen last", "week", "2026-W48"),  # NOW is 2026-12-02, in W49 (Asia/Shanghai)
        ("seen 2026-w03", "week", "2026-W03"),
        ("seen month", "month", "2026-11"),
        ("seen 2026-01-12..2026-01-18", "range", "2026-01-12..2026-01-18"),
    ],
)
def test_the_verb_is_handed_the_resolved_period(
    seen: list[Request], make_ctx: Ctx, text: str, kind: str, label: str
) -> None:
    answer_text(text, USER, make_ctx())
    (request,) = seen
    assert isinstance(request.command.period, PeriodRef)  # the command keeps what was typed
    assert isinstance(request.period, Period)
    assert (request.period.kind, request.period.label) == (kind, label)
    assert request.period.timezone == "Asia/Shanghai"


def test_a_command_without_a_period_hands_none(seen: list[Request], make_ctx: Ctx) -> None:
    answer_text("seen", USER, make_ctx())
    assert seen[0].period is None


def test_a_period_ahead_is_refused_before_the_verb_answers(
    seen: list[Request], make_ctx: Ctx
) -> None:
    reply = answer_text("seen 2026-W52", USER, make_ctx())
    assert isinstance(reply, UsageErrorAnswer)
    assert reply.key == "cmd.error.future_week"
    assert seen == []


def test_an_old_buttons_label_decodes_and_resolves(make_ctx: Ctx) -> None:
    old = {"action": "risks", "repo": "volcengine/verl", "week": "2026-w03"}
    command = buttons.decode(old)
    assert command is not None
    assert command.period == PeriodRef(text="2026-W03")
    reply = answer(command, USER, make_ctx())
    assert reply.kind is AnswerKind.RISKS
    assert isinstance(reply, RisksAnswer)
    assert reply.period is not None
    assert reply.period.label == "2026-W03"
