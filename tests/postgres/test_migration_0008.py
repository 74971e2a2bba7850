"""Migration 0008 (periods instead of weeks) on SQLite and PostgreSQL: a database at 0007 with a
row in every table upgrades with every row as it was, each stored week now of kind `week`; the
store then keeps a month and a range beside the weeks (labels longer than the old 10
characters); the way back refuses, on one line, while months or ranges are stored, and goes
once they are gone."""

from __future__ import annotations

import pytest
from sqlalchemy import delete, inspect, select

from service.core.digest import build_digest
from service.core.periods import period_of_label
from service.core.profile import load_profile
from service.errors import InputError
from service.pipeline.recorded import within
from service.store import tables
from service.store.repository import Store
from service.store.schema import downgrade_schema
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

RANGE = "2026-01-12..2026-01-25"
TZ = "Asia/Shanghai"


def _kinds(store: Store, table: tables.Table) -> dict[str, str]:
    with store.engine.connect() as conn:
        rows = conn.execute(select(table.c.period, table.c.period_kind))
        return {row[0]: row[1] for row in rows}


def test_an_upgrade_from_0007_keeps_every_week(database_url: str) -> None:
    store = Store.open(database_url)
    fill_every_table(store)
    store.service_key("report-links", lambda: "a-key-the-service-made")
    assert store.identify_repo(775_123_456, NEW, False, asked=OLD) == [OLD]
    store.announce_moves(NEW, period(WEEK), [OLD])
    to_revision(store, "0007", up=False)
    before = snapshot(store.engine)
    assert all(before.values()), [name for name, rows in before.items() if not rows]
    store.engine.dispose()

    upgraded = Store.open(database_url)
    assert schema_differences(upgraded) == []
    after = snapshot(upgraded.engine)
    assert {name: len(rows) for name, rows in after.items()} == {
        name: len(rows) for name, rows in before.items()
    }
    for name in ("digests", "deliveries", "runs"):
        width = len(before[name][0])  # the new columns come after the old ones, as they were
        assert sorted((r[:width] for r in after[name]), key=repr) == before[name], name
        assert {r[width] for r in after[name]} == {"week"}, name  # period_kind, then later ones
    for name in set(before) - {"digests", "deliveries", "runs"}:
        width = len(before[name][0])  # later revisions' columns (0010's cadence) go last
        assert [r[:width] for r in after[name]] == before[name], name
    assert upgraded.get_digest(NEW, period(WEEK), "zh") is not None
    assert upgraded.list_periods(NEW) == [WEEK]
    assert upgraded.last_run(OLD, done_only=True, kind="week") is not None
    assert upgraded.moves_to_announce(NEW, period(WEEK)) == [
        OLD
    ]  # announced by that week, as before


def test_months_and_ranges_are_stored_beside_weeks_and_the_way_back_refuses_them(
    database_url: str,
) -> None:
    store = Store.open(database_url)
    fill_every_table(store)
    w03, w04 = load_week("2026-W03"), load_week("2026-W04")
    month = within(w04, period_of_label("2026-01", TZ))
    digest = build_digest(month, load_profile(OLD), language="zh", now=NOW)
    store.save_digest(digest)
    joined = w04.model_copy(update={"prs": [*w03.prs, *w04.prs]})
    span = build_digest(
        within(joined, period_of_label(RANGE, TZ)), load_profile(OLD), language="zh", now=NOW
    )
    store.save_digest(span)
    store.record_intent(OLD, period(RANGE), "slack:C1", "key-range")
    run = store.start_run(OLD, period("2026-01"), "schedule")
    store.finish_run(run, "ok", {})

    assert _kinds(store, tables.digests) == {WEEK: "week", "2026-01": "month", RANGE: "range"}
    assert _kinds(store, tables.deliveries)[RANGE] == "range"
    stored = store.get_digest(OLD, period(RANGE), "zh")
    assert stored is not None
    assert stored.stats.prs == len(w03.prs) + len(w04.prs)
    # weeks are listed apart from months and ranges: `latest` stays the newest week
    assert store.list_periods(OLD) == [WEEK]
    assert store.list_periods(OLD, kind="month") == ["2026-01"]
    latest = store.latest_digest(OLD, "zh")
    assert latest is not None
    assert latest.period == WEEK
    last_month = store.last_run(OLD, done_only=True, kind="month")
    assert last_month is not None
    assert last_month.period == "2026-01"
    week_run = store.last_run(OLD, done_only=True, kind="week")
    assert week_run is not None
    assert week_run.period == WEEK

    with pytest.raises(InputError) as refused:
        downgrade_schema(store.engine, "0007")
    message = refused.value.message
    assert "cannot go back below 0008" in message
    assert "digests: 2" in message
    assert "\n" not in message
    assert _kinds(store, tables.digests)["2026-01"] == "month"  # nothing was lost

    with store.engine.begin() as conn:
        for table in (tables.digests, tables.deliveries, tables.runs):
            conn.execute(delete(table).where(table.c.period_kind != "week"))
    downgrade_schema(store.engine, "0007")
    store.engine.dispose()
    back = Store.open(database_url, migrate=False)
    with back.engine.connect() as conn:
        columns = {c["name"]: c for c in inspect(conn).get_columns("digests")}
    assert "period_kind" not in columns
    assert getattr(columns["week"]["type"], "length", None) == 10
    to_revision(back, "heads", up=True)
    assert schema_differences(back) == []
    assert back.get_digest(OLD, period(WEEK), "zh") is not None
