"""Dangerous commands a PR adds to docs, scripts or examples (users copy and paste them).

Rules and severities:
- ``rm_rf_root`` (high): ``rm -rf`` of ``/``, ``/*``, ``~``, ``~/`` or ``$HOME`` itself.
- ``rm_rf_unset_var`` (high): ``rm -rf $VAR/…`` or ``rm -rf ${VAR}`` where nothing visible in the
  file sets VAR (nor guards it with ``${VAR:?}``/``${VAR:-…}``): empty VAR means ``rm -rf /…``.
- ``curl_pipe_shell`` (medium): ``curl …|sh`` / ``wget …|bash``: runs unreviewed remote code.
- ``pkill_9`` / ``killall`` (medium): kill every matching process of the user, other jobs too.
- ``chmod_777`` (medium): world-writable files or directories.
- ``kill_9`` (low): SIGKILL skips cleanup (GPU memory, Ray and NCCL state).

Routine cleanup is not a risk: ``rm -rf /var/lib/apt/lists/*`` or ``rm -rf ./build`` name a
concrete path. Comment lines of shell and Python files are ignored; in Markdown they are text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from service.core.models import FileChange, PullRequest, Risk, RiskKind, Severity
from service.core.risks import shell
from service.core.risks.base import (
    Context,
    Line,
    RuleSet,
    full_new_content,
    iter_added,
    line_evidence,
    make_risk,
)

_RM_FLAGS = (
    r"-[a-zA-Z]*[rR][a-zA-Z]*f[a-zA-Z]*",
    r"-[a-zA-Z]*f[a-zA-Z]*[rR][a-zA-Z]*",
    r"-[rR]\s+-f",
    r"-f\s+-[rR]",
    r"--recursive\s+--force",
    r"--force\s+--recursive",
)
_RM_RF = r"\brm\s+(?:" + "|".join(_RM_FLAGS) + r")\s+(?:--\s+)?"
_END = r"(?=[\s;&|)\"'`]|$)"
PATTERNS: dict[str, re.Pattern[str]] = {
    "rm_rf_root": re.compile(_RM_RF + r"[\"']?(?:/\*?|~/?\*?|\$\{?HOME\}?/?\*?)[\"']?" + _END),
    "curl_pipe_shell": re.compile(
        r"\b(?:curl|wget)\b[^|\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:ba|z|da)?sh\b"
    ),
    "pkill_9": re.compile(r"\bpkill\s+(?:-\w+\s+)*-(?:9|KILL|SIGKILL)\b"),
    "killall": re.compile(r"(?:^|[\s;&|(`])killall\s+\S"),
    "chmod_777": re.compile(r"\bchmod\s+(?:-[a-zA-Z]+\s+)*0?777\b"),
    "kill_9": re.compile(r"(?:^|[\s;&|(`])kill\s+-(?:9|KILL|SIGKILL)\b"),
}
SEVERITY = {
    "rm_rf_root": Severity.HIGH,
    "rm_rf_unset_var": Severity.HIGH,
    "curl_pipe_shell": Severity.MEDIUM,
    "pkill_9": Severity.MEDIUM,
    "killall": Severity.MEDIUM,
    "chmod_777": Severity.MEDIUM,
    "kill_9": Severity.LOW,
}
# what every pattern above and _RM_VAR contains (`rm -`, `curl`, `kill `, …): the cheap test
# before them, of a whole patch, then of a line (each branch starts with a plain word, which
# the regex engine finds fast)
_HINT = re.compile(r"rm\s+-|curl|wget|kill(?:all)?\s|chmod\s")
_RM_VAR = re.compile(_RM_RF + r"[\"']?\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))([^\s;&|)`]*)")
_ROOT_TAILS = ("/", "/*")
_COMMENTED = ("#", "//")
_CODE_SUFFIXES = (".sh", ".bash", ".py", ".yaml", ".yml", "Dockerfile")


def is_command_text(path: str, context: Context) -> bool:
    profile = context.profile
    return profile.is_doc(path) or profile.is_script(path) or profile.is_example(path)


def _is_comment(change: FileChange, line: Line) -> bool:
    return change.path.endswith(_CODE_SUFFIXES) and line.text.lstrip().startswith(_COMMENTED)


def _command_lines(pr: PullRequest, context: Context) -> Iterator[tuple[FileChange, Line]]:
    for change, line in iter_added(
        pr, context, lambda path: is_command_text(path, context), _HINT.search
    ):
        if not _is_comment(change, line):
            yield change, line


def matched_rules(text: str) -> list[str]:
    """The pattern rules a line of text matches, in severity order."""
    if not _HINT.search(text):
        return []
    return [rule for rule, pattern in PATTERNS.items() if pattern.search(text)]


def _risk(pr: PullRequest, rule: str, change: FileChange, line: Line) -> Risk:
    command = rule.removesuffix("_unset_var")
    return make_risk(
        RiskKind.DANGEROUS_COMMAND,
        rule,
        SEVERITY[rule],
        [pr.number],
        [line_evidence(change.path, line)],
        path=change.path,
        line=line.number,
        command=command,
    )


def dangerous_patterns(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """Added lines that match one of the command patterns (one risk per rule and file)."""
    seen: set[tuple[str, str]] = set()
    for change, line in _command_lines(pr, context):
        for rule in matched_rules(line.text):
            if (rule, change.path) not in seen:
                seen.add((rule, change.path))
                yield _risk(pr, rule, change, line)


def _unguarded_rm_targets(change: FileChange, line: Line, context: Context) -> list[str]:
    """Variables `rm -rf` starts from that the file never sets. In a partial patch the name may
    be set outside the hunks, so only the `$VAR/` and `$VAR/*` shapes (empty VAR → `/`) count."""
    visible = list(shell.code_lines(context.parsed(change).visible))
    known = shell.assigned_names(visible) | shell.guarded_names(visible)
    whole = full_new_content(change, context) is not None
    names = []
    for match in _RM_VAR.finditer(line.text):
        name = match.group(1) or match.group(2)
        root_shape = match.group(3).strip("\"'") in _ROOT_TAILS
        if name not in known and not shell.is_environment(name) and (whole or root_shape):
            names.append(name)
    return names


def rm_rf_unset_variable(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """`rm -rf $VAR/…` where VAR is set nowhere the PR shows."""
    seen: set[str] = set()
    for change, line in _command_lines(pr, context):
        if change.path in seen or not _RM_VAR.search(line.text):
            continue
        names = _unguarded_rm_targets(change, line, context)
        if names:
            seen.add(change.path)
            risk = _risk(pr, "rm_rf_unset_var", change, line)
            risk.params["var"] = names[0]
            yield risk


DETECTOR = RuleSet(RiskKind.DANGEROUS_COMMAND, (dangerous_patterns, rm_rf_unset_variable))
