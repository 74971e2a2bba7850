"""What the model must answer: the JSON schema sent as `response_format`, and the parser that
turns the answer's text into drafts (or says why it is not an answer at all).

Every item names the PR numbers it rests on and its evidence: quotes copied from those PRs'
data (`{"pr": N, "quote": "…"}`); an answer without evidence (an older prompt, another tool)
is still read, its drafts carry none and the checker searches the cited PRs' data instead.
Limits (at most 5 summary sentences, 6 key-change bullets, 10 PR points, 5 recommendations)
are in the schema and enforced again by the checker.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from service.core.scope import key_of_ref

# bump when the schema or the meaning of a field changes: cached answers of another version
# are not reused (the prompt templates' own text is hashed into the version by render/prompt.py)
PROMPT_VERSION = "3"
SCHEMA_NAME = "weekly_analysis"
LIMITS = {
    "headline": 1,
    "summary": 5,
    "key_changes": 6,
    "pr_points": 10,
    "trends": 5,
    "recommendations": 5,
    "review_notes": 5,
}
SECTIONS = tuple(LIMITS)
_THINK = re.compile(r"^\s*<think>.*?</think>", re.DOTALL)
_FENCE = "```"
# an answer is a few kilobytes; a larger text is not parsed at all (a hostile or runaway model)
MAX_ANSWER_CHARS = 256 * 1024


class InvalidAnswerError(ValueError):
    """The model's text is not JSON for the schema; the message says what is wrong."""


@dataclass(frozen=True)
class Draft:
    """One sentence as the model wrote it, before the checker: its section, the PRs it says it
    rests on, and for a key change its theme label."""

    section: str
    text: str
    prs: tuple[int, ...] = ()
    theme: str = ""
    evidence: tuple[tuple[int, str], ...] = ()  # (PR number, quote) as the model gave them


# a PR in an answer: its number; in a family's, its reference (`#6200`, `verl-omni#25`)
_NUMBER: dict[str, Any] = {"type": "integer"}
_REFERENCE: dict[str, Any] = {"type": "string"}


def _quote(pr: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["pr", "quote"],
        "properties": {"pr": pr, "quote": {"type": "string"}},
    }


def _item(extra: dict[str, Any] | None = None, pr: dict[str, Any] = _NUMBER) -> dict[str, Any]:
    properties: dict[str, Any] = {
        **(extra or {}),
        "text": {"type": "string"},
        "prs": {"type": "array", "items": pr},
        "evidence": {"type": "array", "items": _quote(pr)},
    }
    return {
        "type": "object",
        "additionalProperties": False,
        "required": list(properties),
        "properties": properties,
    }


def _list(item: dict[str, Any], limit: int) -> dict[str, Any]:
    return {"type": "array", "maxItems": limit, "items": item}


def answer_schema(family: bool = False) -> dict[str, Any]:
    """The JSON schema of the answer (strict-mode compatible: every property required); a
    family's names each PR by its reference (a string) where one repository's has numbers."""
    pr = _REFERENCE if family else _NUMBER
    properties = {
        "headline": _item(pr=pr),
        "summary": _list(_item(pr=pr), LIMITS["summary"]),
        "key_changes": _list(_item({"theme": {"type": "string"}}, pr), LIMITS["key_changes"]),
        "pr_points": _list(_item({"pr": pr}, pr), LIMITS["pr_points"]),
        "trends": _list(_item(pr=pr), LIMITS["trends"]),
        "recommendations": _list(_item(pr=pr), LIMITS["recommendations"]),
        "review_notes": _list(_item(pr=pr), LIMITS["review_notes"]),
    }
    return {
        "type": "object",
        "additionalProperties": False,
        "required": list(properties),
        "properties": properties,
    }


def response_format(family: bool = False) -> dict[str, Any]:
    """The chat completions `response_format` carrying the schema."""
    schema = answer_schema(family)
    return {
        "type": "json_schema",
        "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": schema},
    }


def _strip(text: str) -> str:
    """Reasoning models may think aloud first or fence the JSON: keep the JSON only."""
    text = _THINK.sub("", text).strip()
    # plain string operations, linear in the text (a regex here backtracked for minutes on a
    # fence followed by thousands of newlines)
    if len(text) < 2 * len(_FENCE) or not (text.startswith(_FENCE) and text.endswith(_FENCE)):
        return text
    inner = text[len(_FENCE) : -len(_FENCE)]
    return inner.removeprefix("json").strip()


