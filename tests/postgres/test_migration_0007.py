"""Migration 0007 (repositories keyed by GitHub's id, aliases, service keys) on SQLite and
PostgreSQL: a database at 0005 with a row in every table upgrades with every row as it was,
the schema then matches the code, the store carries that history through a move, and the way
back (downgrade to 0005) keeps the rows too."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from alembic import command
from sqlalchemy import Engine, MetaData, Table, insert, inspect, select

from service.core.digest import build_digest
from service.core.profile import load_profile
from service.store import tables
from service.store.repository import PROCESS_OWNER, Store, StoredAnswer
from service.store.schema import alembic_config
from tests.conftest import NOW, load_week
from tests.periods import period
from tests.postgres.test_schema_backends import schema_differences

OLD, NEW = "volcengine/verl", "verl-project/verl"
WEEK = "2026-W04"


def fill_every_table(store: Store) -> None:
    week = load_week(WEEK)
    digest = build_digest(week, load_profile(OLD), language="zh", now=NOW)
    store.save_prs(OLD, WEEK, week.prs)
    store.save_digest(digest, inputs="f" * 64)
    store.cache_put("https://api.github.com/repos/volcengine/verl", '"etag"', '{"data": {}}')
    delivery = store.record_intent(OLD, period(WEEK), "slack:C1", "key-1")
    store.record_sent(delivery.id, "C1:1700000000.000100")
    store.subscribe("feishu", "oc_a", OLD, "ou_admin", filter_text="module:trainer", language="en")
    assert store.acquire_lock("week:volcengine/verl:2026-W04", PROCESS_OWNER, timedelta(hours=1))
    run = store.start_run(OLD, period(WEEK), "schedule")
    store.finish_run(run, "ok", {"prs": len(week.prs)})
    store.remember_event("Ev01", "slack")
    store.save_repo_privacy(OLD, False)
    store.save_model_answer("a" * 64, "m", "v1", "zh", StoredAnswer("{}", 10, 2))
    with store.engine.begin() as conn:
        conn.execute(
            insert(tables.scheduler_jobs).values(id="weekly", next_run_time=1.0, job_state=b"x")
        )


def snapshot(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table at this revision, in the columns this revision has."""
    found: dict[str, list[tuple[Any, ...]]] = {}
    with engine.connect() as conn:
        for name in inspect(conn).get_table_names():
            if name == "alembic_version":
                continue
            table = Table(name, MetaData(), autoload_with=conn)
            found[name] = sorted(map(tuple, conn.execute(select(table))), key=repr)
    return found


def to_revision(store: Store, revision: str, *, up: bool) -> None:
    with store.engine.begin() as conn:
        move = command.upgrade if up else command.downgrade
        move(alembic_config(conn), revision)


def test_an_upgrade_from_0005_keeps_every_row(database_url: str) -> None:
    store = Store.open(database_url)
    fill_every_table(store)
    to_revision(store, "0005", up=False)
    before = snapshot(store.engine)
    assert all(before.values()), [name for name, rows in before.items() if not rows]
    store.engine.dispose()

    upgraded = Store.open(database_url)
    assert schema_differences(upgraded) == []
    after = snapshot(upgraded.engine)
    for name, rows in before.items():
        width = len(rows[0])  # a new column goes last: the old ones are as they were
        assert sorted((r[:width] for r in after[name]), key=repr) == rows, name
    assert after["repositories"][0][-1] is None  # GitHub's id: learnt on the next collection

    # the history it kept moves whole when GitHub says the repository has a new name
    assert upgraded.identify_repo(775_123_456, NEW, False, asked=OLD) == [OLD]
    assert upgraded.get_digest(NEW, period(WEEK), "zh") is not None
    assert upgraded.get_delivery(NEW, period(WEEK), "slack:C1") is not None
    assert [s.repo for s in upgraded.subscription_records()] == [NEW]
    assert upgraded.last_run(NEW) is not None
    assert len(upgraded.load_prs(NEW, WEEK)) == len(load_week(WEEK).prs)
    assert upgraded.canonical_repo(OLD) == NEW

    to_revision(upgraded, "0005", up=False)  # the way back keeps the rows as well
    back = snapshot(upgraded.engine)
    assert {name: len(rows) for name, rows in back.items()} == {
        name: len(rows) for name, rows in before.items()
    }
    to_revision(upgraded, "heads", up=True)
    assert schema_differences(upgraded) == []
