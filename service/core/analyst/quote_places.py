"""Where a sentence's quotes stand in their PR's text, beyond whether they are in it: a quote is
copied from one place of a body or a document, and a sentence that joins quotes of different
places must not tell one place's figure of another's case.

- a heading and a line: a sentence that quotes a heading (`#### Qwen3-8B-Base Dense Model`) and
  a line of the same body or file tells that line of the heading's case, so the line must stand
  under that heading (not under the next model's);
- table rows: a clause whose figures and names stand in the quoted rows of a table must find
  them in one row (`TP8, PP16, EP8 | 16*8 | 120s` is not the 80 s of the next row);
- a plan: a quote of what the author will do (`will open another PR to support …`) is no
  evidence of what the PR does; it grounds only a sentence that tells it as a plan.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from service.core.analyst import claims
from service.core.analyst.evidence import PeriodEvidence
from service.core.analyst.quotes import Quote, norm
from service.core.risks.base import changed_texts

_HEADING = re.compile(r"^\s*[+-]?\s*(?P<marks>#{1,6})\s+\S")
# a clause of a sentence: what one comma, semicolon or full stop holds
_CLAUSE = re.compile(r"[，,;；。]|\.(?=\s|$)|\b(?:while|whereas|but)\b|而|但")
ROW_CELLS = 3  # a table row has at least this many `|`
# what the author will do, not what the PR does
_PLAN = re.compile(
    r"\b(?:will|plans?\s+to|planned|going\s+to|todo|in\s+(?:a\s+)?(?:future|later|follow[- ]?up)"
    r"|another\s+pr|next\s+pr|future\s+(?:pr|work))\b|后续|计划|将来|未来|待办|另一个\s*PR",
    re.IGNORECASE,
)


def plan(text: str) -> bool:
    """Whether `text` tells what someone will do (a plan), not what was done."""
    return bool(_PLAN.search(text))


def grounding_quotes(text: str, quotes: Sequence[Quote]) -> tuple[Quote, ...]:
    """The quotes that may ground `text`: a plan's quote only grounds a sentence telling a plan."""
    if plan(text):
        return tuple(quotes)
    return tuple(q for q in quotes if not plan(q.text))


def _level(line: str) -> int:
    found = _HEADING.match(line)
    return len(found["marks"]) if found else 0


def _sources(number: int, evidence: PeriodEvidence) -> Iterator[list[str]]:
    """The PR's texts as written, line by line: its body, and each file's added lines."""
    pr = evidence.collected.get(number)
    if pr is None:
        return
    yield pr.body.splitlines()
    for change in pr.files:
        yield changed_texts(change.patch)[1]


def _section(lines: Sequence[str], at: int) -> list[str]:
    """The lines under the heading at `at`, up to the next heading of its level or higher."""
    level = _level(lines[at])
    out = []
    for line in lines[at + 1 :]:
        if 0 < _level(line) <= level:
            break
        out.append(norm(line))
    return out


def _under(quote: str, lines: Sequence[str], headings: Sequence[str]) -> bool | None:
    """Whether `quote` stands under one of `headings` in `lines` (None: the text holds
    neither the quote nor those headings)."""
    normed = [norm(line) for line in lines]
    if not any(quote in line for line in normed):
        return None
    places = [i for i, line in enumerate(lines) if _level(line) and normed[i] in headings]
    if not places:
        return None
    return any(any(quote in line for line in _section(lines, at)) for at in places)


def heading_reasons(quotes: Sequence[Quote], evidence: PeriodEvidence) -> list[str]:
    """A quoted line must stand under the heading the sentence quotes with it, in the body or
    file that holds both."""
    reasons = []
    for number in dict.fromkeys(q.pr for q in quotes if q.found):
        own = [q for q in quotes if q.found and q.pr == number]
        headings = [norm(q.text) for q in own if _level(q.text)]
        if not headings:
            continue
        for q in own:
            line = norm(q.text.lstrip("+- "))
            if _level(q.text) or not line:
                continue
            places = [_under(line, lines, headings) for lines in _sources(number, evidence)]
            if False in places and True not in places:
                reasons.append(
                    f'quote of #{number} "{q.short}": stands under another heading than '
                    f'"{headings[0]}"'
                )
    return reasons


def _cells(quote: Quote) -> str | None:
    """A quoted table row's text, cells spaced ("| a | b |"), or None when it is no row."""
    text = quote.text.strip().lstrip("+-")
    if not quote.found or text.count("|") < ROW_CELLS:
        return None
    return " | ".join(cell.strip().lower() for cell in text.split("|"))


def _tokens(clause: str) -> list[str]:
    """What a clause may copy from a table row: its figures and its code-spelled names."""
    found = [f.text for f in claims.figures(clause) if f.text[:1].isdigit()]
    return found + claims.identifiers(clause)


def _in_row(token: str, row: str) -> bool:
    """`token` a whole token of `row` (a figure may carry its unit: `80s`, `2GB`)."""
    after = r"(?!\d|\.\d)" if token[:1].isdigit() else r"(?![\w]|\.\d)"
    return re.search(rf"(?<![\w.]){re.escape(token.lower())}{after}", row) is not None


def row_reasons(text: str, quotes: Sequence[Quote]) -> list[str]:
    """A clause's figures and names that stand in the quoted rows of a table must all stand in
    one of them: a row's figure told with another row's case is told of the wrong case."""
    rows = [row for row in (_cells(q) for q in quotes) if row]
    if len(rows) < 2:  # noqa: PLR2004
        return []
    reasons = []
    for clause in _CLAUSE.split(text):
        held = {t: {i for i, row in enumerate(rows) if _in_row(t, row)} for t in _tokens(clause)}
        held = {t: where for t, where in held.items() if where}
        if len(held) > 1 and not set.intersection(*held.values()):
            shown = ", ".join(held)
            reasons.append(f"table rows: {shown} stand in different rows of the quoted table")
    return reasons
