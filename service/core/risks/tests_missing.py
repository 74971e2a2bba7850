"""Core-path changes that come without any test change, graded by how much core code moved.

Rule ``core_without_tests``: the PR changes Python files under the profile's core paths and no
file matching the test patterns. Size is the added plus deleted lines of those core files.
Severity: high from 500 lines, medium from 100, low from 30; below 30 lines (a one-line fix, a
renamed argument) it is not reported. Reverts are skipped: they restore code that was there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from service.core.models import FileChange, FileStatus, PullRequest, Risk, RiskKind, Severity
from service.core.risks.base import Context, RuleSet, added_lines, evidence, grade, make_risk
from service.core.titles import parse_title

CODE_SUFFIX = ".py"
_BARE_NAME = re.compile(r"^[\w.]+,?$")  # a line of a multi-line import or argument list
_BORING = ("#", "import ", "from ", '"""', ")", "(")
THRESHOLDS = ((500, Severity.HIGH), (100, Severity.MEDIUM), (30, Severity.LOW))


def core_code_files(pr: PullRequest, context: Context) -> list[FileChange]:
    """The PR's changed Python files under core paths (tests excluded), largest first."""
    profile = context.profile
    found = [
        change
        for change in pr.files
        if change.path.endswith(CODE_SUFFIX)
        and profile.is_core(change.path)
        and not profile.is_test(change.path)
    ]
    return sorted(found, key=lambda c: (-(c.additions + c.deletions), c.path))


def _first_change_line(change: FileChange) -> tuple[int | None, str]:
    """The first added line that says something (not blank, a comment or an import)."""
    lines = added_lines(change)
    for line in lines:
        text = line.text.strip()
        if text and not text.startswith(_BORING) and not _BARE_NAME.match(text):
            return line.number, line.text
    if lines:
        return lines[0].number, lines[0].text
    return None, ""


def core_without_tests(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """Core code changed, no test file touched."""
    if parse_title(pr.title).is_revert:
        return
    if any(context.profile.is_test(change.path) for change in pr.files):
        return
    core = core_code_files(pr, context)
    size = sum(change.additions + change.deletions for change in core)
    severity = grade(size, THRESHOLDS)
    if severity is None:
        return
    found = []
    for change in core:
        number, text = _first_change_line(change)
        if change.status == FileStatus.REMOVED:
            text = ""
        found.append(evidence(change.path, number, text))
    yield make_risk(
        RiskKind.CORE_WITHOUT_TESTS,
        "core_without_tests",
        severity,
        [pr.number],
        found,
        lines=size,
        files=len(core),
        top_path=core[0].path,
    )


DETECTOR = RuleSet(RiskKind.CORE_WITHOUT_TESTS, (core_without_tests,))
