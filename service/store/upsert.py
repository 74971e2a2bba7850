"""INSERT … ON CONFLICT DO UPDATE for SQLite and PostgreSQL: one statement, so two processes
writing the same row at once both succeed (an update-then-insert pair races to a unique
violation) and the last write wins."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Table


def upsert(
    conn: Connection, table: Table, keys: Sequence[str], rows: Sequence[dict[str, Any]]
) -> None:
    """Insert `rows` into `table`; a row whose `keys` already exist gets the other columns."""
    if not rows:
        return
    changed = [name for name in rows[0] if name not in keys]
    # each dialect's module imported when its database is used (PostgreSQL's takes ~40 ms)
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects import postgresql

        pg = postgresql.insert(table)
        set_pg = {name: pg.excluded[name] for name in changed}
        conn.execute(pg.on_conflict_do_update(index_elements=list(keys), set_=set_pg), rows)
        return
    from sqlalchemy.dialects import sqlite

    lite = sqlite.insert(table)
    set_lite = {name: lite.excluded[name] for name in changed}
    conn.execute(lite.on_conflict_do_update(index_elements=list(keys), set_=set_lite), rows)
