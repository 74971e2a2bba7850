"""Fixtures of the collector tests: a FakeGitHub serving real verl weeks, a real Store as the
HTTP cache, clients with tiny backoff, and bigger weeks built from the real PRs."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from service.core.models import Period
from service.core.weeks import window_for
from service.github.http import GitHubHttp
from service.store.repository import Store
from tests.fakes.github import FakeGitHub

WEEKS = Path(__file__).parents[1] / "data" / "weeks"
TOKEN = "t0ken-for-tests-only"
REPO = "volcengine/verl"
TZ = "Asia/Shanghai"


def week_data(label: str) -> dict[str, Any]:
    """A recorded verl week file's content (real PRs from the public git history)."""
    return json.loads((WEEKS / f"{label}.json").read_text(encoding="utf-8"))


def w04() -> Period:
    return window_for(2026, 4, TZ)


def stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def many_prs(count: int, window: Period, *, first_number: int = 100_000) -> list[dict[str, Any]]:
    """`count` PRs made from the real recorded ones: renumbered, merges spread over `window`."""
    real = [
        pr
        for label in ("2025-W47", "2025-W48", "2026-W03", "2026-W04")
        for pr in week_data(label)["pulls"]
    ]
    step = (window.end - window.start) / count
    made = []
    for i in range(count):
        pr = copy.deepcopy(real[i % len(real)])
        pr["number"] = first_number + i
        merged = window.start + step * i + timedelta(seconds=1)
        pr["merged_at"] = pr["created_at"] = stamp(merged)
        made.append(pr)
    return made


def wide_pr(number: int, files: int, window: Period) -> dict[str, Any]:
    """A real PR's files repeated under distinct paths until it changes `files` files."""
    base = week_data("2025-W48")["pulls"][0]
    pr = copy.deepcopy(base)
    source = base["files"]
    pr["files"] = []
    for i in range(files):
        entry = copy.deepcopy(source[i % len(source)])
        entry["filename"] = f"docs/bulk/{i:04d}/{entry['filename']}"
        entry.pop("previous_filename", None)
        if entry["status"] == "renamed":
            entry["status"] = "modified"
        pr["files"].append(entry)
    pr["number"] = number
    pr["changed_files"] = files
    pr["additions"] = sum(f["additions"] for f in pr["files"])
    pr["deletions"] = sum(f["deletions"] for f in pr["files"])
    pr["merged_at"] = pr["created_at"] = stamp(window.start + timedelta(hours=5))
    return pr


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    """A FakeGitHub that wants TOKEN, serving the real week 2026-W04."""
    fake = FakeGitHub(REPO, token=TOKEN)
    fake.serve_week(week_data("2026-W04"))
    with fake.running():
        yield fake


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(f"sqlite:///{tmp_path}/db.sqlite")


@pytest.fixture
def make_http(github: FakeGitHub, store: Store) -> Iterator[Callable[..., GitHubHttp]]:
    """GitHubHttp pointed at the fake, with tiny backoff; token and cache overridable."""
    made: list[GitHubHttp] = []

    def build(**overrides: Any) -> GitHubHttp:
        values: dict[str, Any] = {
            "api_url": github.url,
            "graphql_url": github.graphql_url,
            "token": TOKEN,
            "cache": store,
            "timeout": 5.0,
            "max_retries": 3,
            "backoff_base": 0.001,
            "backoff_cap": 0.01,
            "max_wait": 2.0,
        }
        values.update(overrides)
        http = GitHubHttp(**values)
        made.append(http)
        return http

    yield build
    for http in made:
        http.close()
