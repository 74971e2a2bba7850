"""The languages a digest, a card and a chat answer can be written in (one catalog each in
templates/strings/)."""

from __future__ import annotations

from typing import Literal, get_args

Language = Literal["zh", "en"]
LANGUAGES: tuple[Language, ...] = get_args(Language)
