"""Parse PR titles in verl's convention `[BREAKING][mod1, mod2] type: description`, tolerantly."""

from __future__ import annotations

import functools
import re

from pydantic import BaseModel, ConfigDict, Field

# words that say code went elsewhere (a PR that only deletes may still have moved it out)
MOVE_WORDS = re.compile(
    r"\b(mov(e|es|ed|ing)|migrat\w*|split\w*\s+(out|into)|relocat\w*|transfer\w*)\b", re.I
)

_BRACKET = re.compile(r"^\s*\[([^\]]*)\]\s*")
_PART = re.compile(r"^\s*\[?\s*(\d+)\s*/\s*(\d+|n)\s*\]?\s*$", re.IGNORECASE)
_TYPED = re.compile(r"^\s*([A-Za-z]+)\s*(?:\(([^)]*)\))?\s*(!)?\s*:\s*(.*)$", re.DOTALL)
_REVERT = re.compile(r'^\s*Revert\s+"(.*)"\s*$', re.IGNORECASE | re.DOTALL)
_REVERT_LOOSE = re.compile(r"^\s*revert\b[:\s]*(.*)$", re.IGNORECASE | re.DOTALL)
_PR_REF = re.compile(r"\(#(\d+)\)\s*$")
TITLE_CACHE = 8192


class _Draft(BaseModel):
    """A title being parsed (mutable); parse_title hands out the frozen ParsedTitle."""

    model_config = ConfigDict(extra="forbid")
    breaking: bool = False
    modules: list[str] = Field(default_factory=list)
    change_type: str | None = None
    description: str = ""
    part: str | None = None
    is_revert: bool = False
    reverted_title: str | None = None
    referenced_pr: int | None = None
    conventional: bool = False


class ParsedTitle(_Draft):
    """What a title says about itself; `modules` are lower-case as written (not yet aliased)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def _split_modules(text: str) -> list[str]:
    return [m.strip().lower() for m in re.split(r"[,/&|]", text) if m.strip()]


def _take_brackets(rest: str, parsed: _Draft) -> str:
    while True:
        match = _BRACKET.match(rest)
        if not match:
            return rest
        inner = match.group(1).strip()
        rest = rest[match.end() :]
        if inner.upper() == "BREAKING":
            parsed.breaking = True
        elif _PART.match(inner):
            parsed.part = inner.replace(" ", "")
        elif inner:
            parsed.modules.extend(_split_modules(inner))


def _take_type(rest: str, parsed: _Draft, known_types: frozenset[str]) -> str:
    match = _TYPED.match(rest)
    if not match:
        return rest
    word = match.group(1).lower()
    if known_types and word not in known_types:
        return rest
    parsed.change_type = word
    if match.group(2):
        parsed.modules.extend(_split_modules(match.group(2)))
    if match.group(3):
        parsed.breaking = True
    return match.group(4)


@functools.lru_cache(maxsize=TITLE_CACHE)
def parse_title(title: str, known_types: frozenset[str] = frozenset()) -> ParsedTitle:
    """Split a title into breaking flag, modules, type and description; never raises.

    Cached (detectors ask about the same titles many times); the result is frozen."""
    return ParsedTitle.model_validate(_parse(title, known_types).model_dump())


def _parse(title: str, known_types: frozenset[str]) -> _Draft:
    parsed = _Draft()
    text = title.strip()
    revert = _REVERT.match(text) or _REVERT_LOOSE.match(text)
    if revert:
        parsed.is_revert = True
        parsed.reverted_title = revert.group(1).strip() or None
        parsed.change_type = "revert"
        parsed.description = text
        inner = parse_title(parsed.reverted_title or "", known_types)
        parsed.modules = inner.modules
        ref = _PR_REF.search(parsed.reverted_title or "")
        parsed.referenced_pr = int(ref.group(1)) if ref else None
        return parsed
    rest = _take_brackets(text, parsed)
    had_brackets = bool(parsed.modules) or parsed.breaking
    rest = _take_type(rest, parsed, known_types)
    rest = _take_brackets(rest, parsed)  # `fix: [mod] …` also occurs
    parsed.description = rest.strip()
    parsed.conventional = had_brackets and parsed.change_type is not None
    ref = _PR_REF.search(text)
    parsed.referenced_pr = int(ref.group(1)) if ref else None
    parsed.modules = list(dict.fromkeys(parsed.modules))
    return parsed
