"""Path globs a reader types (`path:verl/workers/**`, `*.md`), matched in linear time.

A user's glob is untrusted: translated to a backtracking regex, `*` forty times and an `X`
takes exponential time on a path without `X` and stops every thread of the process. Here a
glob becomes an RE2 program (google-re2: a DFA/NFA engine with no backtracking), so matching
costs O(len(glob) × len(path)) whatever the glob. The filter grammar also caps a glob's length
and wildcard count (service/commands/filters.py), so a compiled program stays small.

Semantics are those of the repo profile's globs: `*` and `?` stay within a path segment,
`**` spans segments and `**/` may match nothing.
"""

from __future__ import annotations

import functools
import re

import re2

MAX_GLOB_WILDCARDS = 8
# RE2's default memory budget is 8 MiB per program; a capped glob needs far less
_RE2_MAX_MEM = 1 << 20
_OPTIONS = re2.Options()
_OPTIONS.max_mem = _RE2_MAX_MEM


_TOKENS = (("**/", "(?:.*/)?"), ("**", ".*"), ("*", "[^/]*"), ("?", "[^/]"))


def _tokens(glob: str) -> list[tuple[str, bool]]:
    """(RE2 syntax, is a wildcard) per token, read as the repo profile reads its globs."""
    out: list[tuple[str, bool]] = []
    i = 0
    while i < len(glob):
        for token, syntax in _TOKENS:
            if glob.startswith(token, i):
                out.append((syntax, True))
                i += len(token)
                break
        else:
            out.append((re.escape(glob[i]), False))
            i += 1
    return out


def wildcard_count(glob: str) -> int:
    """How many wildcards (`**/`, `**`, `*`, `?`) `glob` holds."""
    return sum(1 for _syntax, wild in _tokens(glob) if wild)


def glob_to_re2(glob: str) -> str:
    """The RE2 syntax of `glob` (anchored by fullmatch)."""
    return "".join(syntax for syntax, _wild in _tokens(glob))


@functools.lru_cache(maxsize=256)
def compiled(glob: str) -> re2._Regexp:
    """The RE2 program of `glob` (cached: a filter is matched against every path of a week)."""
    return re2.compile(glob_to_re2(glob), _OPTIONS)


def glob_matches(path: str, glob: str) -> bool:
    """Whether `path` matches `glob` as a whole."""
    return compiled(glob).fullmatch(path) is not None
