"""Schema management: the Alembic revisions in `migrations/`, run under a lock every process
takes, so that web replicas, the scheduler and a migration Job starting together on one fresh
database upgrade it exactly once.

The lock is a PostgreSQL advisory lock held for the migrating transaction, and on SQLite the
migrating transaction itself (BEGIN EXCLUSIVE). A process that finds the schema already at the
code's heads takes no lock at all. A database whose revision this code does not know (a newer
verl-week migrated it) is refused in one line rather than used.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.pool import NullPool

from service import operator_text
from service.errors import InputError, SchemaTooNewError

logger = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
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
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    return config


def code_heads() -> frozenset[str]:
    """The head revisions this code ships."""
    return frozenset(ScriptDirectory.from_config(alembic_config()).get_heads())


def known_revisions() -> frozenset[str]:
    """Every revision this code ships (a database at another one was migrated by a newer one)."""
    script = ScriptDirectory.from_config(alembic_config())
    return frozenset(r.revision for r in script.walk_revisions())


def database_heads(connection: Connection) -> frozenset[str]:
    """The revisions the database is at; empty for a fresh (or pre-Alembic) database."""
    return frozenset(MigrationContext.configure(connection).get_current_heads())


def _refuse_unknown(revisions: frozenset[str]) -> None:
    script = ScriptDirectory.from_config(alembic_config())
    for revision in sorted(revisions):
        try:
            script.get_revision(revision)
        except CommandError:
            heads = ", ".join(sorted(code_heads()))
            raise SchemaTooNewError(
                f"the database schema is at revision {revision}, newer than this verl-week "
                f"knows (its newest is {heads}): upgrade verl-week, or use another DATABASE_URL"
            ) from None


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
            command.upgrade(alembic_config(conn), "heads")
        return SchemaUpgrade(current, database_heads(conn))


def downgrade_schema(engine: Engine, revision: str) -> SchemaUpgrade:
    """Take the schema back to `revision` (an older one this code ships), under the schema lock:
    run it with the newer release before going back to an older one (README: Backups and
    upgrades), as only the newer release knows how to undo its own migrations."""
    if revision not in known_revisions():
        known = ", ".join(sorted(known_revisions()))
        raise InputError(f"unknown schema revision {revision!r}: expected one of {known}")
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
    )

    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None

    def on_begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN EXCLUSIVE")

    event.listen(exclusive, "connect", on_connect)
    event.listen(exclusive, "begin", on_begin)
    return exclusive
