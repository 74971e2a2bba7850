"""The scheduler glue on a real APScheduler and a real SQLite database.

The weekly job is the real pipeline (service.pipeline.jobs.run_scheduled) over real recorded verl
weeks;
triggers seconds away stand in for the Monday cron, whose fire times are checked separately.
"""

from __future__ import annotations

import io
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import requests
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger
from sqlalchemy import text

from service.core.models import CollectedPeriod, Period
from service.core.profile import load_profile
from service.errors import InputError
from service.observe.logs import build_handler
from service.pipeline import jobs
from service.pipeline.runs import catch_up_due
from service.runtime.scheduler import (
    JOBS_TABLE,
    Cadence,
    Scheduler,
    _run_registered,
    build_scheduler,
    cron_trigger,
)
from service.runtime.web import build_web_app
from service.store.repository import Store
from tests.conftest import WEEKS, load_week
from tests.fakes.asgi import run_app
from tests.periods import period
from tests.waiting import wait_for

REPO = "volcengine/verl"
TZ = "Asia/Shanghai"
SHANGHAI = ZoneInfo(TZ)
SCHEDULE = "0 10 * * MON"
# Wednesday of 2026-W05 in Shanghai: `last` is 2026-W04, whose Monday-10:00 tick has passed.
AFTER_W04_TICK = datetime(2026, 1, 28, 9, 0, tzinfo=SHANGHAI)
WAIT = 10.0


def recorded_collector(repo: str, window: Period) -> CollectedPeriod:
    """The far side of GitHub for these tests: the real recorded weeks, nothing else."""
    if repo != REPO or not (WEEKS / f"{window.label}.json").exists():
        raise InputError(f"no recorded week {repo} {window.label}")
    return load_week(window.label)


class CountingJob:
    """The weekly job (the real pipeline), counting its calls and how many overlap."""

    def __init__(self, pipeline: jobs.Pipeline, hold: float = 0.0) -> None:
        self.pipeline = pipeline
        self.hold = hold
        self.calls = 0
        self.running = 0
        self.max_running = 0
        self.lock = threading.Lock()
        self.called = threading.Event()

    def __call__(self) -> list[jobs.RunResult]:
        with self.lock:
            self.calls += 1
            self.running += 1
            self.max_running = max(self.max_running, self.running)
        try:
            results = jobs.run_scheduled(self.pipeline)
            time.sleep(self.hold)  # a long job on purpose: the overlap and shutdown under test
            return results
        finally:
            with self.lock:
                self.running -= 1
            self.called.set()


def make_pipeline(store: Store, now: datetime) -> jobs.Pipeline:
    return jobs.Pipeline(
        store=store,
        collect=recorded_collector,
        profile_for=load_profile,
        repos=[REPO],
        language="zh",
        timezone=TZ,
        public_base_url="http://localhost:8080",
        clock=lambda: now,
    )


def make_scheduler(
    url: str,
    job: Callable[[], object],
    *,
    now: datetime = AFTER_W04_TICK,
    trigger: BaseTrigger | None = None,
    job_id: str = "weekly-digest",
) -> Scheduler:
    return build_scheduler(
        run_job=job,
        database_url=url,
        schedule=SCHEDULE,
        timezone=TZ,
        store=Store.open(url),  # one Store per scheduler, as two processes would have
        repos=[REPO],
        clock=lambda: now,
        trigger=trigger,
        job_id=job_id,
    )


def record_done(store: Store, week: str) -> None:
    run_id = store.start_run(REPO, period(week), "schedule")
    store.finish_run(run_id, "ok", {})


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path}/verl-week.db"


@pytest.fixture
def store(db_url: str) -> Store:
    return Store.open(db_url)


@pytest.fixture
def running() -> Iterator[list[Scheduler]]:
    """Schedulers a test starts; all shut down at the end."""
    started: list[Scheduler] = []
    yield started
    for scheduler in started:
        scheduler.shutdown(wait=True, timeout=WAIT)


# --- the cron and the catch-up decision (no APScheduler thread) ------------------------------


def test_digest_schedule_fires_monday_ten_in_shanghai() -> None:
    trigger = cron_trigger(SCHEDULE, TZ)
    wednesday = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
    fire = trigger.get_next_fire_time(None, wednesday)
    assert fire == datetime(2026, 12, 7, 10, 0, tzinfo=SHANGHAI)
    assert fire.astimezone(UTC) == datetime(2026, 12, 7, 2, 0, tzinfo=UTC)
    monday_early = datetime(2026, 12, 7, 1, 59, tzinfo=UTC)
    assert trigger.get_next_fire_time(None, monday_early) == fire
    after = trigger.get_next_fire_time(None, fire + timedelta(seconds=1))
    assert after == datetime(2026, 12, 14, 10, 0, tzinfo=SHANGHAI)


