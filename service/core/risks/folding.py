"""Case folding for the cheap hint patterns: lowered text searched case-sensitively finds what
an IGNORECASE search of the text finds, and several times faster (every alternative of a
lowered pattern starts with a plain letter, which the regex engine skips to).

Holds for a pattern whose literals and classes are ASCII (letters lower case) and that has no
`\\w`, `\\b` or `\\s`: under IGNORECASE, Python's `re` matches an ASCII letter with its other
case and with four characters beyond ASCII (İ ı ſ K: `tests/core/risks/test_folding.py` checks
every code point), and lowering changes no other character into an ASCII one."""

from __future__ import annotations

# the characters beyond ASCII that an IGNORECASE ASCII letter matches, and that letter; İ first,
# as its lower case is two characters ("i̇"), K after, as lowering makes it "k" already
_BEFORE_LOWER = (("İ", "i"),)
_AFTER_LOWER = (("ı", "i"), ("ſ", "s"))


def folded(text: str) -> str:
    """`text` lowered for a lowered pattern's case-sensitive search (see the module)."""
    if text.isascii():
        return text.lower()
    for char, letter in _BEFORE_LOWER:
        text = text.replace(char, letter)
    text = text.lower()
    for char, letter in _AFTER_LOWER:
        text = text.replace(char, letter)
    return text
