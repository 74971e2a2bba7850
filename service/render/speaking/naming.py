"""How a family's PRs are named (`verl-omni#25`) where a sentence holds only their keys: a
command answer is worded without its digest, so its renderer says, for the time it renders,
which family's repositories the keys are of (AnswerBase.repos)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import ParamSpec, TypeVar

from service.core.scope import ref_label

P = ParamSpec("P")
R = TypeVar("R")
_REPOS: ContextVar[tuple[str, ...]] = ContextVar("family_repos", default=())


def family_repos() -> tuple[str, ...]:
    """The repositories of the family being rendered (empty: a single repository)."""
    return _REPOS.get()


def pr_ref_text(key: int, repos: Sequence[str] = ()) -> str:
    """`#6200` or `verl-omni#25`, by `repos` or else the family being rendered."""
    return ref_label(repos or family_repos(), key)


@contextmanager
def named_for(repos: Sequence[str]) -> Iterator[None]:
    token = _REPOS.set(tuple(repos))
    try:
        yield
    finally:
        _REPOS.reset(token)


def named_by_family(
    repos_of: Callable[..., Sequence[str]],
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a renderer: family keys are named after the repositories `repos_of(args)`."""

    def decorate(render: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(render)
        def named(*args: P.args, **kwargs: P.kwargs) -> R:
            with named_for(repos_of(*args, **kwargs)):
                return render(*args, **kwargs)

        return named

    return decorate
