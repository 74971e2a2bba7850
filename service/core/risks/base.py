"""Detector protocol and the diff reading every detector shares: added lines with new-file numbers.

Only what a PR adds is its risk, so the scanners here yield added lines (``+`` in the unified
diff) with their line number in the NEW file, computed from the ``@@ -a,b +c,d @@`` hunk headers.
Removal detectors (breaking, migration) read removed lines through the same parser.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from service.core.models import (
    Evidence,
    FileChange,
    FileStatus,
    PullRequest,
    Risk,
    RiskKind,
    Severity,
)
from service.core.profile import RepoProfile

SNIPPET_MAX = 200
MAX_EVIDENCE = 5
PARSED_CACHE = 1024
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")
_ELLIPSIS = "…"

SEVERITY_ORDER = {Severity.HIGH: 0, Severity.MEDIUM: 1, Severity.LOW: 2}


@dataclass(frozen=True)
class Line:
    """One line of a patch: `number` is in the new file (added/context) or old file (removed).

    For a removed line, `at` is the new-file line where the removal sits and `scope` the
    enclosing top-level statement in the old file (e.g. ``class Config:``), from the hunk
    header's context or the last unindented line before it."""

    number: int
    text: str
    at: int | None = None
    scope: str = ""


@dataclass(frozen=True)
class ParsedPatch:
    added: tuple[Line, ...] = ()
    removed: tuple[Line, ...] = ()
    context: tuple[Line, ...] = ()


@dataclass(frozen=True)
class Context:
    """What a rule may look at besides the PR itself."""

    profile: RepoProfile
    week: tuple[PullRequest, ...] = ()
    earlier: tuple[PullRequest, ...] = ()
    references: dict[str, list[str]] | None = None


Rule = Callable[[PullRequest, Context], Iterable[Risk]]


class Detector(Protocol):
    """A detector family: one risk kind, several rules."""

    @property
    def kind(self) -> RiskKind: ...

    def detect(self, prs: Sequence[PullRequest], context: Context) -> list[Risk]: ...


@dataclass(frozen=True)
class RuleSet:
    """A Detector that applies each of its rules to each PR of the week."""

    kind: RiskKind
    rules: tuple[Rule, ...] = field(default_factory=tuple)

    def detect(self, prs: Sequence[PullRequest], context: Context) -> list[Risk]:
        return [risk for pr in prs for rule in self.rules for risk in rule(pr, context)]


@functools.lru_cache(maxsize=PARSED_CACHE)
def parse_patch(patch: str | None) -> ParsedPatch:
    """Split a unified-diff patch into added, removed and context lines with their numbers.

    Cached: ten detectors read the same patches, and the result is immutable."""
    if not patch:
        return ParsedPatch()
    added: list[Line] = []
    removed: list[Line] = []
    context: list[Line] = []
    old = new = 0
    scope = ""
    for raw in patch.splitlines():
        header = _HUNK.match(raw)
        if header:
            old, new, scope = int(header.group(1)), int(header.group(3)), header.group(5).strip()
        elif raw.startswith("+"):
            added.append(Line(new, raw[1:]))
            new += 1
        elif raw.startswith("-"):
            removed.append(Line(old, raw[1:], at=new, scope=scope))
            old += 1
            scope = _next_scope(scope, raw[1:])
        elif raw.startswith("\\"):
            continue  # "\ No newline at end of file"
        else:
            context.append(Line(new, raw[1:]))
            old += 1
            new += 1
            scope = _next_scope(scope, raw[1:])
    return ParsedPatch(tuple(added), tuple(removed), tuple(context))


def _next_scope(scope: str, text: str) -> str:
    """An unindented, non-blank, non-comment line opens a new top-level scope."""
    if text and not text[0].isspace() and not text.startswith(("#", ")", "]", "}", '"""')):
        return text.strip()
    return scope


def added_lines(change: FileChange) -> tuple[Line, ...]:
    return parse_patch(change.patch).added


def removed_lines(change: FileChange) -> tuple[Line, ...]:
    return parse_patch(change.patch).removed


def full_new_content(change: FileChange) -> str | None:
    """The whole new file when the patch shows all of it (a file the PR adds), else None."""
    if change.status != FileStatus.ADDED or not change.patch:
        return None
    lines = added_lines(change)
    if not lines or lines[0].number != 1:
        return None
    return "\n".join(line.text for line in lines) + "\n"


def visible_new_lines(change: FileChange) -> tuple[Line, ...]:
    """Every line of the new file the patch shows (added and context), in file order."""
    parsed = parse_patch(change.patch)
    return tuple(sorted((*parsed.added, *parsed.context), key=lambda line: line.number))


def iter_added(pr: PullRequest, wanted: Callable[[str], bool]) -> Iterator[tuple[FileChange, Line]]:
    """Added lines of the PR's files whose path `wanted` accepts."""
    for change in pr.files:
        if change.status == FileStatus.REMOVED or not wanted(change.path):
            continue
        for line in added_lines(change):
            yield change, line


def snippet(text: str) -> str:
    """One line of evidence text, stripped, at most SNIPPET_MAX characters."""
    text = " ".join(text.split())
    if len(text) <= SNIPPET_MAX:
        return text
    return text[: SNIPPET_MAX - 1] + _ELLIPSIS


def evidence(path: str | None, line: int | None, text: str) -> Evidence:
    return Evidence(path=path, line=line, snippet=snippet(text))


def make_risk(
    kind: RiskKind,
    rule: str,
    severity: Severity,
    prs: list[int],
    proof: Sequence[Evidence],
    **params: str | int | float,
) -> Risk:
    """A Risk with at most MAX_EVIDENCE pieces of evidence."""
    return Risk(
        kind=kind,
        rule=rule,
        severity=severity,
        prs=prs,
        evidence=list(proof[:MAX_EVIDENCE]),
        params=dict(params),
    )


def sort_risks(risks: Iterable[Risk]) -> list[Risk]:
    """High severity first, then by PR number, then kind and rule (stable for equal keys)."""
    return sorted(
        risks,
        key=lambda r: (SEVERITY_ORDER[r.severity], r.prs[0] if r.prs else 0, r.kind, r.rule),
    )


def grade(value: int, thresholds: tuple[tuple[int, Severity], ...]) -> Severity | None:
    """The severity of the first (lower bound, severity) pair whose bound `value` reaches."""
    for bound, severity in thresholds:
        if value >= bound:
            return severity
    return None
