"""Shared fixtures: clean environment, real recorded verl weeks, settings factory; the guard
that keeps service processes out of the in-process tier."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Generator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from service.core.models import CollectedPeriod
from service.core.profile import RepoProfile, load_profile
from service.pipeline.recorded import load_recorded
from service.settings import Settings
from tests.trace_race import retry_thread_trace

DATA = Path(__file__).parent / "data"
WEEKS = DATA / "weeks"
NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
SETTING_NAMES = [name.upper() for name in Settings.model_fields]
PROCESS_MARKER = "process"
_running: dict[str, bool] = {"may_start_processes": True}
retry_thread_trace()  # coverage's thread hook races on CPython 3.11 (tests/trace_race.py)


def _is_service_child(args: tuple[Any, ...]) -> bool:
    """Whether a subprocess.Popen audit event starts Python or `verl-week` (a tool such as
    shellcheck, which the service itself runs, is not a service process)."""
    executable, argv = args[0], args[1]
    if executable is None:
        argv = [argv] if isinstance(argv, str | bytes | os.PathLike) else list(argv)
        executable = argv[0] if argv else ""
    program = os.fsdecode(executable)
    name = Path(program).name
    return program == sys.executable or name.startswith("python") or name == "verl-week"


def _refuse_unmarked_children(event: str, args: tuple[Any, ...]) -> None:
    unmarked = not _running["may_start_processes"]
    if event == "subprocess.Popen" and unmarked and _is_service_child(args):
        raise RuntimeError(
            "this test starts a Python or verl-week process: mark it "
            "@pytest.mark.process (the tier `make test` leaves out)"
        )


sys.addaudithook(_refuse_unmarked_children)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _running["may_start_processes"] = item.get_closest_marker(PROCESS_MARKER) is not None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, object, object]:
    try:
        return (yield)
    finally:
        _running["may_start_processes"] = True


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that runs `serve` end to end (`e2e`) starts processes too. Coverage (make ci's
    floor) is traced only in the floor packages' own tests: tracing doubles CPU-bound tests, and
    the process tier's code runs in the child, untraced anyway."""
    for item in items:
        if item.get_closest_marker("e2e") is not None:
            item.add_marker(PROCESS_MARKER)
        if not _covers_the_floor(item):
            item.add_marker(pytest.mark.no_cover)


# the floor's packages' own tests: what make ci's coverage floor is measured on
FLOOR_TESTS = ("core", "commands", "render", "golden")


def _covers_the_floor(item: pytest.Item) -> bool:
    """Traced for the floor: the in-process tests of core, commands and render, but not the slow
    2,000-PR ones (tracing doubled them; the real weeks' tests run the same lines)."""
    if item.get_closest_marker("slow") or item.get_closest_marker("process"):
        return False
    parts = Path(str(item.path)).relative_to(Path(__file__).parent).parts
    return len(parts) > 1 and parts[0] in FLOOR_TESTS


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No proxy and no setting leaks in from the machine; cwd is a fresh folder (no .env)."""
    for name in list(os.environ):
        if name.upper().endswith("_PROXY") or name.upper() in SETTING_NAMES:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def load_week(label: str) -> CollectedPeriod:
    """A real verl week from tests/data/weeks (copied from the public git history)."""
    return load_recorded(WEEKS / f"{label}.json", NOW)


@pytest.fixture(scope="session")
def verl_profile() -> RepoProfile:
    return load_profile("volcengine/verl")


@pytest.fixture(scope="session")
def weeks() -> dict[str, CollectedPeriod]:
    """All four recorded weeks by label."""
    return {p.stem: load_recorded(p, NOW) for p in sorted(WEEKS.glob("*.json"))}


@pytest.fixture
def make_settings(tmp_path: Path) -> Callable[..., Settings]:
    """Settings without any .env, on a tmp SQLite database, with overrides."""

    def build(**overrides: Any) -> Settings:
        values: dict[str, Any] = {"database_url": f"sqlite:///{tmp_path}/verl-week.db"}
        values.update(overrides)
        return Settings(_env_file=None, **values)

    return build
