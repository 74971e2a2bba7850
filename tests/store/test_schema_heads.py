"""The start-up schema check reads the revision graph and the database's revisions without
Alembic: it must agree with Alembic's own reading of the same files and tables."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic import command
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, text

from service.errors import SchemaTooNewError
from service.store.repository import Store
from service.store.schema import (
    alembic_config,
    code_heads,
    database_heads,
    known_revisions,
    revision_graph,
)


def test_the_revision_graph_is_alembics() -> None:
    script = ScriptDirectory.from_config(alembic_config())
    assert code_heads() == frozenset(script.get_heads())
    assert known_revisions() == {r.revision for r in script.walk_revisions()}
    for revision in script.walk_revisions():
        assert revision_graph()[revision.revision] == revision._normalized_down_revisions


@pytest.mark.parametrize("revision", [None, "0001", "0004", "heads"])
def test_database_heads_reads_what_alembic_reads(tmp_path: Path, revision: str | None) -> None:
    engine = create_engine(f"sqlite:///{tmp_path}/db.sqlite")
    with engine.begin() as conn:
        if revision is not None:
            command.upgrade(alembic_config(conn), revision)
        ours = database_heads(conn)
        assert ours == frozenset(MigrationContext.configure(conn).get_current_heads())
    expected = {None: frozenset(), "heads": code_heads()}.get(revision, frozenset({revision}))
    assert ours == expected
    engine.dispose()


def test_a_database_at_an_older_revision_is_upgraded_on_open(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/db.sqlite"
    engine = create_engine(url)
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), "0005")
    engine.dispose()
    upgraded = Store.open(url, migrate=False).migrate()
    assert (upgraded.before, upgraded.after) == (frozenset({"0005"}), code_heads())


def test_a_revision_this_code_does_not_ship_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/db.sqlite"
    Store.open(url).engine.dispose()
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '0999'"))
    engine.dispose()
    with pytest.raises(SchemaTooNewError, match="revision 0999, newer than this verl-week"):
        Store.open(url)
