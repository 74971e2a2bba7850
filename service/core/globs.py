"""Path globs a reader types (`path:verl/workers/**`, `*.md`), matched in linear time.

A user's glob is untrusted: translated to a backtracking regex, `*` forty times and an `X`
takes exponential time on a path without `X` and stops every thread of the process. Here a
glob becomes an RE2 program (google-re2: a DFA/NFA engine with no backtracking), so matching
costs O(len(glob) × len(path)) whatever the glob. The filter grammar also caps a glob's length
and wildcard count (service/commands/filters.py), so a compiled program stays small.

Semantics are those of the repo profile's globs: `*` and `?` stay within a path segment,
`**` spans segments and `**/` may match nothing.

google-re2 is an optional dependency (the `fast` extra: it has no wheel for musl). Without it
a glob is matched by service/core/glob_automaton.py, linear time too (`ENGINE` says which).
"""

from __future__ import annotations

import functools
import importlib
import re
from types import ModuleType
from typing import Any

from service.core.glob_automaton import GlobAutomaton, Token


def _load_re2() -> ModuleType | None:
    try:
        return importlib.import_module("re2")
    except ImportError:
        return None


_RE2 = _load_re2()
NATIVE_ENGINE = "google-re2"
ENGINE = NATIVE_ENGINE if _RE2 is not None else "the built-in automaton"
MAX_GLOB_WILDCARDS = 8
# RE2's default memory budget is 8 MiB per program; a capped glob needs far less
_RE2_MAX_MEM = 1 << 20

# the wildcards, longest first, with their RE2 syntax
_WILDCARDS = (
    (Token.FOLDERS, "(?:.*/)?"),
    (Token.ANY, ".*"),
    (Token.STAR, "[^/]*"),
    (Token.ONE, "[^/]"),
)


def _tokens(glob: str) -> list[tuple[Token, str]]:
    """(token, its text) per token, read as the repo profile reads its globs."""
    out: list[tuple[Token, str]] = []
    i = 0
    while i < len(glob):
        for token, _syntax in _WILDCARDS:
            if glob.startswith(token.value, i):
                out.append((token, token.value))
                i += len(token.value)
                break
        else:
            out.append((Token.LITERAL, glob[i]))
            i += 1
    return out


def wildcard_count(glob: str) -> int:
    """How many wildcards (`**/`, `**`, `*`, `?`) `glob` holds."""
    return sum(1 for token, _text in _tokens(glob) if token is not Token.LITERAL)


def glob_to_re2(glob: str) -> str:
    """The RE2 syntax of `glob` (anchored by fullmatch)."""
    syntax = dict(_WILDCARDS)
    parts = _tokens(glob)
    return "".join(re.escape(text) if tok is Token.LITERAL else syntax[tok] for tok, text in parts)


@functools.lru_cache(maxsize=256)
def compiled(glob: str) -> Any:
    """The RE2 program of `glob`, or its automaton without google-re2 (cached: a filter is
    matched against every path of a week)."""
    if _RE2 is None:
        return GlobAutomaton(tuple(_tokens(glob)))
    options = _RE2.Options()
    options.max_mem = _RE2_MAX_MEM
    return _RE2.compile(glob_to_re2(glob), options)


def glob_matches(path: str, glob: str) -> bool:
    """Whether `path` matches `glob` as a whole."""
    found = compiled(glob).fullmatch(path)  # an RE2 match or None; the automaton's bool
    return found is not None and found is not False
