"""Path globs matched without google-re2 (no wheel for musl): an automaton, still linear time.

Where google-re2 is not installed, service/core/globs.py matches with this instead of a
backtracking `re` program (which takes exponential time on `*a*a*a*…X`). A glob becomes a small
NFA; its states are followed together (Thompson's construction), and each (set of states,
character) step is remembered, so a path costs one dictionary look-up per character once warm.
The remembered steps are capped: memory stays bounded whatever the paths.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

SLASH = "/"
MAX_REMEMBERED_STEPS = 4096


class Token(Enum):
    """The glob tokens (the repo profile's reading): `*`, `?` within a segment, `**` across
    segments, `**/` any number of leading folders, or one literal character."""

    LITERAL = "literal"
    ONE = "?"
    STAR = "*"
    ANY = "**"
    FOLDERS = "**/"


# A state is (token index, inside the folder loop of a `**/`); index len(tokens) accepts.
State = tuple[int, bool]


@dataclass
class GlobAutomaton:
    """The automaton of one glob: `fullmatch(path)` is truthy when the whole path matches."""

    tokens: tuple[tuple[Token, str], ...]
    _steps: dict[tuple[frozenset[State], str], frozenset[State]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._start = self._closure({(0, False)})

    def _closure(self, states: set[State]) -> frozenset[State]:
        """`states` with every state reachable without reading a character."""
        todo = list(states)
        seen = set(states)
        while todo:
            index, looping = todo.pop()
            if looping or index >= len(self.tokens):
                continue
            kind = self.tokens[index][0]
            if kind in (Token.STAR, Token.ANY, Token.FOLDERS):
                nxt: list[State] = [(index + 1, False)]
                if kind is Token.FOLDERS:
                    nxt.append((index, True))
                for state in nxt:
                    if state not in seen:
                        seen.add(state)
                        todo.append(state)
        return frozenset(seen)

    def _moves(self, state: State, char: str) -> list[State]:
        index, looping = state
        if index >= len(self.tokens):
            return []
        if looping:  # inside `**/`: any character, and a slash may end the folders
            return [(index, True), (index + 1, False)] if char == SLASH else [(index, True)]
        kind, literal = self.tokens[index]
        if kind is Token.LITERAL:
            return [(index + 1, False)] if char == literal else []
        if kind is Token.ONE:
            return [(index + 1, False)] if char != SLASH else []
        if kind is Token.STAR:
            return [(index, False)] if char != SLASH else []
        if kind is Token.ANY:
            return [(index, False)]
        return []  # FOLDERS: its loop state reads

    def _step(self, states: frozenset[State], char: str) -> frozenset[State]:
        key = (states, char)
        known = self._steps.get(key)
        if known is not None:
            return known
        moved = {target for state in states for target in self._moves(state, char)}
        result = self._closure(moved)
        if len(self._steps) >= MAX_REMEMBERED_STEPS:
            self._steps.clear()
        self._steps[key] = result
        return result

    def fullmatch(self, path: str) -> bool:
        states = self._start
        for char in path:
            states = self._step(states, char)
            if not states:
                return False
        return (len(self.tokens), False) in states