def test_catch_up_is_due_only_after_the_missed_tick() -> None:
    trigger = cron_trigger(SCHEDULE, TZ)
    due = catch_up_due(None, AFTER_W04_TICK, TZ, trigger)
    assert due is not None
    assert due.label == "2026-W04"
    assert catch_up_due("2025-W48", AFTER_W04_TICK, TZ, trigger) == due  # weeks of downtime: one
    assert catch_up_due("2026-W04", AFTER_W04_TICK, TZ, trigger) is None
    before_tick = datetime(2026, 1, 26, 9, 59, tzinfo=SHANGHAI)  # Monday of W05, before 10:00
    assert catch_up_due(None, before_tick, TZ, trigger) is None
    at_tick = datetime(2026, 1, 26, 10, 0, tzinfo=SHANGHAI)
    assert catch_up_due(None, at_tick, TZ, trigger) == due


# --- the scheduler thread ---------------------------------------------------------------------


def test_scheduler_fires_on_a_near_future_trigger_once(
    store: Store, db_url: str, running: list[Scheduler]
) -> None:
    job = CountingJob(make_pipeline(store, AFTER_W04_TICK))
    soon = datetime.now(UTC) + timedelta(seconds=0.5)
    scheduler = make_scheduler(db_url, job, trigger=DateTrigger(run_date=soon))
    scheduler.start(catch_up=False)
    running.append(scheduler)
    assert scheduler.alive()
    assert scheduler.next_run_time == soon
    assert job.called.wait(WAIT)
    assert scheduler.wait_idle(WAIT)
    assert scheduler.next_run_time is None  # the trigger has no fire time left
    scheduler.shutdown(wait=True, timeout=WAIT)  # and whatever was started has ended
    assert job.calls == 1
    last = store.last_run(REPO)
    assert last is not None
    assert (last.period, last.outcome) == ("2026-W04", "ok")
    assert store.get_digest(REPO, period("2026-W04"), "zh") is not None


def test_a_third_cadence_added_as_a_row_is_scheduled_and_run(
    db_url: str, running: list[Scheduler]
) -> None:
    ran: list[str] = []
    soon = datetime.now(UTC) + timedelta(seconds=0.5)

    def row(job_id: str, trigger: BaseTrigger, kind: str = "week") -> Cadence:
        return Cadence(job_id, trigger, lambda: ran.append(job_id), kind=kind, lock=job_id)

    table = [
        row("weekly-digest", cron_trigger(SCHEDULE, TZ)),
        row("monthly-digest", cron_trigger("0 10 1 * *", TZ), kind="month"),
        row("release-digest", DateTrigger(run_date=soon)),  # the new cadence: one more row
    ]
    scheduler = build_scheduler(
        cadences=table, database_url=db_url, timezone=TZ, store=Store.open(db_url), repos=[REPO]
    )
    assert [c.job_id for c in scheduler.cadences] == [r.job_id for r in table]
    scheduler.start(catch_up=False, paused=True)
    running.append(scheduler)
    stored = {job.id for job in scheduler.scheduler.get_jobs()}  # read from the job store
    assert stored == {"weekly-digest", "monthly-digest", "release-digest"}
    scheduler.resume()
    wait_for(lambda: ran == ["release-digest"], WAIT, "the third cadence's tick")
    assert scheduler.wait_idle(WAIT)
    assert scheduler.cadence("release-digest").catch_up_lock == "release-digest"
    _run_registered("monthly-digest")  # what APScheduler calls on the 1st: that row's job only
    assert ran == ["release-digest", "monthly-digest"]


HOLD, TICK = 0.6, 0.2


def test_one_run_per_tick_and_never_two_at_once(
    store: Store, db_url: str, running: list[Scheduler]
) -> None:
    job = CountingJob(make_pipeline(store, AFTER_W04_TICK), hold=HOLD)
    scheduler = make_scheduler(db_url, job, trigger=IntervalTrigger(seconds=TICK))
    started = time.monotonic()
    scheduler.start(catch_up=False)
    running.append(scheduler)
    # three runs of HOLD seconds on ticks every TICK: ticks came while each was running
    wait_for(lambda: job.calls >= 3, WAIT, "three runs")
    scheduler.shutdown(wait=True, timeout=WAIT)
    assert job.max_running == 1
    # the ticks that found the job still running were skipped, not queued behind it
    assert job.calls <= (time.monotonic() - started) / HOLD + 1


