"""The scheduler with its job store and locks on SQLite and PostgreSQL alike."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from apscheduler.triggers.date import DateTrigger
from sqlalchemy import text

from service.runtime.scheduler import JOBS_TABLE, Scheduler
from service.store.repository import Store
from tests.periods import period
from tests.test_scheduler import (
    AFTER_W04_TICK,
    REPO,
    WAIT,
    CountingJob,
    make_pipeline,
    make_scheduler,
    record_done,
)


def test_job_is_stored_and_fires_on_a_near_future_trigger(database_url: str) -> None:
    store = Store.open(database_url)
    job = CountingJob(make_pipeline(store, AFTER_W04_TICK))
    soon = datetime.now(UTC) + timedelta(seconds=0.5)
    scheduler = make_scheduler(database_url, job, trigger=DateTrigger(run_date=soon))
    scheduler.start(catch_up=False)
    try:
        with store.engine.connect() as conn:
            ids = [row[0] for row in conn.execute(text(f"SELECT id FROM {JOBS_TABLE}"))]  # noqa: S608
        assert ids == ["weekly-digest"]
        assert job.called.wait(WAIT)
        assert scheduler.wait_idle(WAIT)
    finally:
        scheduler.shutdown()
    assert job.calls == 1
    last = store.last_run(REPO, done_only=True)
    assert last is not None
    assert last.period == "2026-W04"


def test_two_schedulers_on_one_database_catch_up_once(database_url: str) -> None:
    store = Store.open(database_url)
    record_done(store, "2025-W48")
    job = CountingJob(make_pipeline(store, AFTER_W04_TICK), hold=0.5)
    schedulers = [make_scheduler(database_url, job, job_id=f"weekly-{i}") for i in range(2)]
    barrier = threading.Barrier(len(schedulers))
    results: list[bool] = []

    def catch_up(scheduler: Scheduler) -> None:
        barrier.wait()
        results.append(scheduler.catch_up())

    threads = [threading.Thread(target=catch_up, args=(s,)) for s in schedulers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert sorted(results) == [False, True]
    assert job.calls == 1
    restarted = make_scheduler(database_url, job)
    restarted.start()
    try:
        restarted.join_catch_up(WAIT)
    finally:
        restarted.shutdown()
    assert job.calls == 1
    assert store.get_digest(REPO, period("2026-W04"), "zh") is not None
