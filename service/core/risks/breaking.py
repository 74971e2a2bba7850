"""Breaking changes: declared in the title, or public modules and functions removed.

Rules and severities:
- ``declared`` (high): the title carries ``[BREAKING]`` (or ``type!:``);
  ``declared_removal`` (high) when such a PR also removes public API (listed in the evidence).
- ``removed_module`` (medium): a Python module under the core paths is deleted (a rename is not
  a deletion); importing it now fails.
- ``removed_symbol`` (medium): a top-level ``def name(`` or ``class Name`` disappears from a core
  module and no file of the PR defines that name again (a move is not a removal). Names starting
  with ``_`` are private and ignored.
Reverts are skipped: they take back what a recent PR added, which the follow-up detector reports.
A PR declared breaking is reported once, by a declared rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from service.core.models import (
    Evidence,
    FileChange,
    FileStatus,
    PullRequest,
    Risk,
    RiskKind,
    Severity,
)
from service.core.risks.base import Context, RuleSet, evidence, make_risk, parse_patch
from service.core.titles import parse_title

CODE_SUFFIX = ".py"
_DEFINITION = re.compile(r"^(?:async\s+)?(?:def|class)\s+([A-Za-z]\w*)\s*[(:]")
MAX_NAMES = 5


def _core_code(change: FileChange, context: Context) -> bool:
    profile = context.profile
    return (
        change.path.endswith(CODE_SUFFIX)
        and profile.is_core(change.path)
        and not profile.is_test(change.path)
    )


def removed_modules(pr: PullRequest, context: Context) -> list[FileChange]:
    """Core Python modules the PR deletes (private `_x.py` modules excepted)."""
    return [
        change
        for change in pr.files
        if change.status == FileStatus.REMOVED
        and _core_code(change, context)
        and not change.path.rsplit("/", 1)[-1].startswith("_")
    ]


def _defined(lines: list[str]) -> set[str]:
    return {m.group(1) for text in lines if (m := _DEFINITION.match(text))}


def removed_symbols(pr: PullRequest, context: Context) -> list[Evidence]:
    """Top-level public defs/classes removed from core modules and defined nowhere in the PR."""
    added_anywhere: set[str] = set()
    candidates: list[Evidence] = []
    for change in pr.files:
        parsed = parse_patch(change.patch)
        added_anywhere |= _defined([line.text for line in parsed.added])
        if change.status == FileStatus.REMOVED or not _core_code(change, context):
            continue
        for line in parsed.removed:
            match = _DEFINITION.match(line.text)
            if match:
                candidates.append(evidence(change.path, line.at, line.text))
    return [e for e in candidates if _name_of(e) not in added_anywhere]


def _name_of(found: Evidence) -> str:
    match = _DEFINITION.match(found.snippet)
    return match.group(1) if match else ""


def _removal_evidence(pr: PullRequest, context: Context) -> tuple[list[Evidence], list[str]]:
    modules = removed_modules(pr, context)
    symbols = removed_symbols(pr, context)
    found = [evidence(m.path, None, "") for m in modules] + symbols
    names = [m.path for m in modules] + [_name_of(e) for e in symbols]
    return found, names


def breaking_title(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """The title declares the PR breaking."""
    parsed = parse_title(pr.title)
    if not parsed.breaking or parsed.is_revert:
        return
    found, names = _removal_evidence(pr, context)
    yield make_risk(
        RiskKind.BREAKING,
        "declared_removal" if names else "declared",
        Severity.HIGH,
        [pr.number],
        [evidence(None, None, pr.title), *found],
        removed=len(names),
        names=", ".join(names[:MAX_NAMES]),
    )


def removed_public_api(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """Public modules or functions disappear without a declared break."""
    parsed = parse_title(pr.title)
    if parsed.breaking or parsed.is_revert:
        return
    modules = removed_modules(pr, context)
    symbols = removed_symbols(pr, context)
    if modules:
        yield make_risk(
            RiskKind.BREAKING,
            "removed_module",
            Severity.MEDIUM,
            [pr.number],
            [evidence(m.path, None, "") for m in modules] + symbols,
            count=len(modules),
            names=", ".join(m.path for m in modules[:MAX_NAMES]),
        )
    elif symbols:
        names = [_name_of(e) for e in symbols]
        yield make_risk(
            RiskKind.BREAKING,
            "removed_symbol",
            Severity.MEDIUM,
            [pr.number],
            symbols,
            count=len(names),
            names=", ".join(names[:MAX_NAMES]),
        )


DETECTOR = RuleSet(RiskKind.BREAKING, (breaking_title, removed_public_api))
