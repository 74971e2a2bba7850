"""Scaled wording: a month's digest says "本月" / "this month" and "month-over-month" where a
week's says "本周" / "this week" and "week-over-week"; a range's says "本期" / "this period".

The catalogs hold the week's sentences; templates/periods/<lang>.toml holds, per kind of
period, the words to replace in them. The renderers of a digest or an answer about one period
(`@worded_by_period`) set the period being told for the time of the call (a context variable:
threads and tasks each keep their own), and `translator()` hands out the scaled catalog then.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import ParamSpec, TypeVar

from service.core.periods import kind_of
from service.render.strings import load_catalog

WEEK = "week"
_KIND: ContextVar[str] = ContextVar("verl_week_period_kind", default=WEEK)
P = ParamSpec("P")
R = TypeVar("R")


def current_kind() -> str:
    """The kind of period being told (`week` outside any period's rendering)."""
    return _KIND.get()


@contextmanager
def period_wording(label: str) -> Iterator[None]:
    """Tell the period `label` names (a week, a month, a range) for the block's duration."""
    kind = kind_of(label)
    token = _KIND.set(kind if kind is not None else WEEK)
    try:
        yield
    finally:
        _KIND.reset(token)


def worded_by_period(
    label_of: Callable[..., str],
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a renderer: its sentences are worded for the period `label_of(args)` names."""

    def decorate(render: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(render)
        def worded(*args: P.args, **kwargs: P.kwargs) -> R:
            with period_wording(label_of(*args, **kwargs)):
                return render(*args, **kwargs)

        return worded

    return decorate


@functools.lru_cache(maxsize=8)
def _replacements(folder: str, lang: str, kind: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    path = Path(folder, f"{lang}.toml")
    table = tomllib.loads(path.read_text(encoding="utf-8")).get(kind, {}) if path.exists() else {}
    # whole words where the words are Latin; Chinese has no spaces to bound them
    rules = []
    for old in sorted(table, key=len, reverse=True):
        bound = r"\b" if re.match(r"\w", old, re.ASCII) else ""
        end = r"\b" if re.search(r"\w$", old, re.ASCII) else ""
        rules.append((re.compile(f"{bound}{re.escape(old)}{end}"), str(table[old])))
    return tuple(rules)


def reworded(sentence: str, rules: tuple[tuple[re.Pattern[str], str], ...]) -> str:
    for pattern, new in rules:
        sentence = pattern.sub(new, sentence)
    return sentence


@functools.lru_cache(maxsize=8)
def scaled_catalog(strings: str, periods: str, lang: str, kind: str) -> dict[str, str]:
    """The catalog of `lang` (from the folder `strings`) worded for `kind` by the rules in
    the folder `periods`."""
    rules = _replacements(periods, lang, kind)
    return {key: reworded(text, rules) for key, text in load_catalog(strings, lang).items()}
