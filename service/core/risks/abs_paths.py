"""Machine-specific absolute paths a PR adds to docs, scripts or examples.

Rules and severities:
- ``ld_preload`` (medium): ``LD_PRELOAD=/…`` preloads a library from one machine's layout; on
  another machine the program fails to start or silently runs without it.
- ``home_dir`` (low): ``/home/<user>/…`` names one person's home directory.
- ``mac_home`` (low): ``/Users/<user>/…``, a macOS home directory.
- ``mnt_volume`` (low): ``/mnt/<volume>/…``, one cluster's mount.

Placeholders are not machine-specific: ``/home/user``, ``/home/<user>``, ``/home/$USER``,
``/home/your_name``, ``/path/to``; neither are system paths (``/usr``, ``/opt``, ``/tmp``,
``/dev/shm``, ``/root`` in containers). Paths inside Dockerfiles are the image's own layout and
are not read here (Dockerfiles are CI files in the profile).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from service.core.models import PullRequest, Risk, RiskKind, Severity
from service.core.risks.base import (
    Context,
    Line,
    RuleSet,
    iter_added,
    line_evidence,
    make_risk,
    snippet,
)

_START = r"(?:^|(?<=[\s\"'=:(,\[`]))"
_SEGMENT = r"[A-Za-z0-9_.\-]+"
PATTERNS: dict[str, re.Pattern[str]] = {
    # the path ends at a `:` (a list of libraries) or a `$` (`…so.2${LD_PRELOAD:+:$LD_PRELOAD}`
    # appends what was preloaded before)
    "ld_preload": re.compile(r"\bLD_PRELOAD\s*=\s*[\"']?(/[^\s\"':$]+)"),
    "home_dir": re.compile(_START + rf"(/home/({_SEGMENT})/[^\s\"'`)]*)"),
    "mac_home": re.compile(_START + rf"(/Users/({_SEGMENT})/[^\s\"'`)]*)"),
    "mnt_volume": re.compile(_START + rf"(/mnt/({_SEGMENT})/{_SEGMENT}[^\s\"'`)]*)"),
}
SEVERITY = {
    "ld_preload": Severity.MEDIUM,
    "home_dir": Severity.LOW,
    "mac_home": Severity.LOW,
    "mnt_volume": Severity.LOW,
}
_HINT = re.compile(r"LD_PRELOAD|/home/|/Users/|/mnt/")
PLACEHOLDER_OWNERS = re.compile(
    r"^(?:user|users|username|user_?name|name|me|you|your\w*|my\w*|xxx+|foo|bar|example|"
    r"someone|somebody|admin|test|tester|ubuntu|runner|\w*placeholder\w*)$",
    re.IGNORECASE,
)


def is_path_text(path: str, context: Context) -> bool:
    profile = context.profile
    return profile.is_doc(path) or profile.is_script(path) or profile.is_example(path)


def _is_placeholder(rule: str, match: re.Match[str]) -> bool:
    if rule == "ld_preload":
        return match.group(1).startswith("/path/to")
    return PLACEHOLDER_OWNERS.match(match.group(2)) is not None


def find_paths(text: str) -> list[tuple[str, str]]:
    """(rule, path) for every machine-specific path in one line of text."""
    if not _HINT.search(text):
        return []
    found = []
    for rule, pattern in PATTERNS.items():
        for match in pattern.finditer(text):
            if not _is_placeholder(rule, match):
                found.append((rule, match.group(1)))
    return found


def machine_paths(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """One risk per rule and file, with every added line that carries such a path as evidence."""
    grouped: dict[tuple[str, str], list[tuple[Line, str]]] = {}
    for change, line in iter_added(
        pr, context, lambda path: is_path_text(path, context), _HINT.search
    ):
        for rule, found in find_paths(line.text):
            grouped.setdefault((rule, change.path), []).append((line, found))
    for (rule, path), hits in grouped.items():
        yield make_risk(
            RiskKind.ABSOLUTE_PATH,
            rule,
            SEVERITY[rule],
            [pr.number],
            [line_evidence(path, line) for line, _ in hits],
            path=path,
            line=hits[0][0].number,
            found=snippet(hits[0][1]),
            count=len(hits),
        )


DETECTOR = RuleSet(RiskKind.ABSOLUTE_PATH, (machine_paths,))
