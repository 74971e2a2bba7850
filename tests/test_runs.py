"""Retries, leases and the owed-week view on a real SQLite store and a real APScheduler: the
backoff's shape, a lease that runs out, a scheduler that retries a failing week until it is
done, and /healthz and /metrics telling it (the processes themselves: tests/faults)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from service.core.models import CollectedPeriod, Period
from service.errors import StoreUnavailableError, UnreachableError
from service.observe.metrics import Metrics
from service.pipeline import jobs
from service.pipeline.runs import HIDDEN_REPO, Heartbeat, RetryPolicy, RunWatch, observe_runs
from service.runtime.scheduler import build_scheduler, cron_trigger
from service.runtime.web import check_health
from service.store import tables
from service.store.repository import PROCESS_OWNER, Store
from tests.conftest import load_week
from tests.e2e.test_database import write_locked
from tests.periods import period
from tests.test_scheduler import AFTER_W04_TICK, REPO, SCHEDULE, TZ, make_pipeline
from tests.waiting import wait_for

WAIT = 20.0


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path}/verl-week.db"


@pytest.fixture
def store(db_url: str) -> Store:
    return Store.open(db_url)


def watch(store: Store) -> RunWatch:
    trigger = cron_trigger(SCHEDULE, TZ)
    return RunWatch(store, repos=[REPO], timezone=TZ, trigger=trigger, clock=lambda: AFTER_W04_TICK)


def test_retries_start_within_a_minute_double_and_stop_at_an_hour() -> None:
    policy = RetryPolicy()
    delays = [policy.delay(n).total_seconds() for n in range(1, 12)]
    assert delays[0] <= 60
    assert delays[:8] == [30, 60, 120, 240, 480, 960, 1920, 3600]
    assert set(delays[7:]) == {3600}
    assert policy.delay(10_000) == timedelta(hours=1)


def test_a_run_is_abandoned_when_its_lease_runs_out_not_before(store: Store) -> None:
    lease = timedelta(seconds=0.3)
    run_id = store.start_run(REPO, period("2026-W04"), "schedule", lease=lease)
    assert store.abandon_runs() == 0
    assert store.renew_lease(run_id, PROCESS_OWNER, lease) is True
    last = store.last_run(REPO)
    assert last is not None
    assert last.state(datetime.now(UTC)) == "running"
    assert last.state(datetime.now(UTC) + timedelta(seconds=1)) == "abandoned"
    wait_for(lambda: store.abandon_runs() == 1, WAIT, "lease ran out")
    assert store.last_run(REPO).outcome == "abandoned"  # type: ignore[union-attr]


def test_a_run_whose_finish_the_database_refused_is_abandoned_at_once(
    store: Store, tmp_path: Path
) -> None:
    # the worker ran, failed and could not record it (the database refused the write): the row
    # still says running, with four minutes of lease left, and nobody works on it any more
    run_id = store.start_run(REPO, period("2026-W04"), "schedule", lease=timedelta(minutes=5))
    with write_locked(tmp_path / "verl-week.db"), pytest.raises(StoreUnavailableError):
        store.finish_run(run_id, "failed", {"error": "the database went away"})
    last = store.last_run(REPO)
    assert last is not None
    assert last.outcome == "running"
    assert last.state(datetime.now(UTC)) == "abandoned"
    health = check_health(store, None)
    assert health.last_run_outcome == "abandoned"  # not "running" until the lease runs out
    assert store.abandon_runs() == 1
    assert store.last_run(REPO).outcome == "abandoned"  # type: ignore[union-attr]


def test_a_heartbeat_keeps_the_lease_and_the_lock(store: Store) -> None:
    lease = timedelta(seconds=0.3)
    assert store.acquire_lock("week:x", PROCESS_OWNER, lease)
    run_id = store.start_run(REPO, period("2026-W04"), "schedule", lease=lease)
    beats = threading.Semaphore(0)

    def renew() -> None:
        store.renew_lease(run_id, PROCESS_OWNER, lease, ["week:x"])
        beats.release()

    with Heartbeat(renew, lease, "test"):
        for _ in range(6):  # two leases' worth of beats
            assert beats.acquire(timeout=WAIT)
        assert store.abandon_runs() == 0
        assert not store.acquire_lock("week:x", "host:1:other", lease)
    store.release_lock("week:x", PROCESS_OWNER)


def test_shutdown_interrupts_only_its_own_runs(store: Store) -> None:
    store.start_run(REPO, period("2026-W04"), "schedule", owner="elsewhere:1:abc")
    store.start_run(REPO, period("2026-W04"), "schedule")
    assert store.interrupt_running(PROCESS_OWNER) == 1
    assert store.last_run(REPO).outcome == "interrupted"  # type: ignore[union-attr]


class FailingThenRecorded:
    """The far side of GitHub: unreachable for the first `failures` weeks asked, then the
    real recorded week."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    def __call__(self, repo: str, window: Period) -> CollectedPeriod:
        self.calls += 1
        if self.calls <= self.failures:
            raise UnreachableError("cannot reach GitHub at api.github.test (ConnectionError)")
        return load_week(window.label)


