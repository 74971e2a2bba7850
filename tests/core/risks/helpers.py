"""Builders shared by the risk detector tests: real weeks by label, synthetic PRs and patches."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from service.core.models import CollectedPeriod, FileChange, FileStatus, PullRequest
from service.core.profile import RepoProfile
from service.core.risks.base import Context

PREVIOUS = {"2025-W48": "2025-W47", "2026-W04": "2026-W03"}
LABELS = ("2025-W47", "2025-W48", "2026-W03", "2026-W04")
MERGED = datetime(2026, 1, 20, 12, 0, tzinfo=UTC)


def real_pr(weeks: dict[str, CollectedPeriod], label: str, number: int) -> PullRequest:
    return next(pr for pr in weeks[label].prs if pr.number == number)


def earlier_of(weeks: dict[str, CollectedPeriod], label: str) -> list[PullRequest]:
    previous = PREVIOUS.get(label)
    return list(weeks[previous].prs) if previous else []


def week_context(
    weeks: dict[str, CollectedPeriod],
    label: str,
    profile: RepoProfile,
    references: dict[str, list[str]] | None = None,
) -> Context:
    return Context(
        profile=profile,
        week=tuple(weeks[label].prs),
        earlier=tuple(earlier_of(weeks, label)),
        references=references,
    )


def added_patch(lines: list[str], start: int = 1) -> str:
    """A hunk that adds `lines` to a new (or empty) file from line `start`."""
    return f"@@ -0,0 +{start},{len(lines)} @@\n" + "\n".join("+" + line for line in lines)


def change(
    path: str,
    patch: str | None = None,
    status: FileStatus = FileStatus.MODIFIED,
    **fields: Any,
) -> FileChange:
    plus = sum(1 for line in (patch or "").splitlines() if line.startswith("+"))
    minus = sum(1 for line in (patch or "").splitlines() if line.startswith("-"))
    values: dict[str, Any] = {"additions": plus, "deletions": minus}
    values.update(fields)
    return FileChange(path=path, status=status, patch=patch, **values)


def new_file(path: str, lines: list[str]) -> FileChange:
    return change(path, added_patch(lines), FileStatus.ADDED)


def make_pr(number: int, title: str, files: list[FileChange], **fields: Any) -> PullRequest:
    merged = fields.pop("merged_at", MERGED)
    return PullRequest(
        number=number,
        title=title,
        created_at=merged - timedelta(days=1),
        merged_at=merged,
        files=files,
        additions=sum(f.additions for f in files),
        deletions=sum(f.deletions for f in files),
        changed_files=len(files),
        **fields,
    )
