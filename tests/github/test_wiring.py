"""The service reaches GitHub only through its settings: GITHUB_API_URL (GraphQL URL derived)
and GITHUB_TOKEN point the wired collector at the fake."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.settings import Settings
from service.store.repository import Store
from service.wiring import github_collector
from tests.fakes.github import FakeGitHub
from tests.github.conftest import REPO, TOKEN, w04, week_data


def test_environment_points_the_collector_at_github(
    github: FakeGitHub, store: Store, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/unused.sqlite")
    settings = Settings(_env_file=None)
    assert settings.graphql_url == github.graphql_url
    seen: list[tuple[int, int]] = []
    collect, fetch = github_collector(
        settings, store, lambda done, total: seen.append((done, total))
    )
    week = collect(REPO, w04())
    expected = {pr["number"] for pr in week_data("2026-W04")["pulls"]}
    assert {p.number for p in week.prs} <= expected
    assert len(week.prs) >= 20
    assert github.calls("POST", "/graphql")
    assert seen
    assert seen[-1][0] == seen[-1][1]
    assert fetch(REPO, 4970).number == 4970
    assert all(c.header("authorization") == f"Bearer {TOKEN}" for c in github.calls())
