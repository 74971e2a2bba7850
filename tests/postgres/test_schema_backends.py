"""Schema management on SQLite and PostgreSQL alike: the Alembic revisions make exactly the
tables the code declares, a database made by the pre-Alembic `create_all` is adopted with its
data, a database newer than the code is refused in one line, and `verl-week migrate` works."""

from __future__ import annotations

import subprocess

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, insert, inspect, text

from service.core.digest import build_digest
from service.core.profile import load_profile
from service.errors import SchemaTooNewError
from service.store import tables
from service.store.repository import Store
from service.store.schema import code_heads, database_heads
from tests.conftest import NOW, load_week
from tests.postgres import legacy_tables as legacy
from tests.processes import run_cli

REPO = "volcengine/verl"


def schema_differences(store: Store) -> list[object]:
    with store.engine.connect() as conn:
        return list(compare_metadata(MigrationContext.configure(conn), tables.metadata))


def table_names(store: Store) -> set[str]:
    return set(inspect(store.engine).get_table_names())


def cli_on(database_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, DATABASE_URL=database_url)


def test_a_fresh_database_gets_exactly_the_declared_tables(database_url: str) -> None:
    store = Store.open(database_url)
    assert schema_differences(store) == []
    assert table_names(store) == {*tables.metadata.tables, "alembic_version"}
    with store.engine.connect() as conn:
        assert database_heads(conn) == code_heads()


def test_a_database_made_by_create_all_is_adopted_with_its_data(database_url: str) -> None:
    digest = build_digest(load_week("2026-W04"), load_profile(REPO), language="zh", now=NOW)
    engine = create_engine(database_url)
    legacy.metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(insert(legacy.schema_version).values(id=1, version=1))
        conn.execute(
            insert(legacy.digests).values(
                repo=REPO,
                week=digest.period,
                language="zh",
                schema_version=digest.schema_version,
                data=digest.model_dump(mode="json"),
                generated_at=digest.generated_at,
                complete=True,
                missing=[],
            )
        )
        conn.execute(
            insert(legacy.deliveries).values(
                repo=REPO,
                week=digest.period,
                destination="slack:C1",
                status="sent",
                message_id="C1:1700000000.000100",
                idempotency_key="k",
                attempts=1,
                created_at=NOW,
                updated_at=NOW,
            )
        )
    engine.dispose()
    store = Store.open(database_url)
    assert store.get_digest(REPO, digest.window, "zh") == digest
    sent = store.get_delivery(REPO, digest.window, "slack:C1")
    assert sent is not None
    assert (sent.status, sent.message_id) == ("sent", "C1:1700000000.000100")
    assert "schema_version" not in table_names(store)
    assert schema_differences(store) == []
    with store.engine.connect() as conn:
        assert database_heads(conn) == code_heads()


@pytest.mark.process
def test_a_database_newer_than_the_code_is_refused_in_one_line(database_url: str) -> None:
    store = Store.open(database_url)
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = 'f00dcafe'"))
    store.engine.dispose()
    with pytest.raises(SchemaTooNewError) as info:
        Store.open(database_url)
    assert "f00dcafe" in info.value.message
    assert "newer" in info.value.message
    result = cli_on(database_url, "digest", "--sample")
    assert result.returncode == 1
    assert (
        result.stderr.strip()
        .splitlines()[-1]
        .startswith(
            "verl-week: error: the database schema is at revision f00dcafe, newer than this"
        )
    )
    assert "Traceback" not in result.stderr


@pytest.mark.process
def test_migrate_command_upgrades_once_then_says_up_to_date(database_url: str) -> None:
    first = cli_on(database_url, "migrate")
    assert first.returncode == 0, first.stderr
    head = ", ".join(sorted(code_heads()))
    assert first.stdout == f"database schema upgraded from empty to revision {head}\n"
    again = cli_on(database_url, "migrate")
    assert again.returncode == 0, again.stderr
    assert again.stdout == f"database schema at revision {head}: up to date\n"
    assert schema_differences(Store.open(database_url, migrate=False)) == []
