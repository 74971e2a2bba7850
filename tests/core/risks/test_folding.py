"""`folding.folded`: a lowered pattern's case-sensitive search of folded text finds what the
IGNORECASE pattern finds in the text, on any text."""

from __future__ import annotations

import re
import sys

from hypothesis import given
from hypothesis import strategies as st

from service.core.risks import precision, secrets
from service.core.risks.folding import folded

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def test_only_four_characters_beyond_ascii_match_an_ascii_letter_ignoring_case() -> None:
    letter = re.compile("[a-z]", re.IGNORECASE)
    beyond = [chr(c) for c in range(128, sys.maxunicode + 1) if letter.fullmatch(chr(c))]
    assert beyond == ["\u0130", "\u0131", "\u017f", "\u212a"]  # İ ı ſ, the Kelvin sign
    for char in beyond:  # each folds to the one letter it matches
        assert [x for x in LETTERS if re.fullmatch(x, char, re.IGNORECASE)] == [folded(char)]


def test_lowering_makes_no_other_character_ascii() -> None:
    turned = [c for c in range(128, sys.maxunicode + 1) if any(x.isascii() for x in chr(c).lower())]
    assert turned == [0x130, 0x212A]


def test_folded_keeps_the_length_and_lowers_ascii() -> None:
    text = "\u0130nt8 \u0131NT8 \u017feCRET \u212a \u03a3 中文 BF16"
    assert folded(text) == "int8 int8 secret k σ 中文 bf16"
    assert len(folded(text)) == len(text)


ALPHABET = "\u0130\u0131\u017f\u212akKsSiI aAbBfF168pqQuUnNtT_-中é\n"
HINTS = st.text(alphabet=st.sampled_from(ALPHABET), max_size=40)


@given(HINTS, st.sampled_from(["bf16", "QUANT", "ghp_", "AKIA", "private key", "int8", "amp"]))
def test_hints_answer_as_ignoring_case(text: str, word: str) -> None:
    for sample in (text, text + word, word + text, text + word.upper() + text):
        found = precision.MENTIONS.search(sample) is not None
        assert precision.mentions_precision(sample) == found
        assert secrets.may_hold_secrets(sample) == (secrets._HINT.search(sample) is not None)
