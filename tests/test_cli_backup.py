"""`verl-week backup` / `restore`: a week built from the fake GitHub and its deliveries survive
backup, wipe and restore row for row; bad input is one line and exit 2."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from service.store.repository import Store
from tests.fakes.github import FakeGitHub
from tests.periods import period
from tests.processes import run_cli as run
from tests.test_cli import github, github_env

pytestmark = pytest.mark.process

__all__ = ["github"]  # the fixture, shared with test_cli
WEEK = "2026-W04"
REPO = "volcengine/verl"


def rows(db: Path) -> dict[str, list[tuple[object, ...]]]:
    with closing(sqlite3.connect(db)) as conn:
        names = [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        # table names from sqlite_master of the test's own file, not outside input
        return {n: sorted(conn.execute(f'SELECT * FROM "{n}"').fetchall(), key=repr) for n in names}  # noqa: S608


def test_backup_wipe_restore_keeps_digest_and_deliveries(
    github: FakeGitHub, tmp_path: Path
) -> None:
    env = github_env(github, tmp_path)
    db = tmp_path / "db.sqlite"
    built = run(["digest", "--week", WEEK, "--format", "json", "--lang", "en"], tmp_path, **env)
    assert built.returncode == 0, built.stderr
    store = Store.open(f"sqlite:///{db}")
    for channel, message in (("slack:C1", "1700000000.000100"), ("feishu:oc_1", "om_1")):
        record = store.record_intent(REPO, period(WEEK), channel, f"key-{channel}")
        store.record_sent(record.id, message)
    deliveries = store.list_deliveries(REPO, period(WEEK))
    store.engine.dispose()
    before = rows(db)
    assert before["digests"]
    assert len(before["deliveries"]) == 2

    saved = run(["backup", str(tmp_path / "backup.db")], tmp_path, **env)
    assert saved.returncode == 0, saved.stderr
    assert "backup.db" in saved.stdout
    db.unlink()  # the wipe
    restored = run(["restore", str(tmp_path / "backup.db")], tmp_path, **env)
    assert restored.returncode == 0, restored.stderr

    assert rows(db) == before
    assert Store.open(f"sqlite:///{db}").list_deliveries(REPO, period(WEEK)) == deliveries
    again = run(["digest", "--week", WEEK, "--format", "json", "--lang", "en"], tmp_path, **env)
    assert again.stdout == built.stdout  # the restored week renders the same digest


def test_backup_and_restore_refuse_bad_input_in_one_line(tmp_path: Path) -> None:
    env = {"DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite"}
    assert run(["digest", "--sample"], tmp_path, **env).returncode == 0
    (tmp_path / "taken.db").write_text("x")
    (tmp_path / "notes.txt").write_text("not a database")
    cases = [
        (["backup", "taken.db"], env, "never overwrites"),
        (["restore", "missing.db"], env, "no backup file"),
        (["restore", "notes.txt"], env, "not a SQLite database"),
        (["backup", "b.db"], {"DATABASE_URL": "postgresql://u:p@127.0.0.1:1/x"}, "pg_dump"),
    ]
    for args, case_env, needle in cases:
        result = run(args, tmp_path, **case_env)
        assert result.returncode == 2, (args, result.stderr)
        assert needle in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert "u:p" not in result.stderr


def test_migrate_to_an_older_revision_and_up_again(tmp_path: Path) -> None:
    env = {"DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite"}
    up = run(["migrate"], tmp_path, **env)
    assert up.returncode == 0, up.stderr
    head = up.stdout.strip().rsplit(" ", 1)[-1]
    back = run(["migrate", "--to", "0005"], tmp_path, **env)
    assert back.returncode == 0, back.stderr
    assert back.stdout.strip().endswith("to 0005")
    with closing(sqlite3.connect(tmp_path / "db.sqlite")) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [("0005",)]
    again = run(["migrate"], tmp_path, **env)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip().endswith(f"to revision {head}")
    unknown = run(["migrate", "--to", "9999"], tmp_path, **env)
    assert unknown.returncode == 2
    assert unknown.stderr.strip().splitlines() == [unknown.stderr.strip()]  # one line
    assert "unknown schema revision '9999'" in unknown.stderr
