"""The names a risk keeps as one ", "-joined parameter (`names`, `targets`), split back: a comma
inside brackets belongs to a value (`sde_window_range: [0, 5] → null`), not between names."""

from __future__ import annotations


def split_names(text: str) -> list[str]:
    """`text` split at each ", " outside brackets, empty parts left out."""
    out, depth, start = [], 0, 0
    for at, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif char == "," and depth == 0 and text[at + 1 : at + 2] == " ":
            out.append(text[start:at])
            start = at + 2
    out.append(text[start:])
    return [name for name in out if name]
