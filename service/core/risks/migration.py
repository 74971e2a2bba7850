"""Large removals and migrations: many files deleted, or whole directories gone.

Rule ids name what is known about references to the removed paths, since the wording differs:
- ``unverified``: nobody searched the repository (``references`` is None);
- ``references_remain``: files of the repository still name a removed path (listed in evidence);
- ``no_references``: searched, nothing refers to the removed paths any more.
A PR qualifies with 10 or more removed files, or a directory it empties: 3 or more files removed
or renamed away, including the directory's ``__init__.py`` or README. Severity: high from 20
removed files or 2,000 removed lines, or when references remain; low when verified clean;
medium otherwise.

`removal_targets(pr)` is what the collector should search for: each removed directory, plus
each removed file outside those directories.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from pathlib import PurePosixPath

from service.core.models import Evidence, FileStatus, PullRequest, Risk, RiskKind, Severity
from service.core.risks.base import Context, RuleSet, evidence, make_risk

MANY_FILES = 10
DIRECTORY_FILES = 3
HIGH_FILES = 20
HIGH_LINES = 2000
MAX_TARGETS = 3
MARKERS = frozenset(
    {"__init__.py", "README.md", "README.rst", "README", "setup.py", "pyproject.toml"}
)


def _removed_paths(pr: PullRequest) -> list[str]:
    return [c.path for c in pr.files if c.status == FileStatus.REMOVED]


def _gone_from(pr: PullRequest) -> list[str]:
    """Paths that no longer exist after the PR: removed files and rename sources."""
    moved = [c.previous_path for c in pr.files if c.status == FileStatus.RENAMED]
    return _removed_paths(pr) + [path for path in moved if path]


def removed_directories(pr: PullRequest) -> list[str]:
    """Directories the PR empties: 3+ files gone, its marker file (``__init__.py``, README…)
    gone too, and no file of the PR left in it. Only the outermost such directory is named.

    The marker matters: a PR lists only the files it touches, so "every listed file of
    verl/utils is deleted" says nothing about the 40 files it does not list."""
    gone = _gone_from(pr)
    alive = [c.path for c in pr.files if c.status != FileStatus.REMOVED]
    counts: dict[str, int] = defaultdict(int)
    for path in gone:
        for parent in PurePosixPath(path).parents:
            counts[str(parent)] += 1
    marked = {str(PurePosixPath(p).parent) for p in gone if PurePosixPath(p).name in MARKERS}
    whole = [
        folder
        for folder, count in counts.items()
        if count >= DIRECTORY_FILES
        and folder in marked
        and not any(p.startswith(folder + "/") for p in alive)
    ]
    return sorted(f for f in whole if not any(f.startswith(o + "/") for o in whole if o != f))


def removal_targets(pr: PullRequest) -> list[str]:
    """What to search the repository for: removed directories, then loose removed files."""
    folders = removed_directories(pr)
    loose = [p for p in _removed_paths(pr) if not any(p.startswith(f + "/") for f in folders)]
    return folders + loose


def _reference_keys(target: str) -> tuple[str, ...]:
    module = target.removesuffix(".py").replace("/", ".")
    return (target, target + "/", module)


def _remaining(targets: list[str], references: dict[str, list[str]]) -> list[Evidence]:
    """Evidence per file that still names a removed target (path, or dotted module name)."""
    found = []
    for target in targets:
        key = next((k for k in _reference_keys(target) if k in references), None)
        for path in references.get(key, []) if key else []:
            found.append(evidence(path, None, target))
    return found


def _folder_evidence(pr: PullRequest, folder: str) -> Evidence:
    names = [PurePosixPath(p).name for p in _gone_from(pr) if p.startswith(folder + "/")]
    return evidence(folder + "/", None, ", ".join(names))


def _severity(files: int, lines: int, rule: str) -> Severity:
    if rule == "references_remain" or files >= HIGH_FILES or lines >= HIGH_LINES:
        return Severity.HIGH
    return Severity.LOW if rule == "no_references" else Severity.MEDIUM


def is_large_removal(pr: PullRequest) -> bool:
    """Whether the PR removes many files or empties whole directories."""
    return len(_removed_paths(pr)) >= MANY_FILES or bool(removed_directories(pr))


def search_targets(prs: list[PullRequest], limit: int) -> list[str]:
    """What the collector searches for, at most `limit`: the removal targets of the week's large
    removals, biggest removal first (so the detector reads exactly what was searched)."""
    ranked = sorted(
        (pr for pr in prs if is_large_removal(pr)),
        key=lambda pr: (
            -sum(c.deletions for c in pr.files if c.status == FileStatus.REMOVED),
            pr.number,
        ),
    )
    found = list(dict.fromkeys(t for pr in ranked for t in removal_targets(pr)))
    return found[:limit]


def _searched(targets: list[str], references: dict[str, list[str]] | None) -> bool:
    """True when every target was searched (it has an entry, even an empty one)."""
    if references is None:
        return False
    return all(any(k in references for k in _reference_keys(t)) for t in targets)


def large_removal(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """Many files or whole directories removed, with what is known about leftover references."""
    if not is_large_removal(pr):
        return
    removed = [c for c in pr.files if c.status == FileStatus.REMOVED]
    folders = removed_directories(pr)
    targets = removal_targets(pr)
    remaining = _remaining(targets, context.references or {})
    verified = _searched(targets, context.references)
    if not verified and not remaining:
        rule = "unverified"
    else:
        rule = "references_remain" if remaining else "no_references"
    lines = sum(c.deletions for c in removed)
    shown = [f + "/" for f in folders] or targets
    risk = make_risk(
        RiskKind.MIGRATION,
        rule,
        _severity(len(removed), lines, rule),
        [pr.number],
        remaining + [_folder_evidence(pr, f) for f in folders],
        files=len(removed),
        lines=lines,
        targets=", ".join(shown[:MAX_TARGETS]),
        references=len(remaining),
    )
    risk.verified = verified
    yield risk


DETECTOR = RuleSet(RiskKind.MIGRATION, (large_removal,))
