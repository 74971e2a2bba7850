"""Real `verl-week` processes starting together on one fresh database, as the shipped k8s
layout does (two web replicas, the scheduler, a migration Job, CLI runs): on SQLite and on
PostgreSQL, several trials, every process succeeds and the schema is made exactly once."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from sqlalchemy import create_engine, text

from service.store.schema import code_heads
from tests.fakes.asgi import free_port
from tests.fakes.github import FakeGitHub
from tests.processes import spawn
from tests.waiting import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.process]

TRIALS = 3
DIGESTS = 4
REPLICAS = 2
START_SECONDS = 90.0
FORBIDDEN = ("Traceback", "already exists", "UniqueViolation", "internal error")


@dataclass
class Proc:
    name: str
    popen: subprocess.Popen[bytes]
    log: Path

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def env_for(database_url: str, github: FakeGitHub) -> dict[str, str]:
    return {
        "DATABASE_URL": database_url,
        "GITHUB_API_URL": github.url,
        "GITHUB_GRAPHQL_URL": github.graphql_url,
        "GITHUB_TOKEN": "ghp_concurrentStartToken0123456789",
        "DIGEST_REPOS": "volcengine/verl",
        "LOG_FORMAT": "text",
    }


def launch(name: str, args: list[str], env: dict[str, str], folder: Path) -> Proc:
    log = folder / f"{name}.log"
    with log.open("wb") as out:
        popen = spawn(args, folder, env, stdout=out, stderr=subprocess.STDOUT)
    return Proc(name, popen, log)


def healthy(port: int, proc: Proc) -> bool:
    if proc.popen.poll() is not None:
        raise AssertionError(f"{proc.name} exited {proc.popen.returncode}:\n{proc.text()[-3000:]}")
    try:
        return requests.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200
    except requests.ConnectionError:
        return False


def wait_healthy(port: int, proc: Proc) -> None:
    wait_for(
        lambda: healthy(port, proc),
        START_SECONDS,
        lambda: f"{proc.name} healthy:\n{proc.text()[-3000:]}",
    )


def stop(proc: Proc) -> int:
    if proc.popen.poll() is None:
        proc.popen.send_signal(signal.SIGTERM)
    try:
        return proc.popen.wait(timeout=START_SECONDS)
    except subprocess.TimeoutExpired:
        proc.popen.kill()
        return proc.popen.wait(timeout=START_SECONDS)


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub("volcengine/verl")
    with fake.running():
        yield fake


@pytest.mark.parametrize("trial", range(TRIALS))
def test_processes_starting_together_on_a_fresh_database_all_succeed(
    database_url: str, github: FakeGitHub, tmp_path: Path, trial: int
) -> None:
    env = env_for(database_url, github)
    ports = [free_port() for _ in range(REPLICAS)]
    digests = [
        launch(f"digest-{i}", ["digest", "--sample", "--format", "json"], env, tmp_path)
        for i in range(DIGESTS)
    ]
    serves = [
        launch(f"serve-{i}", ["serve", "--host", "127.0.0.1", "--port", str(port)], env, tmp_path)
        for i, port in enumerate(ports)
    ]
    scheduler = launch("scheduler", ["scheduler"], env, tmp_path)
    migrate = launch("migrate", ["migrate"], env, tmp_path)
    procs = [*digests, *serves, scheduler, migrate]
    try:
        for port, proc in zip(ports, serves, strict=True):
            wait_healthy(port, proc)
        for proc in [*digests, migrate]:
            assert proc.popen.wait(timeout=START_SECONDS) == 0, proc.text()[-3000:]
        assert scheduler.popen.poll() is None, scheduler.text()[-3000:]
    finally:
        codes = {proc.name: stop(proc) for proc in procs}
    # uvicorn re-raises the SIGTERM it handled once it has shut down cleanly
    assert all(code in (0, -signal.SIGTERM) for code in codes.values()), codes
    for proc in procs:
        for word in FORBIDDEN:
            assert word not in proc.text(), f"{proc.name}: {proc.text()[-3000:]}"
    assert all('"repo": "volcengine/verl"' in proc.text() for proc in digests)
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            revisions = {
                row[0] for row in conn.execute(text("SELECT version_num FROM alembic_version"))
            }
            jobs = conn.execute(text("SELECT id FROM apscheduler_jobs")).all()
    finally:
        engine.dispose()
    assert revisions == set(code_heads())
    # every cadence's job of the one table, each once (monthly: a subscription by command may
    # ask for it at any time)
    assert sorted(row[0] for row in jobs) == ["monthly-digest", "weekly-digest"]
