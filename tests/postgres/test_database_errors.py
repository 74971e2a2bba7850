"""A database failure the code did not expect (here an operator's trigger that refuses new
digests) is one line naming the database's reason, from the Store and from the CLI, on SQLite
and PostgreSQL alike, never "internal error" or a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine

from service.core.digest import build_digest
from service.core.profile import load_profile
from service.errors import StoreError, StoreUnavailableError
from service.store.repository import Store
from tests.conftest import NOW, load_week
from tests.processes import run_cli

REASON = "digests are frozen by the operator"
SQLITE_TRIGGER = (
    f"CREATE TRIGGER frozen BEFORE INSERT ON digests BEGIN SELECT RAISE(ABORT, '{REASON}'); END"
)
PG_TRIGGER = (
    f"CREATE FUNCTION frozen() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION '{REASON}'; END $$ "
    "LANGUAGE plpgsql; "
    "CREATE TRIGGER frozen BEFORE INSERT ON digests FOR EACH ROW EXECUTE FUNCTION frozen()"
)


def freeze_digests(engine: Engine) -> None:
    statement = SQLITE_TRIGGER if engine.dialect.name == "sqlite" else PG_TRIGGER
    with engine.begin() as conn:
        conn.exec_driver_sql(statement)


def test_a_refused_write_is_a_store_error_naming_the_reason(database_url: str) -> None:
    store = Store.open(database_url)
    freeze_digests(store.engine)
    digest = build_digest(
        load_week("2026-W04"), load_profile("volcengine/verl"), language="en", now=NOW
    )
    with pytest.raises(StoreError) as info:
        store.save_digest(digest)
    assert not isinstance(info.value, StoreUnavailableError)
    assert info.value.message == f"database error: {REASON}"


@pytest.mark.process
def test_the_cli_says_the_database_reason_in_one_line(database_url: str, tmp_path: Path) -> None:
    freeze_digests(Store.open(database_url).engine)
    result = run_cli(["digest", "--sample"], tmp_path, DATABASE_URL=database_url)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [f"verl-week: error: database error: {REASON}"]
    assert result.stdout == ""