def test_a_failing_week_is_retried_with_backoff_until_it_is_done(db_url: str, store: Store) -> None:
    collector = FailingThenRecorded(failures=3)
    pipeline = make_pipeline(store, AFTER_W04_TICK)
    pipeline.collect = collector
    metrics = Metrics()
    view = watch(store)
    metrics.before_scrape.append(lambda: observe_runs(metrics, view))
    retries = RetryPolicy(first=timedelta(seconds=0.05), cap=timedelta(seconds=0.4))
    scheduler = build_scheduler(
        run_job=lambda: jobs.run_scheduled(pipeline),
        catch_up_job=lambda: jobs.run_scheduled(pipeline, trigger="catch-up"),
        retry_job=lambda: jobs.run_scheduled(pipeline, trigger="retry"),
        database_url=db_url,
        schedule=SCHEDULE,
        timezone=TZ,
        store=store,
        repos=[REPO],
        clock=lambda: AFTER_W04_TICK,
        retry=retries,
        lease=timedelta(seconds=2),
    )
    scheduler.start()
    try:
        scheduler.join_catch_up(WAIT)
        health = check_health(store, scheduler.alive, view)
        assert health.status == "degraded"
        assert health.reasons == (
            f"last run of {HIDDEN_REPO} 2026-W04 failed: cannot reach GitHub at "
            "api.github.test (ConnectionError)",
        )
        assert b'verl_week_digests_owed{repo="volcengine/verl"} 1.0' in metrics.exposition()
        wait_for(lambda: scheduler.owed() is None, WAIT, "the week is done")
        wait_for(lambda: scheduler.cadences[0].failures == 0, WAIT, "the failures are forgotten")
    finally:
        scheduler.shutdown(wait=True, timeout=WAIT)
    assert collector.calls == 4
    triggers = [r.trigger for r in runs(store)]
    assert triggers == ["catch-up", "retry", "retry", "retry"]
    assert [r.outcome for r in runs(store)] == ["failed", "failed", "failed", "ok"]
    health = check_health(store, None, view)
    assert (health.status, health.reasons) == ("ok", ())
    body = metrics.exposition().decode()
    assert 'verl_week_digests_owed{repo="volcengine/verl"} 0.0' in body
    assert 'verl_week_last_success_timestamp_seconds{repo="volcengine/verl"}' in body
    assert 'verl_week_last_attempt_timestamp_seconds{repo="volcengine/verl"}' in body


def runs(store: Store) -> list[Any]:
    """Every run row, oldest first."""
    with store.engine.connect() as conn:
        return list(conn.execute(select(tables.runs).order_by(tables.runs.c.id)))


def test_a_week_owed_and_not_running_makes_healthz_degraded(store: Store) -> None:
    view = watch(store)
    health = check_health(store, None, view)
    assert health.healthy
    assert health.status == "degraded"
    assert health.as_json()["reasons"] == [f"{HIDDEN_REPO} 2026-W04 is owed: not posted yet"]
    store.save_repo_privacy(REPO, private=False)  # GitHub said it is public: named
    assert check_health(store, None, view).reasons == (f"{REPO} 2026-W04 is owed: not posted yet",)
    store.save_repo_privacy(REPO, private=True)
    assert REPO not in check_health(store, None, view).reasons[0]
    run_id = store.start_run(REPO, period("2026-W04"), "schedule", lease=timedelta(minutes=5))
    assert check_health(store, None, view).status == "ok"  # a live run is on it
    store.finish_run(run_id, "ok", {})
    assert check_health(store, None, view).as_json()["status"] == "ok"