def _number(value: Any, repos: Sequence[str]) -> int | None:
    """A PR the answer names: a number, or in a family's answer its reference (`verl-omni#25`
    as its key, core/scope.py)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return key_of_ref(value, repos) if repos and isinstance(value, str) else None


def _prs(value: Any, where: str, repos: Sequence[str] = ()) -> tuple[int, ...]:
    numbers = [_number(n, repos) for n in value] if isinstance(value, list) else [None]
    if None in numbers:
        what = "PR references" if repos else "integers"
        raise InvalidAnswerError(f"{where}.prs is not a list of {what}")
    return tuple(dict.fromkeys(n for n in numbers if n is not None))


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise InvalidAnswerError(f"{where}.text is not a string")
    return value


def _evidence(value: Any, where: str, repos: Sequence[str] = ()) -> tuple[tuple[int, str], ...]:
    """The item's quotes; none when the answer has no evidence field (an older prompt)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise InvalidAnswerError(f"{where}.evidence is not a list")
    quotes = []
    for i, raw in enumerate(value):
        number = _number(raw.get("pr"), repos) if isinstance(raw, dict) else None
        quote = raw.get("quote") if isinstance(raw, dict) else None
        if number is None or not isinstance(quote, str):
            raise InvalidAnswerError(f"{where}.evidence[{i}] is not {{pr, quote}}")
        quotes.append((number, quote))
    return tuple(dict.fromkeys(quotes))


def _draft(section: str, raw: Any, where: str, repos: Sequence[str] = ()) -> Draft:
    if not isinstance(raw, dict):
        raise InvalidAnswerError(f"{where} is not an object")
    for name in ("text", "prs"):
        if name not in raw:
            raise InvalidAnswerError(f"{where} has no {name}")
    prs = _prs(raw["prs"], where, repos)
    theme: Any = ""
    if section == "key_changes":
        theme = raw.get("theme")
        if not isinstance(theme, str):
            raise InvalidAnswerError(f"{where}.theme is not a string")
    if section == "pr_points":
        number = _number(raw.get("pr"), repos)
        if number is None:
            what = "a PR reference" if repos else "an integer"
            raise InvalidAnswerError(f"{where}.pr is not {what}")
        prs = tuple(dict.fromkeys((number, *prs)))
    evidence = _evidence(raw.get("evidence"), where, repos)
    return Draft(section, _text(raw["text"], where), prs, theme, evidence)


def parse_answer(text: str, repos: Sequence[str] = ()) -> list[Draft]:
    """The drafts of an answer, in section order (`repos`: a family's repositories, whose PRs
    the answer names by reference); InvalidAnswerError when it is not JSON for the
    schema (unknown extra fields are ignored; items past a limit are kept for the checker,
    which drops them with a reason). Larger than MAX_ANSWER_CHARS or nested too deeply for the
    JSON parser: InvalidAnswerError too (a dropped narrative, never a failed week)."""
    if len(text) > MAX_ANSWER_CHARS:
        raise InvalidAnswerError(f"larger than {MAX_ANSWER_CHARS:,} characters ({len(text):,})")
    try:
        data = json.loads(_strip(text))
    except ValueError as exc:
        raise InvalidAnswerError(f"not JSON ({exc.__class__.__name__}: {exc})") from None
    except RecursionError:
        raise InvalidAnswerError("not JSON (nested too deeply)") from None
    if not isinstance(data, dict):
        raise InvalidAnswerError("the answer is not a JSON object")
    missing = [name for name in SECTIONS if name not in data]
    if missing:
        raise InvalidAnswerError(f"missing {', '.join(missing)}")
    drafts = [_draft("headline", data["headline"], "headline", repos)]
    for section in SECTIONS[1:]:
        items = data[section]
        if not isinstance(items, list):
            raise InvalidAnswerError(f"{section} is not a list")
        drafts += [_draft(section, raw, f"{section}[{i}]", repos) for i, raw in enumerate(items)]
    return drafts
