"""The database engine: a SQLite file created private and switched to WAL, or PostgreSQL by URL;
and where a database's schema stands, read without migrating anything (`doctor`)."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DatabaseError, SQLAlchemyError

from service.errors import StoreUnavailableError
from service.store.json_text import serialise
from service.store.schema import code_heads, database_heads, known_revisions

logger = logging.getLogger(__name__)
# under Slack's 3 s ack: a command that writes (subscribe) answers "busy, retry" in time
SQLITE_BUSY_MS = 2000
# the dialects the upserts and the schema lock are written for
SUPPORTED_BACKENDS = ("sqlite", "postgresql")
# the live database holds subscriptions and the report-link key: the owner alone reads it
PRIVATE_FILE_MODE = 0o600
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")


def _prepare_sqlite(url: str) -> None:
    """The folder made, the file created 0600 before SQLite opens it (its -wal and -shm then
    take the same mode), and a file made earlier with a wider mode narrowed to 0600."""
    parsed = make_url(url)
    if not parsed.database or parsed.database == ":memory:" or parsed.database.startswith("file:"):
        return
    path = Path(parsed.database).expanduser()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # created only when missing: an existing file (perhaps read-only to this user) is
        # opened by SQLite alone, as before
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE))
    except FileExistsError:
        pass
    except OSError as exc:
        raise StoreUnavailableError(f"cannot create the database file: {exc.strerror}") from None
    for each in (path, *(path.with_name(path.name + side) for side in SQLITE_SIDE_FILES)):
        _narrow(each)


def _narrow(path: Path) -> None:
    try:
        mode = path.stat().st_mode & 0o777
        if mode & 0o077:
            path.chmod(PRIVATE_FILE_MODE)
            logger.warning(
                "database file was readable by others; now 0600",
                extra={"file": path.name, "was": oct(mode)},
            )
    except FileNotFoundError:
        return
    except PermissionError:  # not ours to change: say so, the service still runs
        logger.warning("database file is readable by others", extra={"file": path.name})


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # busy wait first: switching a fresh file to WAL waits for another process's lock
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_MS}")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def create_store_engine(url: str) -> Engine:
    """An Engine on `url`; for SQLite the folder is created and WAL is switched on."""
    backend = make_url(url).get_backend_name()
    if backend not in SUPPORTED_BACKENDS:
        raise StoreUnavailableError(
            f"unsupported database {backend}: DATABASE_URL must be sqlite:///… or "
            "postgresql+psycopg://…"
        )
    if url.startswith("sqlite"):
        _prepare_sqlite(url)
        engine = create_engine(
            url, connect_args={"check_same_thread": False}, json_serializer=serialise
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True, json_serializer=serialise)


@dataclass(frozen=True)
class SchemaState:
    """Where a database stands: its Alembic revisions (empty: no verl-week schema yet), the
    ones this release ships, and the revisions this release knows at all."""

    revisions: frozenset[str]
    heads: frozenset[str]
    known: frozenset[str]

    @property
    def current(self) -> bool:
        return self.revisions == self.heads

    @property
    def newer(self) -> bool:
        """The database was migrated by a newer verl-week."""
        return not self.revisions <= self.known


def schema_state(url: str) -> SchemaState:
    """Read the schema's revisions without creating or migrating anything (`doctor`)."""
    heads, known = code_heads(), known_revisions()
    parsed = make_url(url)
    is_file = parsed.get_backend_name() == "sqlite" and parsed.database not in (None, ":memory:")
    if is_file and not Path(parsed.database or "").expanduser().exists():
        return SchemaState(frozenset(), heads, known)  # connecting would create an empty file
    try:
        engine = create_store_engine(url)
    except (SQLAlchemyError, ValueError, OSError) as exc:
        raise StoreUnavailableError(f"cannot open database: {type(exc).__name__}") from None
    try:
        with engine.connect() as conn:
            return SchemaState(database_heads(conn), heads, known)
    except DatabaseError as exc:
        reason = str(exc.orig).splitlines()[0] if exc.orig else "operational error"
        raise StoreUnavailableError(f"database unavailable: {reason}") from None
    finally:
        engine.dispose()
