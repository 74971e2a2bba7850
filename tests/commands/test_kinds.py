"""The answer union: each kind carries its own fields only, and an answer read back from JSON is
the same kind with the same fields (the engine's answers of the real recorded weeks)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pydantic import TypeAdapter, ValidationError

from service.commands.answer import Caller, EngineContext, answer_text
from service.commands.kinds import (
    Answer,
    AnswerKind,
    DigestViewAnswer,
    HelpAnswer,
    NoticeAnswer,
    RisksAnswer,
    TopAnswer,
)
from service.commands.registry import answer_adapter
from tests.commands.conftest import ADMIN

ANSWERS: TypeAdapter[Answer] = answer_adapter()
COMMANDS = [
    "help",
    "risks high",
    "pr 5033",
    "pr 424242",
    "top 3",
    "summary",
    "trends",
    "week 2026-W03",
    "week 2026-W99",
    "risks module:nosuchmodule",
    "regenerate",
    "subscribe",
    "subscriptions",
]


def test_every_answer_round_trips_as_its_own_kind(
    make_ctx: Callable[..., EngineContext],
) -> None:
    ctx = make_ctx()
    kinds = set()
    for text in COMMANDS:
        reply = answer_text(text, Caller(ADMIN, "slack", "C1"), ctx)
        back = ANSWERS.validate_json(ANSWERS.dump_json(reply))
        assert type(back) is type(reply), text
        assert back == reply, text
        kinds.add(reply.kind)
    assert len(kinds) >= 9


def test_a_kind_refuses_the_fields_of_another() -> None:
    with pytest.raises(ValidationError):
        RisksAnswer.model_validate({"key": "cmd.answer.denied"})  # a sentence is no risks list
    with pytest.raises(ValidationError):
        HelpAnswer.model_validate({"digest": None})
    with pytest.raises(ValidationError):  # a view needs its digest
        DigestViewAnswer.model_validate({"kind": AnswerKind.SUMMARY})
    with pytest.raises(ValidationError):  # one-sentence kinds only
        NoticeAnswer.model_validate({"kind": AnswerKind.TOP, "key": "cmd.answer.denied"})
    top = ANSWERS.validate_python({"kind": "top", "repo": "o/r"})
    assert isinstance(top, TopAnswer)
    assert top.prs == []
