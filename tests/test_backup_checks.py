"""backup writes owner-only files; restore refuses a damaged or partial backup and keeps the file it
replaces (issue 31 point 7)."""

from __future__ import annotations

import sqlite3
import stat
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from service.errors import InputError
from service.ops.backup import backup, restore
from service.store.tables import metadata


def database(path: Path) -> str:
    url = f"sqlite:///{path}"
    engine = create_engine(url)
    metadata.create_all(engine)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE alembic_version (version_num VARCHAR(32))")
        conn.exec_driver_sql("INSERT INTO alembic_version VALUES ('head')")
    engine.dispose()
    return url


def test_a_backup_is_owner_only(tmp_path: Path) -> None:
    url = database(tmp_path / "live.db")
    backup(url, tmp_path / "copy.db")
    assert stat.S_IMODE((tmp_path / "copy.db").stat().st_mode) == 0o600


def test_restore_refuses_a_one_table_file(tmp_path: Path) -> None:
    url = database(tmp_path / "live.db")
    partial = tmp_path / "partial.db"
    with closing(sqlite3.connect(partial)) as conn:
        conn.execute("CREATE TABLE alembic_version (version_num VARCHAR(32))")
    with pytest.raises(InputError, match="not a whole verl-week backup"):
        restore(url, partial)


def test_restore_refuses_a_damaged_backup(tmp_path: Path) -> None:
    url = database(tmp_path / "live.db")
    copy = tmp_path / "copy.db"
    backup(url, copy)
    data = bytearray(copy.read_bytes())
    page = 4096
    for at in range(2 * page, len(data) - 16, page):
        data[at + 8 : at + 16] = b"\xff" * 8  # scramble every b-tree page header after page 1
    copy.write_bytes(bytes(data))
    with pytest.raises(InputError, match=r"damaged|not a"):
        restore(url, copy)


def test_restore_keeps_the_replaced_file(tmp_path: Path) -> None:
    live = tmp_path / "live.db"
    url = database(live)
    copy = tmp_path / "copy.db"
    backup(url, copy)
    restore(url, copy)
    kept = tmp_path / "live.db.before-restore"
    assert kept.is_file()
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
