"""The database file locked by another connection, or missing: a clear error (one line, no
traceback) or a 503 from /healthz, and nothing lost or posted twice once it is back."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

from tests.e2e.conftest import REPO, SLACK_ADMIN, Fakes, last_window, shifted_pulls
from tests.harness import slack_command
from tests.processes import ServiceProcess
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e


def db_path(serve: ServiceProcess) -> Path:
    return Path(serve.env["DATABASE_URL"].removeprefix("sqlite:///"))


@contextmanager
def exclusive(path: Path) -> Iterator[sqlite3.Connection]:
    """Another process's connection holding an exclusive lock on the database file."""
    conn = sqlite3.connect(path, timeout=1, isolation_level=None)
    try:
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("CREATE TABLE IF NOT EXISTS lock_holder (x INTEGER)")
        conn.execute("INSERT INTO lock_holder VALUES (1)")
        yield conn
    finally:
        conn.execute("ROLLBACK")
        conn.close()


@contextmanager
def write_locked(path: Path) -> Iterator[sqlite3.Connection]:
    """Another connection in the middle of a long write transaction."""
    conn = sqlite3.connect(path, timeout=1, isolation_level=None)
    try:
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("CREATE TABLE IF NOT EXISTS lock_holder (x INTEGER)")
        yield conn
    finally:
        conn.execute("ROLLBACK")
        conn.close()


def posted_week(fakes: Fakes, serve: ServiceProcess) -> None:
    for raw in shifted_pulls():
        fakes.github.add_pr(raw)
    serve.start()
    wait_for(lambda: serve.health()[1]["last_run"]["outcome"] == "ok", what="first run")
    assert len(fakes.slack.messages("C1")) == 1
    assert len(fakes.feishu.posted("oc_group1")) == 1


def report_status(serve: ServiceProcess) -> int:
    url = f"{serve.url}/reports/{REPO}/{last_window().label}"
    return requests.get(url, timeout=30).status_code


def test_a_locked_database_at_start_is_a_clear_error_then_nothing_is_lost(
    fakes: Fakes, serve: ServiceProcess
) -> None:
    posted_week(fakes, serve)
    serve.stop()
    with exclusive(db_path(serve)):
        serve.start(wait=False)
        code = serve.wait_exit(60)
    assert code != 0
    last = serve.stderr_path.read_text(encoding="utf-8").strip().splitlines()[-1]
    assert "database" in last
    assert "locked" in last
    assert "Traceback" not in serve.stderr_path.read_text(encoding="utf-8")
    serve.start()  # the lock is gone: the service comes back with everything it had
    assert report_status(serve) == 200
    assert "catch-up: nothing missed" in serve.log()
    assert len(fakes.slack.messages("C1")) == 1
    assert len(fakes.feishu.posted("oc_group1")) == 1


def test_a_write_lock_while_running_leaves_reads_answering_and_heals(
    fakes: Fakes, serve: ServiceProcess
) -> None:
    posted_week(fakes, serve)
    with write_locked(db_path(serve)):
        risks = slack_command(serve.url, fakes.slack, "risks")
        assert risks.status_code == 200
        assert last_window().label in risks.json()["text"]
        assert report_status(serve) == 200  # readers are not blocked (WAL)
        assert serve.health()[0] == 200
    answer = slack_command(serve.url, fakes.slack, "subscribe", user=SLACK_ADMIN)
    assert answer.status_code == 200
    assert "incident" not in answer.json()["text"]
    assert len(fakes.slack.messages("C1")) == 1


def test_subscribe_during_a_write_lock_gets_a_clear_answer(
    fakes: Fakes, serve: ServiceProcess
) -> None:
    posted_week(fakes, serve)
    with write_locked(db_path(serve)):
        answer = slack_command(serve.url, fakes.slack, "subscribe", user=SLACK_ADMIN)
        assert answer.status_code == 200


def remove_database(serve: ServiceProcess) -> None:
    path = db_path(serve)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def test_a_database_file_deleted_while_running_is_a_503(
    fakes: Fakes, serve: ServiceProcess
) -> None:
    posted_week(fakes, serve)
    remove_database(serve)
    status, health = serve.health()
    assert status == 503
    assert health["database"] == "unreachable"


def test_a_missing_database_at_restart_posts_nothing_twice(
    fakes: Fakes, serve: ServiceProcess
) -> None:
    posted_week(fakes, serve)
    serve.stop()
    remove_database(serve)
    # a fresh database: the week looks owed again, yet the platforms already have it
    serve.start()
    wait_for(lambda: serve.health()[1]["last_run"]["outcome"] == "ok", what="rebuilt")
    assert len(fakes.slack.messages("C1")) == 1  # reconciled from the channel history
    assert len(fakes.feishu.posted("oc_group1")) == 1  # same uuid: dropped by the platform
    assert report_status(serve) == 200
    assert len(fakes.slack.calls("chat.postMessage")) == 1
