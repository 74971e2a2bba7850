"""A PR's most telling changed lines, for the prompt: config keys with values, default values,
def/class signatures and version pins from its non-test files, each written `+path: line` (an
added line) or `-path: line` (a removed one), so the model can quote the line a value or a
name comes from, and the checker can tell a new value from an old one.

A line holding a secret is never chosen (masking it would still show its start), nor one that
scrubbing would change (a link, a domain, a mention, markup): what is shown is the line itself,
whitespace collapsed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from service.core.analyst.body import mask_secrets, scrub, speaks_to_the_model
from service.core.models import FileChange, PullRequest

LINES_KEPT = 6
LINE_CHARS = 140
MIN_LINE_CHARS = 6
TEST_PATH = re.compile(
    r"(?:^|/)(?:tests?|testing)/|(?:^|/)test_[^/]*$|_test\.py$|(?:^|/)conftest\.py$"
    r"|(?:^|/)_generated_[^/]*$|\.(?:lock|svg|png|jpg|ipynb)$|(?:^|/)(?:uv|poetry)\.lock$"
)
_VERSION_PIN = re.compile(
    r"(?:==|>=|<=|~=|!=)\s*v?\d+(?:\.\w+)+|^\s*FROM\s+\S+:v?\d+\.\d+|\bimage:\s*\S+:v?\d+\.\d+"
    r"|[\w-]@v?\d+\.\d+",
    re.IGNORECASE,
)
_SIGNATURE = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+\w+")
# a literal value: a number, a short string, a boolean or None (not a call or an expression)
_LITERAL = r"""(?:-?\d[\w.+-]*|"[^"]{0,60}"|'[^']{0,60}'|True|False|None)"""
# a module constant (`NAME = 3`), a class field (`    field: int = 3`), an upper-case constant,
# an annotated parameter's default (`        name: str = "x",`) or a `default=` keyword
_PY_DEFAULT = re.compile(
    rf"^[A-Za-z_]\w*\s*(?::\s*[^=]+?)?\s*=\s*{_LITERAL}\s*(?:#.*)?$"
    rf"|^ {{4}}[a-z_]\w*\s*:\s*[^=]+?\s*=\s*{_LITERAL}\s*(?:#.*)?$"
    rf"|^\s+[A-Z][A-Z0-9_]+\s*=\s*{_LITERAL}"
    rf"|^\s+[a-z_]\w*\s*:\s*[^=]+?\s*=\s*{_LITERAL}\s*[,)]"
    rf"|\bdefault\s*=\s*{_LITERAL}"
)
_YAML_SETTING = re.compile(r"^\s*[A-Za-z_][\w.-]*\s*:\s+[^\s#{[|>&*].*$")
_ARG_DEFAULT = re.compile(r"--[\w-]+[ =][\w.\"'-]+|^\s*(?:ARG|ENV)\s+[A-Z][A-Z0-9_]+=[\w.\"'-]+")
_COMMENT_ONLY = re.compile(r"^\s*(?:#|//|\*|/\*|\"\"\"|''')")
_YAML = (".yaml", ".yml")
_PROSE = (".md", ".rst", ".txt", ".html")
_SCORES = {"pin": 5, "default": 4, "setting": 3, "signature": 3}


@dataclass(frozen=True)
class _Candidate:
    score: int
    order: int
    text: str


def _kind(path: str, line: str) -> str | None:
    """What makes `line` of `path` telling (a key of _SCORES), or None."""
    if _COMMENT_ONLY.match(line):
        return None
    if _VERSION_PIN.search(line):
        return "pin"
    if path.endswith(_YAML):
        return "setting" if _YAML_SETTING.match(line) else None
    if _SIGNATURE.match(line):
        return "signature"
    if path.endswith(".py"):
        return "default" if _PY_DEFAULT.search(line) else None
    if path.endswith(_PROSE):
        return None
    return "default" if _ARG_DEFAULT.search(line) else None


def _clean(line: str) -> str | None:
    """The line as the prompt may show it, or None when it holds a secret or speaks to the
    model, or says nothing."""
    text = " ".join(line.split())
    if len(text) < MIN_LINE_CHARS or mask_secrets(text) != text or speaks_to_the_model(text):
        return None
    if scrub(text) != text:  # a link, a domain, a mention or markup: not shown at all
        return None
    return text if len(text) <= LINE_CHARS else text[: LINE_CHARS - 1] + "…"


def _candidates(change: FileChange, start: int) -> Iterator[_Candidate]:
    if not change.patch or TEST_PATH.search(change.path.lower()):
        return
    for offset, raw in enumerate(change.patch.splitlines()):
        sign, line = raw[:1], raw[1:]
        if sign not in "+-" or raw.startswith(("+++", "---")) or not sign:
            continue
        kind = _kind(change.path, line)
        text = _clean(line) if kind else None  # masking is the dear part: telling lines only
        if kind and text:
            # an added line tells the change; its removed twin only the old value
            score = _SCORES[kind] * 2 + (sign == "+")
            yield _Candidate(score, start + offset, f"{sign}{change.path}: {text}")


def telling_lines(pr: PullRequest | None, limit: int = LINES_KEPT) -> tuple[str, ...]:
    """At most `limit` of the PR's most telling changed lines, the most telling first (in
    patch order among equals), each once."""
    if pr is None:
        return ()
    found: list[_Candidate] = []
    start = 0
    for change in pr.files:
        found += _candidates(change, start)
        start += len(change.patch or "")
    ranked = sorted(found, key=lambda c: (-c.score, c.order))
    return tuple(dict.fromkeys(c.text for c in ranked))[:limit]
