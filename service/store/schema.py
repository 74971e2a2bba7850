"""Schema management: the Alembic revisions in `migrations/`, run under a lock every process
takes, so that web replicas, the scheduler and a migration Job starting together on one fresh
database upgrade it exactly once.

The lock is a PostgreSQL advisory lock held for the migrating transaction, and on SQLite the
migrating transaction itself (BEGIN EXCLUSIVE). A process that finds the schema already at the
code's heads takes no lock at all. A database whose revision this code does not know (a newer
verl-week migrated it) is refused in one line rather than used.

That check runs on every start, so it does without Alembic: the revision graph is read from the
revision files' `revision` / `down_revision` lines and the database's from `alembic_version`
(importing Alembic's script and runtime machinery costs ~0.2 s). Alembic itself is imported
only to migrate.
"""

from __future__ import annotations

import ast
import functools
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.pool import NullPool

from service import operator_text
from service.errors import InputError, SchemaTooNewError
from service.store.json_text import serialise

if TYPE_CHECKING:
    from alembic.config import Config

logger = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
VERSIONS_DIR = MIGRATIONS_DIR / "versions"
VERSION_TABLE = "alembic_version"  # Alembic's default, which env.py keeps
# `revision = "0007"`, `down_revision = "0006"` (or None, or a tuple after a merge) at the
# start of a line of a revision file, as `alembic revision` writes them
_IDENTIFIER_LINE = re.compile(r"^(revision|down_revision)\s*(?::[^=\n]*)?=\s*(.+)$", re.MULTILINE)
# pg_advisory_xact_lock key of schema changes: b"verl" as a big-endian int
PG_SCHEMA_LOCK_KEY = 0x7665726C
# how long a process waits for another one's migration (a big upgrade may copy tables)
SCHEMA_LOCK_WAIT_SECONDS = 300


class SchemaUpgrade(NamedTuple):
    """The database's revisions before and after an upgrade (equal when nothing was due)."""

    before: frozenset[str]
    after: frozenset[str]


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's config without an ini file; env.py runs on `connection` when given."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    return config


def _down_revisions(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, tuple | list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ValueError(f"unexpected down_revision {value!r}")


def _read_revision(path: Path) -> tuple[str, tuple[str, ...]]:
    found = {
        name: ast.literal_eval(value.strip())
        for name, value in _IDENTIFIER_LINE.findall(path.read_text(encoding="utf-8"))
    }
    revision = found.get("revision")
    if not isinstance(revision, str) or "down_revision" not in found:
        raise ValueError(f"{path.name}: no revision / down_revision line")
    return revision, _down_revisions(found["down_revision"])


@functools.cache
def revision_graph() -> dict[str, tuple[str, ...]]:
    """Each revision this code ships, with the revisions it revises (the files Alembic runs)."""
    return dict(
        _read_revision(path)
        for path in sorted(VERSIONS_DIR.glob("*.py"))
        if path.name != "__init__.py"
    )


def code_heads() -> frozenset[str]:
    """The head revisions this code ships: those no other revision revises."""
    graph = revision_graph()
    revised = {down for downs in graph.values() for down in downs}
    return frozenset(graph) - revised


def known_revisions() -> frozenset[str]:
    """Every revision this code ships (a database at another one was migrated by a newer one)."""
    return frozenset(revision_graph())


def database_heads(connection: Connection) -> frozenset[str]:
    """The revisions the database is at; empty for a fresh (or pre-Alembic) database."""
    if not inspect(connection).has_table(VERSION_TABLE):
        return frozenset()
    rows = connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}"))  # noqa: S608
    return frozenset(row[0] for row in rows)


def _refuse_unknown(revisions: frozenset[str]) -> None:
    unknown = sorted(revisions - known_revisions())
    if unknown:
        heads = ", ".join(sorted(code_heads()))
        raise SchemaTooNewError(
            f"the database schema is at revision {unknown[0]}, newer than this verl-week "
            f"knows (its newest is {heads}): upgrade verl-week, or use another DATABASE_URL"
        )


def upgrade_schema(engine: Engine) -> SchemaUpgrade:
    """Bring the schema of `engine`'s database to the code's heads."""
    heads = code_heads()
    with engine.connect() as conn:
        current = database_heads(conn)
    _refuse_unknown(current)
    if current == heads:
        return SchemaUpgrade(current, current)
    with _schema_lock(engine) as conn:
        current = database_heads(conn)  # another process may have done it while we waited
        _refuse_unknown(current)
        if current != heads:
            # a fresh database is no news (every first CLI run makes one); an upgrade is
            level = logging.INFO if current else logging.DEBUG
            logger.log(
                level,
                "upgrading the database schema",
                extra={"from": ",".join(sorted(current)) or "none", "to": ",".join(sorted(heads))},
            )
            from alembic import command

            command.upgrade(alembic_config(conn), "heads")
        return SchemaUpgrade(current, database_heads(conn))


def downgrade_schema(engine: Engine, revision: str) -> SchemaUpgrade:
    """Take the schema back to `revision` (an older one this code ships), under the schema lock:
    run it with the newer release before going back to an older one (README: Backups and
    upgrades), as only the newer release knows how to undo its own migrations."""
    if revision not in known_revisions():
        known = ", ".join(sorted(known_revisions()))
        raise InputError(f"unknown schema revision {revision!r}: expected one of {known}")
    from alembic import command
    from alembic.util import CommandError

    with _schema_lock(engine) as conn:
        current = database_heads(conn)
        _refuse_unknown(current)
        logger.info(
            operator_text.LOG_SCHEMA_DOWNGRADE,
            extra={"from": ",".join(sorted(current)), "to": revision},
        )
        try:
            command.downgrade(alembic_config(conn), revision)
        except CommandError as exc:  # e.g. a revision newer than the database's
            raise InputError(f"cannot go back to revision {revision}: {exc}") from None
        return SchemaUpgrade(current, database_heads(conn))


@contextmanager
def _schema_lock(engine: Engine) -> Iterator[Connection]:
    """A connection inside a transaction that holds the schema lock until it commits."""
    if engine.dialect.name == "sqlite":
        exclusive = _sqlite_exclusive_engine(engine)
        try:
            with exclusive.begin() as conn:
                yield conn
        finally:
            exclusive.dispose()
        return
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text(f"SET LOCAL lock_timeout = '{SCHEMA_LOCK_WAIT_SECONDS}s'"))
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_SCHEMA_LOCK_KEY})
        yield conn


def _sqlite_exclusive_engine(engine: Engine) -> Engine:
    """A one-connection engine on the same file whose transactions begin EXCLUSIVE.

    pysqlite begins transactions itself (and never before DDL); with its isolation level off,
    the BEGIN below is the only one, so the whole upgrade is one locked transaction."""
    exclusive = create_engine(
        engine.url,
        poolclass=NullPool,
        connect_args={"check_same_thread": False, "timeout": SCHEMA_LOCK_WAIT_SECONDS},
        json_serializer=serialise,
    )

    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None

    def on_begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN EXCLUSIVE")

    event.listen(exclusive, "connect", on_connect)
    event.listen(exclusive, "begin", on_begin)
    return exclusive
