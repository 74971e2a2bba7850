"""Alembic's entry: runs the revisions on the connection `service.store.schema` hands over
(already inside its locked transaction), or, for a developer's `alembic -x url=…`, on that URL."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from service.store.tables import metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters by table copy
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def _developer_url() -> str:
    url = context.get_x_argument(as_dictionary=True).get("url")
    if not url:
        raise SystemExit("alembic: pass the database as -x url=sqlite:///path/to/verl-week.db")
    return url


def main() -> None:
    if context.is_offline_mode():
        context.configure(url=_developer_url(), target_metadata=metadata, literal_binds=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    with create_engine(_developer_url()).begin() as own:
        _run(own)


main()
