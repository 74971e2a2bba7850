"""Without google-re2 (no wheel for musl) path globs are matched by the built-in automaton: it
answers as the RE2 program does, and the globs that stall a backtracking regex stay fast."""

from __future__ import annotations

import time

import pytest
import re2
from hypothesis import given, settings
from hypothesis import strategies as st

from service.core.glob_automaton import GlobAutomaton
from service.core.globs import _tokens, glob_to_re2

PIECES = ["*", "**", "**/", "?", "a", "b", "/", ".", "X"]
PATH_CHARS = "ab/.X"
STALLERS = ["*" * 8 + "X", "a*" * 8 + "X", "*a?" * 4 + "X", "**/" * 8 + "X", "**" * 20 + "X"]
STALLED_PATHS = ["a" * 300, "a/" * 150, "verl/" + "aX" * 120 + "Y"]
BOUND_SECONDS = 2.0


def automaton(glob: str) -> GlobAutomaton:
    return GlobAutomaton(tuple(_tokens(glob)))


@pytest.mark.parametrize(
    ("glob", "path", "expected"),
    [
        ("verl/workers/**", "verl/workers/fsdp/actor.py", True),
        ("verl/workers/**", "verl/trainer/main.py", False),
        ("*.md", "README.md", True),
        ("*.md", "docs/README.md", False),
        ("**/*.md", "README.md", True),
        ("**/*.md", "docs/a/README.md", True),
        ("docs/?.md", "docs/a.md", True),
        ("docs/?.md", "docs//.md", False),
        ("a**/b", "a/x/b", True),
        ("", "", True),
        ("", "a", False),
    ],
)
def test_examples_match_as_the_profile_reads_globs(glob: str, path: str, expected: bool) -> None:
    assert automaton(glob).fullmatch(path) is expected
    assert (re2.fullmatch(glob_to_re2(glob), path) is not None) is expected


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), max_size=8).map("".join),
    st.text(alphabet=PATH_CHARS, max_size=12),
)
def test_the_automaton_answers_as_re2_does(glob: str, path: str) -> None:
    assert automaton(glob).fullmatch(path) is (re2.fullmatch(glob_to_re2(glob), path) is not None)


@pytest.mark.parametrize("glob", STALLERS)
def test_globs_that_stall_a_backtracking_regex_stay_fast(glob: str) -> None:
    matcher = automaton(glob)
    started = time.perf_counter()
    for _ in range(20):
        for path in STALLED_PATHS:
            assert matcher.fullmatch(path) is False
    assert time.perf_counter() - started < BOUND_SECONDS
