"""Core-path changes that come without any test change, graded by how much core code moved.

Rule ``core_without_tests``: the PR changes Python files under the profile's core paths and no
file matching the test patterns. Size is the added plus deleted lines of those core files.
Severity: high from 500 lines, medium from 100, low from 30; below 30 lines (a one-line fix, a
renamed argument) it is not reported, nor are files whose changed lines are all comments and
docstrings. Reverts are skipped: they restore code that was there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from service.core.models import FileChange, FileStatus, PullRequest, Risk, RiskKind, Severity
from service.core.points import comment_only_patch
from service.core.risks.base import (
    Context,
    Line,
    RuleSet,
    evidence,
    grade,
    line_evidence,
    make_risk,
)
from service.core.titles import parse_title

CODE_SUFFIX = ".py"
_BARE_NAME = re.compile(r"^[\w.]+,?$")  # a line of a multi-line import or argument list
_BORING = ("#", "import ", "from ", '"""', ")", "(", "@")
_BARE_KEYWORDS = frozenset({"try:", "else:", "finally:", "pass", "return", "break", "continue"})
_DEFINITION = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+\w")
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


def _first_change_line(change: FileChange, context: Context) -> Line | None:
    """The added line that best shows what changed: the first new def/class, else the first
    line that says something (not blank, a comment, an import or a bare keyword like `try:`)."""
    lines = context.parsed(change).added
    telling = [
        line
        for line in lines
        if (text := line.text.strip())
        and not text.startswith(_BORING)
        and not _BARE_NAME.match(text)
        and text not in _BARE_KEYWORDS
    ]
    defining = [line for line in telling if _DEFINITION.match(line.text)]
    return next(iter((*defining, *telling, *lines)), None)


def core_without_tests(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """Core code changed, no test file touched."""
    if parse_title(pr.title).is_revert:
        return
    if any(context.profile.is_test(change.path) for change in pr.files):
        return
    # a file whose changed lines are all comments and docstrings changes no behaviour to test
    core = [c for c in core_code_files(pr, context) if not comment_only_patch(context.parsed(c))]
    size = sum(change.additions + change.deletions for change in core)
    severity = grade(size, THRESHOLDS)
    if severity is None:
        return
    found = []
    for change in core:
        line = _first_change_line(change, context)
        if line is None or change.status == FileStatus.REMOVED:
            found.append(evidence(change.path, None, ""))
        else:
            found.append(line_evidence(change.path, line))
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
