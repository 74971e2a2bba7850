"""Command-line flags and environment variables a PR takes away from users.

- A flag (``add_argument("--name"``, ``click.option("--name"``) is removed when a Python file
  the PR keeps (not deleted, not a test) loses it and no file of the PR defines it again;
  renamed when the same edit defines another flag in its place (a removed and an added line
  at most `NEAR` lines apart).
- An environment variable is the project's (the profile's ``env_prefixes``, e.g. ``VERL_``)
  and read by the code (``os.environ.get``, ``os.getenv``, ``os.environ[...]`` not assigned).
  It is removed when a kept file stops reading it and nothing the PR adds reads it; renamed
  when the same edit reads another one instead. A variable the PR's own code sets is internal
  (a hand-off between processes, not a user setting) and is not reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from service.core.models import FileChange, FileStatus, PullRequest
from service.core.risks.base import Context, Line

CODE_SUFFIX = ".py"
NEAR = 2
_FLAG = re.compile(
    r"""(?:add_argument|\.option)\(\s*(?:["']-\w["']\s*,\s*)?["'](--[\w][\w-]*)["']"""
)
_ENV_READ = re.compile(
    r"""(?:os\.environ\.get|os\.getenv|environ\.get|getenv)\(\s*["']([A-Z][A-Z0-9_]*)["']"""
    r"""|os\.environ\[\s*["']([A-Z][A-Z0-9_]*)["']\s*\](?!\s*=[^=])"""
)
_ENV_WRITE = re.compile(
    r"""os\.environ\[\s*["']([A-Z][A-Z0-9_]*)["']\s*\]\s*=[^=]"""
    r"""|(?:environ\.setdefault|putenv)\(\s*["']([A-Z][A-Z0-9_]*)["']"""
)


@dataclass(frozen=True)
class Interface:
    """One flag or variable as a line of the patch shows it."""

    name: str
    path: str
    line: Line


@dataclass(frozen=True)
class InterfaceChange:
    """`old` removed, or renamed to `new`."""

    old: Interface
    new: Interface | None = None

    @property
    def label(self) -> str:
        return self.old.name if self.new is None else f"{self.old.name} → {self.new.name}"


def _found(pattern: re.Pattern[str], text: str) -> list[str]:
    return [next(g for g in m.groups() if g) for m in pattern.finditer(text)]


def _kept_code(change: FileChange, context: Context) -> bool:
    return (
        change.path.endswith(CODE_SUFFIX)
        and change.status != FileStatus.REMOVED
        and not context.profile.is_test(change.path)
    )


def _lines(
    pr: PullRequest, context: Context, pattern: re.Pattern[str], *, removed: bool
) -> list[Interface]:
    found: list[Interface] = []
    for change in pr.files:
        if not _kept_code(change, context):
            continue
        texts = context.changed(change)[0 if removed else 1]
        if not any(pattern.search(t) for t in texts):
            continue
        parsed = context.parsed(change)
        for line in parsed.removed if removed else parsed.added:
            if line.in_string or line.text.lstrip().startswith("#"):
                continue
            found.extend(Interface(name, change.path, line) for name in _found(pattern, line.text))
    return found


def _every_added(pr: PullRequest, context: Context, pattern: re.Pattern[str]) -> set[str]:
    return {n for c in pr.files for t in context.changed(c)[1] for n in _found(pattern, t)}


def _every_removed(pr: PullRequest, context: Context, pattern: re.Pattern[str]) -> set[str]:
    return {n for c in pr.files for t in context.changed(c)[0] for n in _found(pattern, t)}


def _near(old: Interface, new: Interface) -> bool:
    at = old.line.at if old.line.at is not None else old.line.number
    return (
        old.path == new.path
        and old.line.hunk == new.line.hunk
        and abs(at - new.line.number) <= NEAR
    )


def _changes(
    removed: list[Interface], added: list[Interface], still: set[str], gone_before: set[str]
) -> Iterator[InterfaceChange]:
    seen: set[str] = set()
    taken: set[Interface] = set()
    for old in removed:
        if old.name in still or old.name in seen:
            continue
        seen.add(old.name)
        candidates = [n for n in added if n.name not in gone_before and n not in taken]
        new = next((n for n in candidates if _near(old, n)), None)
        if new is not None:
            taken.add(new)
        yield InterfaceChange(old, new)


def flag_changes(pr: PullRequest, context: Context) -> list[InterfaceChange]:
    """Command-line flags removed or renamed."""
    removed = _lines(pr, context, _FLAG, removed=True)
    if not removed:
        return []
    added = _lines(pr, context, _FLAG, removed=False)
    still = _every_added(pr, context, _FLAG)
    return list(_changes(removed, added, still, _every_removed(pr, context, _FLAG)))


def _ours(name: str, context: Context) -> bool:
    return any(name.startswith(prefix) for prefix in context.profile.env_prefixes)


def env_changes(pr: PullRequest, context: Context) -> list[InterfaceChange]:
    """The project's environment variables no longer read, or read under another name."""
    if not context.profile.env_prefixes:
        return []
    removed = [i for i in _lines(pr, context, _ENV_READ, removed=True) if _ours(i.name, context)]
    if not removed:
        return []
    written = _every_removed(pr, context, _ENV_WRITE) | _every_added(pr, context, _ENV_WRITE)
    added = [i for i in _lines(pr, context, _ENV_READ, removed=False) if _ours(i.name, context)]
    still = _every_added(pr, context, _ENV_READ) | written
    gone_before = _every_removed(pr, context, _ENV_READ)
    return list(_changes(removed, added, still, gone_before))
