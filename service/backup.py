"""`verl-week backup FILE` and `verl-week restore FILE` for a SQLite database: SQLite's online
backup API, a consistent copy while the service runs (a plain `cp` of a live file is not)."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from sqlalchemy.engine import make_url

from service.errors import InputError

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
    target.parent.mkdir(parents=True, exist_ok=True)
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
