"""Breaking changes: declared in the title, or public modules and functions removed.

Rules and severities:
- ``declared`` (high): the title carries ``[BREAKING]`` (or ``type!:``);
  ``declared_removal`` (high) when such a PR also removes public API (listed in the evidence).
- ``removed_module`` (medium): a Python module under the core paths is deleted (a rename is not
  a deletion); importing it now fails.
- ``removed_symbol`` (medium): a top-level ``def name(`` or ``class Name``, or a method
  ``def name(`` of a public class, disappears from a core module and no file of the PR defines
  that name again (a move or a rewrite is not a removal). Names starting with ``_`` are private
  and ignored; nested functions are not API.
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
from service.core.risks.base import Context, Line, RuleSet, evidence, make_risk, parse_patch
from service.core.titles import parse_title

CODE_SUFFIX = ".py"
_DEFINITION = re.compile(r"^(?:async\s+)?(?:def|class)\s+([A-Za-z]\w*)\s*[(:]")
_METHOD = re.compile(r"^ {4}(?:async\s+)?def\s+([A-Za-z]\w*)\s*\(")
_CLASS = re.compile(r"^class\s+([A-Za-z]\w*)\b")
_ANY_DEFINITION = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)")
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


def _defined(lines: tuple[Line, ...]) -> set[str]:
    return {m.group(1) for line in lines if (m := _ANY_DEFINITION.match(line.text))}


def _removed_name(line: Line) -> str | None:
    """`name` for a top-level def/class, `Class.name` for a method of a public class."""
    top = _DEFINITION.match(line.text)
    if top:
        return top.group(1)
    method = _METHOD.match(line.text)
    owner = _CLASS.match(line.scope)
    if method and owner:
        return f"{owner.group(1)}.{method.group(1)}"
    return None


def removed_symbols(pr: PullRequest, context: Context) -> list[tuple[str, Evidence]]:
    """Public defs, classes and methods removed from core modules and defined nowhere in the PR
    (a method whose whole class goes is reported as the class)."""
    added_anywhere: set[str] = set()
    candidates: list[tuple[str, Evidence]] = []
    for change in pr.files:
        parsed = parse_patch(change.patch)
        added_anywhere |= _defined(parsed.added)
        if change.status == FileStatus.REMOVED or not _core_code(change, context):
            continue
        for line in parsed.removed:
            name = _removed_name(line)
            if name:
                candidates.append((name, evidence(change.path, line.at, line.text)))
    gone = {name for name, _ in candidates if "." not in name}
    return [
        (name, found)
        for name, found in candidates
        if name.rsplit(".", 1)[-1] not in added_anywhere
        and not ("." in name and name.split(".", 1)[0] in gone)
    ]


def _module_evidence(module: FileChange) -> Evidence:
    """The deleted module, quoting its first public definition when the patch shows one."""
    removed = parse_patch(module.patch).removed
    first = next((line.text for line in removed if _DEFINITION.match(line.text)), "")
    return evidence(module.path, None, first)


def _removal_evidence(pr: PullRequest, context: Context) -> tuple[list[Evidence], list[str]]:
    modules = removed_modules(pr, context)
    symbols = removed_symbols(pr, context)
    found = [_module_evidence(m) for m in modules] + [e for _, e in symbols]
    names = [m.path for m in modules] + [name for name, _ in symbols]
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
            [_module_evidence(m) for m in modules] + [e for _, e in symbols],
            count=len(modules),
            names=", ".join(m.path for m in modules[:MAX_NAMES]),
        )
    elif symbols:
        names = [name for name, _ in symbols]
        yield make_risk(
            RiskKind.BREAKING,
            "removed_symbol",
            Severity.MEDIUM,
            [pr.number],
            [e for _, e in symbols],
            count=len(names),
            names=", ".join(names[:MAX_NAMES]),
        )


DETECTOR = RuleSet(RiskKind.BREAKING, (breaking_title, removed_public_api))
