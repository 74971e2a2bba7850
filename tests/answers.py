"""Reading a kind's own fields off a command answer: the test asserts the kind it expects."""

from __future__ import annotations

from typing import TypeVar

from service.commands.kinds import AnswerBase

KindT = TypeVar("KindT", bound=AnswerBase)


def as_kind(reply: AnswerBase, kind: type[KindT]) -> KindT:
    """`reply` as the answer kind `kind`, failing the test when it is another kind."""
    assert isinstance(reply, kind), f"expected {kind.__name__}, got {reply!r}"
    return reply
