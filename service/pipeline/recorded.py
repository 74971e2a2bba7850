"""Recorded weeks (git-history JSON, as in the bundled sample) → CollectedPeriod, no network."""

from __future__ import annotations

import functools
import json
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any

from service.core.models import (
    CollectedPeriod,
    Completeness,
    FileChange,
    FileStatus,
    MissingItem,
    Period,
    PullRequest,
)
from service.core.weeks import parse_week
from service.errors import InputError

SAMPLE_REPO = "volcengine/verl"
SAMPLE_FILE = "verl-2026-W04.json"
UNKNOWN_LOGIN = "unknown"


def _file_from_recorded(raw: dict[str, Any]) -> FileChange:
    known = {s.value for s in FileStatus}
    status = raw.get("status", "modified")
    return FileChange(
        path=raw["filename"],
        status=FileStatus(status) if status in known else FileStatus.CHANGED,
        additions=int(raw.get("additions", 0)),
        deletions=int(raw.get("deletions", 0)),
        patch=raw.get("patch"),
        previous_path=raw.get("previous_filename"),
    )


def pr_from_recorded(raw: dict[str, Any], repo: str, web_url: str = "") -> PullRequest:
    """One recorded PR. Labels, reviews, comments and checks are unknown in git history: None.
    Its URL is `web_url/<repo>/pull/<n>`, the host the recording came from (none without it)."""
    files = [_file_from_recorded(f) for f in raw.get("files", [])]
    author = raw.get("author") or {}
    # git history gives no login for some authors ("unknown"): the display name is their key
    name = author.get("name") or None
    login = author.get("login")
    if not login or login == UNKNOWN_LOGIN:
        login = name
    return PullRequest(
        number=int(raw["number"]),
        title=raw.get("title", ""),
        body=raw.get("body") or "",
        url=f"{web_url.rstrip('/')}/{repo}/pull/{raw['number']}" if web_url else "",
        author=login,
        author_name=name,
        created_at=datetime.fromisoformat(raw["created_at"]),
        merged_at=datetime.fromisoformat(raw["merged_at"]),
        additions=int(raw.get("additions", 0)),
        deletions=int(raw.get("deletions", 0)),
        changed_files=int(raw.get("changed_files", len(files))),
        files=files,
        patches_fetched=any(f.patch is not None for f in files),
        merge_commit=raw.get("merge_commit_sha"),
    )


def week_from_recorded(data: dict[str, Any], now: datetime) -> CollectedPeriod:
    """A recorded week file's content → CollectedPeriod (source `sample`)."""
    repo = data["repo"]
    window = parse_week(data["week"], data.get("timezone", "Asia/Shanghai"), now)
    prs = [pr_from_recorded(raw, repo, str(data.get("web_url") or "")) for raw in data["pulls"]]
    private = data.get("private")
    return CollectedPeriod(
        repo=repo,
        window=window,
        prs=prs,
        source="sample",
        private=private if isinstance(private, bool) else None,
    )


def load_recorded(path: Path, now: datetime) -> CollectedPeriod:
    """Read a recorded week file; a missing or malformed file is an InputError."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read recorded week {path}: {exc}") from None
    return week_from_recorded(data, now)


def within(recorded: CollectedPeriod, period: Period) -> CollectedPeriod:
    """The recorded week's PRs merged in `period` (a month, a range), said incomplete on its
    face for the days of `period` the recording does not cover."""
    rec = recorded.window
    if period.end <= rec.start or period.start >= rec.end:
        raise InputError(
            f"the recording holds {recorded.repo} {rec.label} only: "
            f"{period.label} has none of its days"
        )
    uncovered = []
    if period.start < rec.start:
        uncovered.append((period.first_day, rec.first_day - timedelta(days=1)))
    if period.end > rec.end:
        uncovered.append((rec.last_day + timedelta(days=1), period.last_day))
    missing = [
        MissingItem(
            what=f"days {first}..{last}",
            reason=f"the recording holds {rec.label} only",
            key="days_not_recorded",
            params={"first": first.isoformat(), "last": last.isoformat(), "week": rec.label},
        )
        for first, last in uncovered
    ]
    prs = [p for p in recorded.prs if period.start <= p.merged_at < period.end]
    return recorded.model_copy(
        update={
            "window": period,
            "prs": prs,
            "completeness": Completeness(complete=not missing, missing=missing),
        }
    )


@functools.cache
def _sample_data() -> dict[str, Any]:
    text = resources.files("service.data").joinpath("sample", SAMPLE_FILE).read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def load_sample(now: datetime) -> CollectedPeriod:
    """The real verl week bundled inside the package."""
    return week_from_recorded(_sample_data(), now)  # which reads the data, never changes it


def sample_window(now: datetime) -> Period:
    """The bundled week's window, without building its PRs."""
    data = _sample_data()
    return parse_week(data["week"], data.get("timezone", "Asia/Shanghai"), now)
