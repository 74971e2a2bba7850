"""The fault-injection suite: the real `verl-week serve` and `verl-week scheduler` processes
(tests.processes.ServiceProcess, with tests/e2e's fakes and settings) against fakes told to
fail, with the scheduler's timing made short through
its settings (RUN_RETRY_FIRST_SECONDS, RUN_RETRY_MAX_SECONDS, RUN_LEASE_SECONDS)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from service.store import tables
from service.store.repository import Store
from tests.e2e.conftest import Fakes, fakes, serve_env, shifted_pulls
from tests.fakes._server import Recorded, Reply
from tests.postgres.conftest import postgres_server, postgres_url
from tests.processes import ServiceProcess
from tests.waiting import wait_for

__all__ = ["fakes", "postgres_server", "postgres_url"]  # fixtures shared with e2e and postgres

# seconds, so a test sees several retries and a lease run out within its bounded waits
FAST = {
    "RUN_RETRY_FIRST_SECONDS": "0.5",
    "RUN_RETRY_MAX_SECONDS": "2",
    "RUN_LEASE_SECONDS": "3",
}
HOLD_SECONDS = 120.0


class Gate:
    """A fake's route held closed: each call waits until `open()` (the call is counted and
    `reached` set first), then answers as the route always does (or as `reply` says)."""

    def __init__(self, routes: dict[tuple[str, str], Any], key: tuple[str, str]) -> None:
        self.routes = routes
        self.key = key
        self.original = routes[key]
        self.reached = threading.Event()
        self._open = threading.Event()
        self.calls = 0
        routes[key] = self

    def __call__(self, rec: Recorded) -> Reply:
        self.calls += 1
        self.reached.set()
        self._open.wait(HOLD_SECONDS)
        reply: Reply = self.original(rec)
        return reply

    def open(self) -> None:
        self._open.set()


def add_week(fakes: Fakes) -> None:
    for raw in shifted_pulls():
        fakes.github.add_pr(raw)


def run_rows(database_url: str) -> list[tuple[str, str]]:
    """(trigger, outcome) of every run row, oldest first."""
    store = Store.open(database_url, migrate=False)
    try:
        with store.engine.connect() as conn:
            query = select(tables.runs.c.trigger, tables.runs.c.outcome).order_by(tables.runs.c.id)
            return [(row.trigger, row.outcome) for row in conn.execute(query)]
    finally:
        store.engine.dispose()


def posted_once(fakes: Fakes) -> bool:
    return len(fakes.slack.messages("C1")) == 1 and len(fakes.feishu.posted("oc_group1")) == 1


def settle(process: ServiceProcess) -> None:
    """Wait until the scheduler has looked again after the week was posted (a retry check
    that found nothing owed): whatever would post twice has had its chance."""
    seen = process.count("catch-up: nothing missed")
    wait_for(
        lambda: process.count("catch-up: nothing missed") > seen,
        what=lambda: f"a later check; log:\n{process.log()[-3000:]}",
    )


@pytest.fixture
def serve(fakes: Fakes, tmp_path: Path) -> Iterator[ServiceProcess]:
    process = ServiceProcess(serve_env(fakes, tmp_path, **FAST), tmp_path)
    yield process
    process.stop()


@pytest.fixture
def make_process(fakes: Fakes, tmp_path: Path) -> Iterator[Any]:
    """More processes on the same database (`scheduler` or `serve`), stopped at the end."""
    made: list[ServiceProcess] = []

    def make(command: str = "scheduler", **extra: str) -> ServiceProcess:
        process = ServiceProcess(
            serve_env(fakes, tmp_path, **{**FAST, **extra}), tmp_path, command=command
        )
        made.append(process)
        return process

    yield make
    for process in made:
        process.stop()


__all__ += ["Gate", "add_week", "posted_once", "run_rows", "settle"]