def test_missed_ticks_while_paused_coalesce_into_one_run(
    store: Store, db_url: str, running: list[Scheduler]
) -> None:
    job = CountingJob(make_pipeline(store, AFTER_W04_TICK))
    start = datetime.now(UTC)
    trigger = IntervalTrigger(seconds=0.2, start_date=start, end_date=start + timedelta(seconds=1))
    scheduler = make_scheduler(db_url, job, trigger=trigger)
    scheduler.start(catch_up=False, paused=True)
    running.append(scheduler)
    # the thing under test is wall-clock time: five fire times pass while paused, and the
    # trigger ends
    time.sleep(1.5)
    assert job.calls == 0
    scheduler.resume()
    assert job.called.wait(WAIT)
    assert scheduler.wait_idle(WAIT)
    assert scheduler.next_run_time is None  # the missed ticks were spent in that one run
    scheduler.shutdown(wait=True, timeout=WAIT)
    assert job.calls == 1


def test_the_job_lives_in_the_database_as_a_module_level_reference(
    store: Store, db_url: str, running: list[Scheduler]
) -> None:
    job = CountingJob(make_pipeline(store, AFTER_W04_TICK))
    for _ in range(2):  # a restart replaces the stored job instead of adding a second
        scheduler = make_scheduler(db_url, job)
        scheduler.start(catch_up=False)
        scheduler.shutdown()
    with store.engine.connect() as conn:
        rows = conn.execute(text(f"SELECT id FROM {JOBS_TABLE}")).all()  # noqa: S608
    assert [row[0] for row in rows] == ["weekly-digest"]
    restored = make_scheduler(db_url, job)
    restored.start(catch_up=False)
    running.append(restored)
    stored = restored.scheduler.get_job("weekly-digest")
    assert stored.func_ref == "service.runtime.scheduler:_run_registered"
    assert stored.next_run_time.weekday() == 0
    assert (stored.next_run_time.hour, stored.next_run_time.minute) == (10, 0)
    assert restored.next_run_time == stored.next_run_time


def test_a_job_without_a_runner_in_this_process_is_skipped() -> None:
    _run_registered("registered-by-another-process")  # logs a warning, raises nothing


# --- catch-up -----------------------------------------------------------------------------------


def test_catch_up_after_downtime_runs_the_missed_week_exactly_once(
    store: Store, db_url: str, running: list[Scheduler]
) -> None:
    record_done(store, "2025-W48")  # the last week done before weeks of downtime
    job = CountingJob(make_pipeline(store, AFTER_W04_TICK))
    first = make_scheduler(db_url, job)
    first.start()
    running.append(first)
    first.join_catch_up(WAIT)
    assert job.calls == 1
    last = store.last_run(REPO, done_only=True)
    assert last is not None
    assert last.period == "2026-W04"
    first.shutdown()
    again = make_scheduler(db_url, job)  # a restart the same day owes nothing
    again.start()
    running.append(again)
    again.join_catch_up(WAIT)
    assert job.calls == 1
    assert again.catch_up() is False


def test_no_catch_up_before_the_weeks_tick(
    store: Store, db_url: str, running: list[Scheduler]
) -> None:
    monday_morning = datetime(2026, 1, 26, 9, 0, tzinfo=SHANGHAI)
    job = CountingJob(make_pipeline(store, monday_morning))
    scheduler = make_scheduler(db_url, job, now=monday_morning)
    scheduler.start()
    running.append(scheduler)
    scheduler.join_catch_up(WAIT)
    assert job.calls == 0
    assert scheduler.owed() is None


def test_two_schedulers_starting_together_catch_up_once(
    db_url: str, store: Store, running: list[Scheduler]
) -> None:
    job = CountingJob(make_pipeline(store, AFTER_W04_TICK), hold=0.5)
    schedulers = [make_scheduler(db_url, job, job_id=f"weekly-{i}") for i in range(2)]
    results: list[bool] = []
    barrier = threading.Barrier(2)

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
    assert [d.period for d in [store.get_digest(REPO, period("2026-W04"), "zh")] if d] == [
        "2026-W04"
    ]


