"""`verl-week backup FILE` and `verl-week restore FILE` for a SQLite database: SQLite's online
backup API, a consistent copy while the service runs (a plain `cp` of a live file is not).

Backups hold the report-link signing key, so they are written owner-only (0600). A restore checks
the backup first (SQLite's integrity check, and every table of the current schema present) and
keeps the file it replaces next to it as `<name>.before-restore`."""

from __future__ import annotations

import os
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

from sqlalchemy.engine import make_url

from service.errors import InputError
from service.store.tables import metadata

POSTGRES_HINT = "for PostgreSQL use pg_dump / pg_restore (README: Backups and upgrades)"


def sqlite_path(database_url: str) -> Path:
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        raise InputError(f"backup and restore copy a SQLite file; {POSTGRES_HINT}")
    return Path(url.database)


def backup(database_url: str, target: Path) -> int:
    """Copy the live database to `target` (a new file); returns its size in bytes."""
    source = sqlite_path(database_url)
    if not source.is_file():
        raise InputError(f"no database at {source}")
    if target.exists():
        raise InputError(f"{target} exists: choose a new file (a backup never overwrites)")
    os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    try:
        with closing(sqlite3.connect(source)) as live, closing(sqlite3.connect(target)) as copy:
            live.backup(copy)
    except sqlite3.Error as exc:
        target.unlink(missing_ok=True)
        raise InputError(f"cannot back up to {target}: {exc}") from None
    return target.stat().st_size


def restore(database_url: str, source: Path) -> int:
    """Replace the database's content with the backup `source` (stop the service first);
    returns the number of tables restored."""
    target = sqlite_path(database_url)
    tables = _tables(source)
    if "alembic_version" not in tables:
        raise InputError(f"{source} is not a verl-week backup (no alembic_version table)")
    missing = sorted(set(metadata.tables) - tables)
    if missing:
        raise InputError(f"{source} is not a whole verl-week backup: no table {', '.join(missing)}")
    _check_integrity(source)
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_file():
        kept = target.with_name(target.name + ".before-restore")
        shutil.copy2(target, kept)
        kept.chmod(0o600)
    else:
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o600))
    with closing(sqlite3.connect(source)) as copy, closing(sqlite3.connect(target)) as live:
        copy.backup(live)
    return len(tables)


def _tables(path: Path) -> set[str]:
    if not path.is_file():
        raise InputError(f"no backup file at {path}")
    try:
        uri = f"{path.resolve().as_uri()}?mode=ro"
        with closing(sqlite3.connect(uri, uri=True)) as conn:
            rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    except sqlite3.DatabaseError:
        raise InputError(f"{path} is not a SQLite database") from None
    return {str(name) for (name,) in rows}


def _check_integrity(path: Path) -> None:
    uri = f"{path.resolve().as_uri()}?mode=ro"
    try:
        with closing(sqlite3.connect(uri, uri=True)) as conn:
            rows = conn.execute("PRAGMA integrity_check").fetchall()
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{path} is damaged: {exc}") from None
    if [str(row[0]) for row in rows] != ["ok"]:
        raise InputError(f"{path} is damaged: {rows[0][0]} (SQLite integrity check)")
