"""`via(part, Part.method)`: a class attribute that is `self.<part>.method`, typed as that method
(so mypy checks the callers and the protocols the composing class satisfies)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Concatenate, Generic, ParamSpec, TypeVar

A = TypeVar("A")
P = ParamSpec("P")
R = TypeVar("R")


class Via(Generic[A, P, R]):
    """The method `name` of the instance's attribute `part`, read through the instance."""

    def __init__(self, part: str, method: Callable[Concatenate[A, P], R]) -> None:
        self.part = part
        self.name = method.__name__

    def __get__(self, instance: object, owner: type | None = None) -> Callable[P, R]:
        bound: Callable[P, R] = getattr(getattr(instance, self.part), self.name)
        return bound


def via(part: str, method: Callable[Concatenate[A, P], R]) -> Via[A, P, R]:
    return Via(part, method)