def test_two_scheduler_processes_started_in_turn_catch_up_once(
    db_url: str, store: Store, running: list[Scheduler]
) -> None:
    job = CountingJob(make_pipeline(store, AFTER_W04_TICK))
    for i in range(2):
        scheduler = make_scheduler(db_url, job, job_id=f"weekly-{i}")
        scheduler.start()
        running.append(scheduler)
        scheduler.join_catch_up(WAIT)
    assert job.calls == 1


# --- shutdown and health ------------------------------------------------------------------------


def test_shutdown_waits_for_in_flight_work(
    store: Store, db_url: str, running: list[Scheduler]
) -> None:
    job = CountingJob(make_pipeline(store, AFTER_W04_TICK), hold=0.8)
    soon = datetime.now(UTC) + timedelta(seconds=0.2)
    scheduler = make_scheduler(db_url, job, trigger=DateTrigger(run_date=soon))
    scheduler.start(catch_up=False)
    wait_for(lambda: job.running == 1, WAIT, "the job running")
    scheduler.shutdown(wait=True, timeout=WAIT)
    assert job.running == 0
    assert not scheduler.alive()
    last = store.last_run(REPO)
    assert last is not None
    assert last.outcome == "ok"


def test_shutdown_records_work_still_running_as_interrupted(store: Store, db_url: str) -> None:
    release = threading.Event()
    begun = threading.Event()

    def stuck_job() -> None:
        run_id = store.start_run(REPO, period("2026-W04"), "schedule")
        begun.set()
        release.wait(WAIT)
        store.finish_run(run_id, "ok", {})

    soon = datetime.now(UTC) + timedelta(seconds=0.2)
    scheduler = make_scheduler(db_url, stuck_job, trigger=DateTrigger(run_date=soon))
    scheduler.start(catch_up=False)
    assert begun.wait(WAIT)
    scheduler.shutdown(wait=True, timeout=0.3)
    last = store.last_run(REPO)
    assert last is not None
    assert last.outcome == "interrupted"
    release.set()


def test_healthz_follows_the_scheduler(store: Store, db_url: str) -> None:
    job = CountingJob(make_pipeline(store, AFTER_W04_TICK))
    scheduler = make_scheduler(db_url, job)
    scheduler.start(catch_up=False)
    app = build_web_app(
        store=store, scheduler_alive=scheduler.alive, on_shutdown=scheduler.shutdown
    )
    with run_app(app) as url:
        alive = requests.get(f"{url}/healthz", timeout=10)
        scheduler.shutdown()
        dead = requests.get(f"{url}/healthz", timeout=10)
    assert (alive.status_code, alive.json()["scheduler"]) == (200, "alive")
    assert (dead.status_code, dead.json()["scheduler"]) == (503, "dead")


def test_each_run_logs_one_line_with_counts_and_duration(
    store: Store, db_url: str, running: list[Scheduler]
) -> None:
    stream = io.StringIO()
    handler = build_handler("json", stream)
    scheduler_logger = logging.getLogger("service.runtime.scheduler")
    scheduler_logger.addHandler(handler)
    scheduler_logger.setLevel(logging.INFO)
    try:
        job = CountingJob(make_pipeline(store, AFTER_W04_TICK))
        soon = datetime.now(UTC) + timedelta(seconds=0.2)
        scheduler = make_scheduler(db_url, job, trigger=DateTrigger(run_date=soon))
        scheduler.start(catch_up=False)
        running.append(scheduler)
        assert job.called.wait(WAIT)
        assert scheduler.wait_idle(WAIT)
    finally:
        scheduler_logger.removeHandler(handler)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    done = [line for line in lines if line["message"] == "scheduled job done"]
    assert len(done) == 1
    assert done[0]["kind"] == "schedule"
    assert (done[0]["runs"], done[0]["outcomes"]) == (1, {"ok": 1})
    assert done[0]["seconds"] > 0


def test_run_until_stopped_catches_up_then_stops_cleanly(store: Store, db_url: str) -> None:
    job = CountingJob(make_pipeline(store, AFTER_W04_TICK))
    scheduler = make_scheduler(db_url, job)
    stop = threading.Event()
    thread = threading.Thread(target=scheduler.run_until_stopped, args=(stop,))
    thread.start()
    assert job.called.wait(WAIT)  # the start-up catch-up ran
    assert scheduler.alive()
    stop.set()
    thread.join(WAIT)
    assert not thread.is_alive()
    assert not scheduler.alive()
    assert job.calls == 1
