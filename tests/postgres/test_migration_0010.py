"""Migration 0010 (one name for the period) on SQLite and PostgreSQL: a database at 0009 with a
row in every table, a month among them, upgrades with every row as it was, the `week` columns
of digests, deliveries and runs now named `period` (and `announced_week` `announced_period`),
their unique keys held on the renamed columns; the way back names them `week` again, rows
kept."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect
from sqlalchemy.exc import IntegrityError

from service.core.digest import build_digest
from service.core.periods import period_of_label
from service.core.profile import load_profile
from service.pipeline.recorded import within
from service.store.repository import Store
from tests.conftest import NOW, load_week
from tests.periods import period
from tests.postgres.test_migration_0007 import (
    NEW,
    OLD,
    WEEK,
    fill_every_table,
    snapshot,
    to_revision,
)
from tests.postgres.test_schema_backends import schema_differences

TZ = "Asia/Shanghai"
RENAMED = {"digests": "period", "deliveries": "period", "runs": "period"}


def _columns(store: Store, table: str) -> list[str]:
    with store.engine.connect() as conn:
        return [c["name"] for c in inspect(conn).get_columns(table)]


def _trimmed(
    rows: dict[str, list[tuple[object, ...]]], width_of: dict[str, list[tuple[object, ...]]]
) -> dict[str, list[tuple[object, ...]]]:
    """`rows` cut to the columns `width_of` has per table: later revisions (0011's
    `subscriptions.cadence`) add columns after the ones this revision knows."""
    return {
        name: [r[: len(width_of[name][0])] if width_of.get(name) else r for r in found]
        for name, found in rows.items()
    }


def _filled(database_url: str) -> Store:
    store = Store.open(database_url)
    fill_every_table(store)
    month = within(load_week("2026-W04"), period_of_label("2026-01", TZ))
    store.save_digest(build_digest(month, load_profile(OLD), language="zh", now=NOW))
    store.service_key("report-links", lambda: "a-key-the-service-made")
    assert store.identify_repo(775_123_456, NEW, False, asked=OLD) == [OLD]  # moves every row
    store.announce_moves(NEW, period(WEEK), [OLD])
    return store


def test_an_upgrade_from_0009_keeps_every_row_under_the_new_names(database_url: str) -> None:
    store = _filled(database_url)
    to_revision(store, "0009", up=False)
    for table in RENAMED:
        assert "week" in _columns(store, table)
    before = snapshot(store.engine)
    assert all(before.values()), [name for name, rows in before.items() if not rows]
    store.engine.dispose()

    upgraded = Store.open(database_url)
    assert schema_differences(upgraded) == []
    # every row, every value, in the same columns
    assert _trimmed(snapshot(upgraded.engine), before) == before
    for table, column in RENAMED.items():
        names = _columns(upgraded, table)
        assert column in names, table
        assert "week" not in names, table
    assert "announced_period" in _columns(upgraded, "repository_aliases")
    assert "week" in _columns(upgraded, "pr_snapshots")  # the ISO week a PR was merged in
    assert upgraded.list_periods(NEW) == [WEEK]
    assert upgraded.list_periods(NEW, kind="month") == ["2026-01"]
    assert upgraded.get_digest(NEW, period("2026-01"), "zh") is not None
    assert upgraded.moves_to_announce(NEW, period(WEEK)) == [OLD]
    # the unique key holds on the renamed column
    with pytest.raises(IntegrityError), upgraded.engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO digests (repo, period, period_kind, language, schema_version, data, "
            "generated_at, complete, missing) SELECT repo, period, period_kind, language, "
            "schema_version, data, generated_at, complete, missing FROM digests"
        )


def test_the_way_back_names_them_week_again(database_url: str) -> None:
    store = _filled(database_url)
    before = snapshot(store.engine)
    to_revision(store, "0009", up=False)
    at_0009 = snapshot(store.engine)
    assert _trimmed(before, at_0009) == at_0009
    for table in RENAMED:
        assert "week" in _columns(store, table)
    to_revision(store, "heads", up=True)
    assert schema_differences(store) == []
    assert store.get_digest(NEW, period(WEEK), "zh") is not None
