"""Fixtures of the command engine: a real SQLite store holding digests of real verl weeks."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from service.commands.answer import EngineContext
from service.core.models import Digest
from service.store.repository import Store
from tests.commands.builders import WEEK_LABELS, real_digest
from tests.conftest import NOW

REPO = "volcengine/verl"
ADMIN = "UADMIN"


@pytest.fixture(scope="session")
def digests() -> dict[str, Digest]:
    return {label: real_digest(label) for label in WEEK_LABELS}


@pytest.fixture
def store(tmp_path: Path, digests: dict[str, Digest]) -> Store:
    opened = Store.open(f"sqlite:///{tmp_path}/engine.db")
    for digest in digests.values():
        opened.save_digest(digest)
    return opened


class Clock:
    """A settable clock: tests move time forward explicitly."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock(NOW)


@pytest.fixture
def make_ctx(store: Store, clock: Clock) -> Callable[..., EngineContext]:
    def build(**overrides: object) -> EngineContext:
        values: dict[str, object] = {
            "reader": store,
            "repos": [REPO],
            "language": "en",
            "timezone": "Asia/Shanghai",
            "clock": clock,
            "admins": frozenset({ADMIN}),
            "subscriptions": store,
            "report_url": lambda repo, week: f"http://reports.test/reports/{repo}/{week}",
        }
        values.update(overrides)
        return EngineContext(**values)  # type: ignore[arg-type]

    return build
