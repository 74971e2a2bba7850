"""`verl-week serve` as a real subprocess (tests.processes.ServiceProcess) against FakeGitHub,
FakeSlack and FakeFeishu on 127.0.0.1 (tests.harness). The fake GitHub serves recorded verl weeks
shifted into the `last` week relative to the real current date, so the start-up catch-up (empty
database: `last` is owed) builds and posts it."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from service.core.models import Period
from service.core.weeks import parse_week
from tests.conftest import WEEKS
from tests.harness import (
    FEISHU_ADMIN,
    GITHUB_TOKEN,
    REPO,
    SLACK_ADMIN,
    TZ,
    Fakes,
    fake_settings,
    running_fakes,
)
from tests.processes import ROOT, ServiceProcess

__all__ = ["FEISHU_ADMIN", "GITHUB_TOKEN", "REPO", "ROOT", "SLACK_ADMIN", "Fakes"]

SCHEDULE = "0 0 * * MON"  # the `last` week's own tick (Monday 00:00) has always passed


def last_window() -> Period:
    return parse_week("last", TZ, datetime.now(UTC))


def _stamp(value: str, delta: timedelta) -> str:
    moment = datetime.fromisoformat(value.replace("Z", "+00:00")) + delta
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def shifted_pulls(labels: tuple[str, ...] = ("2026-W04",)) -> list[dict[str, Any]]:
    """The PRs of recorded weeks, merge and creation times moved into the `last` week."""
    target = last_window()
    pulls = []
    for label in labels:
        data = json.loads((WEEKS / f"{label}.json").read_text(encoding="utf-8"))
        source = parse_week(label, data.get("timezone", TZ), datetime.now(UTC))
        delta = target.start - source.start
        for raw in data["pulls"]:
            pr = copy.deepcopy(raw)
            pr["merged_at"] = _stamp(raw["merged_at"], delta)
            pr["created_at"] = _stamp(raw["created_at"], delta)
            pulls.append(pr)
    return pulls


@pytest.fixture
def fakes() -> Iterator[Fakes]:
    with running_fakes() as running:
        yield running


def serve_env(fakes: Fakes, folder: Path, **extra: str) -> dict[str, str]:
    """One Slack channel and one Feishu chat in English, JSON logs, the catch-up schedule."""
    return fake_settings(
        fakes,
        folder,
        GITHUB_MAX_WAIT_SECONDS="30",
        SLACK_CHANNELS="C1",
        FEISHU_CHAT_IDS="oc_group1",
        DIGEST_SCHEDULE=SCHEDULE,
        DIGEST_LANGUAGE="en",
        LOG_FORMAT="json",
        **extra,
    )


@pytest.fixture
def serve(fakes: Fakes, tmp_path: Path) -> Iterator[ServiceProcess]:
    process = ServiceProcess(serve_env(fakes, tmp_path), tmp_path)
    yield process
    process.stop()
