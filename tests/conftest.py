"""Shared fixtures: clean environment, real recorded verl weeks, settings factory."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from service.core.models import CollectedWeek
from service.core.profile import RepoProfile, load_profile
from service.recorded import load_recorded
from service.settings import Settings

DATA = Path(__file__).parent / "data"
WEEKS = DATA / "weeks"
NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
SETTING_NAMES = [name.upper() for name in Settings.model_fields]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No proxy and no setting leaks in from the machine; cwd is a fresh folder (no .env)."""
    for name in list(os.environ):
        if name.upper().endswith("_PROXY") or name.upper() in SETTING_NAMES:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def load_week(label: str) -> CollectedWeek:
    """A real verl week from tests/data/weeks (copied from the public git history)."""
    return load_recorded(WEEKS / f"{label}.json", NOW)


@pytest.fixture(scope="session")
def verl_profile() -> RepoProfile:
    return load_profile("volcengine/verl")


@pytest.fixture(scope="session")
def weeks() -> dict[str, CollectedWeek]:
    """All four recorded weeks by label."""
    return {p.stem: load_recorded(p, NOW) for p in sorted(WEEKS.glob("*.json"))}


@pytest.fixture
def make_settings(tmp_path: Path) -> Callable[..., Settings]:
    """Settings without any .env, on a tmp SQLite database, with overrides."""

    def build(**overrides: Any) -> Settings:
        values: dict[str, Any] = {"database_url": f"sqlite:///{tmp_path}/verl-week.db"}
        values.update(overrides)
        return Settings(_env_file=None, **values)  # type: ignore[call-arg]

    return build
