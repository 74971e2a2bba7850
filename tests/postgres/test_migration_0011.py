"""Migration 0011 (cadences of subscriptions) on SQLite and PostgreSQL: a database at 0010 with a
row in every table upgrades with every row as it was, each stored subscription now weekly; a
channel then holds a scope's weekly and monthly subscriptions side by side; the way back refuses,
on one line, while monthly subscriptions are stored, and goes once they are gone."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect

from service.errors import InputError
from service.store.repository import Store
from service.store.schema import downgrade_schema
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

FAMILY = "verl-project"


def test_an_upgrade_from_0010_keeps_every_subscription_weekly(database_url: str) -> None:
    store = Store.open(database_url)
    fill_every_table(store)
    store.service_key("report-links", lambda: "a-key-the-service-made")
    assert store.identify_repo(775_123_456, NEW, False, asked=OLD) == [OLD]
    store.announce_moves(NEW, period(WEEK), [OLD])
    to_revision(store, "0010", up=False)
    before = snapshot(store.engine)
    assert all(before.values()), [name for name, rows in before.items() if not rows]
    store.engine.dispose()

    upgraded = Store.open(database_url)
    assert schema_differences(upgraded) == []
    after = snapshot(upgraded.engine)
    width = len(before["subscriptions"][0])  # the new column goes last
    assert [r[:width] for r in after["subscriptions"]] == before["subscriptions"]
    assert {r[-1] for r in after["subscriptions"]} == {"weekly"}
    for name in set(before) - {"subscriptions"}:
        assert after[name] == before[name], name
    [sub] = upgraded.subscription_records(NEW)  # carried to the new name by the move
    assert (sub.channel, sub.filter, sub.language, sub.cadence) == (
        "oc_a",
        "module:trainer",
        "en",
        "weekly",
    )
    upgraded.engine.dispose()


def test_monthly_subscriptions_sit_beside_weekly_ones_and_the_way_back_refuses_them(
    database_url: str,
) -> None:
    store = Store.open(database_url)
    assert store.subscribe("slack", "C1", FAMILY, "U1")
    assert store.subscribe("slack", "C1", FAMILY, "U1", cadence="monthly", language="en")
    assert not store.subscribe("slack", "C1", FAMILY, "U1", cadence="monthly")
    found = {(s.repo, s.cadence, s.language) for s in store.channel_subscriptions("slack", "C1")}
    assert found == {(FAMILY, "weekly", None), (FAMILY, "monthly", "en")}

    with pytest.raises(InputError) as refused:
        downgrade_schema(store.engine, "0010")
    message = refused.value.message
    assert "cannot go back below 0011" in message
    assert "subscriptions: 1" in message
    assert "\n" not in message
    assert len(store.subscription_records(FAMILY)) == 2  # nothing was lost

    assert store.unsubscribe("slack", "C1", FAMILY, cadence="monthly") == 1
    downgrade_schema(store.engine, "0010")
    store.engine.dispose()
    back = Store.open(database_url, migrate=False)
    with back.engine.connect() as conn:
        columns = {c["name"] for c in inspect(conn).get_columns("subscriptions")}
    assert "cadence" not in columns
    to_revision(back, "heads", up=True)
    assert schema_differences(back) == []
    assert [s.cadence for s in back.subscription_records(FAMILY)] == ["weekly"]
    back.engine.dispose()
