"""Store on a real SQLite file: snapshots, digests, deliveries, locks, runs, events, errors."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import MetaData, Table, create_engine, insert

from service.core.digest import build_digest
from service.core.models import DIGEST_SCHEMA_VERSION, Completeness, Digest, MissingItem
from service.core.profile import RepoProfile
from service.errors import StoreUnavailableError
from service.render.report import render_markdown
from service.store.repository import Store
from service.store.schema import alembic_config, code_heads
from tests.conftest import NOW, load_week
from tests.periods import period


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(f"sqlite:///{tmp_path}/nested/folder/verl-week.db")


def _digest(week: str = "2026-W04", lang: str = "zh") -> Digest:
    now = datetime(2026, 1, 26, tzinfo=UTC)
    return Digest(
        repo="volcengine/verl",
        period=week,
        timezone="Asia/Shanghai",
        start=now,
        end=now,
        language=lang,
        generated_at=now,
        completeness=Completeness(
            complete=False, missing=[MissingItem(number=1, what="files", reason="502")]
        ),
    )


def test_open_creates_folder_file_and_wal(tmp_path: Path) -> None:
    Store.open(f"sqlite:///{tmp_path}/a/b/db.sqlite")
    path = tmp_path / "a" / "b" / "db.sqlite"
    assert path.exists()
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_schema_revision_recorded_and_reopen_is_idempotent(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/db.sqlite"
    opened = Store.open(url, migrate=False).migrate()
    assert (opened.before, opened.after) == (frozenset(), code_heads())
    again = Store.open(url).migrate()
    assert again.before == again.after == code_heads()


def test_a_database_before_the_inputs_revision_gains_the_digest_inputs_column(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path}/v1.sqlite"
    engine = create_engine(url)
    with engine.begin() as conn:  # as verl-week 0.1 left it, with a digest stored
        command.upgrade(alembic_config(conn), "0003")
        row = {**_digest_row(_digest()), "generated_at": _digest().generated_at}
        # the table as 0003 has it (its period column still named `week`)
        conn.execute(insert(Table("digests", MetaData(), autoload_with=conn)).values(**row))
    engine.dispose()
    store = Store.open(url)
    assert store.get_digest("volcengine/verl", period("2026-W04"), "zh") == _digest()
    assert store.digest_built_from("volcengine/verl", period("2026-W04"), "zh", "k" * 64) is None
    store.save_digest(_digest(), inputs="k" * 64)
    assert (
        store.digest_built_from("volcengine/verl", period("2026-W04"), "zh", "k" * 64) == _digest()
    )


def _digest_row(digest: Digest) -> dict[str, object]:
    return {
        "repo": digest.repo,
        "week": digest.period,
        "language": digest.language,
        "schema_version": digest.schema_version,
        "data": digest.model_dump(mode="json"),
        "complete": digest.completeness.complete,
        "missing": [m.model_dump(mode="json") for m in digest.completeness.missing],
    }


def test_pr_snapshots_upsert(store: Store) -> None:
    week = load_week("2026-W04")
    store.save_prs(week.repo, "2026-W04", week.prs)
    store.save_prs(week.repo, "2026-W04", week.prs[:3])
    loaded = store.load_prs(week.repo, "2026-W04")
    assert {p.number for p in loaded} == {p.number for p in week.prs}
    first = week.prs[0]
    assert store.load_pr(week.repo, first.number) == first
    assert store.load_pr(week.repo, 1) is None


def test_digest_round_trip_and_listing(store: Store) -> None:
    store.save_digest(_digest("2026-W03"))
    store.save_digest(_digest("2026-W04"))
    store.save_digest(_digest("2026-W04", "en"))
    store.save_digest(_digest("2026-W04"))  # replace, not duplicate
    assert store.get_digest("volcengine/verl", period("2026-W04"), "zh") == _digest("2026-W04")
    assert store.list_periods("volcengine/verl") == ["2026-W04", "2026-W03"]
    latest = store.latest_digest("volcengine/verl", "en")
    assert latest is not None
    assert latest.period == "2026-W04"
    assert len(store.list_reports()) == 3
    assert store.list_reports()[0].complete is False


def test_a_digest_stored_by_schema_1_is_read_anew(store: Store, verl_profile: RepoProfile) -> None:
    week = load_week("2026-W04")
    built = build_digest(week, verl_profile, language="zh", now=NOW)
    old = built.model_dump(mode="json")
    old["schema_version"] = 1
    old["stats"]["changed_files"] = 174  # schema 1 summed the PRs' counts
    old["narrative"] = {  # keys the catalogs no longer have
        "summary": [{"key": "narrative.summary.top_pr", "params": {"number": 4280}}],
        "key_changes": [],
        "trends": [{"key": "narrative.trend.types", "params": {"types_text": "fix 12"}}],
        "recommendations": [],
    }
    store.save_prs(week.repo, "2026-W04", week.prs)
    store.save_digest(Digest.model_validate(old))
    loaded = store.get_digest(week.repo, period("2026-W04"), "zh")
    assert loaded is not None
    assert loaded.schema_version == DIGEST_SCHEMA_VERSION
    assert loaded.stats.changed_files == 127
    assert loaded.narrative == built.narrative
    assert "127" in render_markdown(loaded)


def test_delivery_intent_is_unique(store: Store) -> None:
    first = store.record_intent("o/r", period("2026-W04"), "slack:C1", "k1")
    again = store.record_intent("o/r", period("2026-W04"), "slack:C1", "k2")
    assert first.id == again.id
    assert again.idempotency_key == "k1"
    store.record_sent(first.id, "C1:1700.1")
    sent = store.get_delivery("o/r", period("2026-W04"), "slack:C1")
    assert sent is not None
    assert (sent.status, sent.message_id) == ("sent", "C1:1700.1")


def test_lock_excludes_second_owner_until_expiry(store: Store) -> None:
    assert store.acquire_lock("week:o/r:2026-W04", "a", timedelta(minutes=5))
    assert not store.acquire_lock("week:o/r:2026-W04", "b", timedelta(minutes=5))
    store.release_lock("week:o/r:2026-W04", "a")
    assert store.acquire_lock("week:o/r:2026-W04", "b", timedelta(seconds=-1))
    assert store.acquire_lock("week:o/r:2026-W04", "c", timedelta(minutes=5))  # b's expired


def test_runs_and_interrupted(store: Store) -> None:
    done = store.start_run("o/r", period("2026-W03"), "schedule")
    store.finish_run(done, "ok", {"prs": 3})
    store.start_run("o/r", period("2026-W04"), "schedule")
    assert store.interrupt_running() == 1
    last = store.last_run("o/r")
    assert last is not None
    assert last.outcome == "interrupted"
    finished = store.last_run("o/r", done_only=True)
    assert finished is not None
    assert finished.period == "2026-W03"


def test_subscriptions_and_events(store: Store) -> None:
    assert store.subscribe("slack", "C9", "o/r", "U1")
    assert not store.subscribe("slack", "C9", "o/r", "U1")
    assert store.subscriptions("o/r") == [("slack", "C9")]
    assert store.unsubscribe("slack", "C9", "o/r")
    assert not store.unsubscribe("slack", "C9", "o/r")
    assert store.remember_event("ev1", "feishu")
    assert not store.remember_event("ev1", "feishu")


def test_unopenable_database_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StoreUnavailableError) as info:
        Store.open(f"sqlite:///{blocker}/db.sqlite")
    assert "\n" not in str(info.value)


@pytest.mark.process
def test_corrupt_database_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreUnavailableError) as info:
        Store.open(f"sqlite:///{path}")
    assert "database unavailable" in str(info.value)


def _dead_pid() -> int:
    import subprocess
    import sys

    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(child.stdout)


@pytest.mark.process
def test_lock_of_a_dead_process_on_this_host_is_taken_over(store: Store) -> None:
    import os
    import socket

    from service.store.repository import PROCESS_OWNER

    host = socket.gethostname()
    ttl = timedelta(hours=2)
    assert store.acquire_lock("a", f"{host}:{_dead_pid()}:0000", ttl)
    assert store.acquire_lock("a", PROCESS_OWNER, ttl)  # its holder is gone
    assert store.acquire_lock("b", f"{host}:{os.getppid()}:1111", ttl)
    assert not store.acquire_lock("b", PROCESS_OWNER, ttl)  # alive: wait for it
    assert store.acquire_lock("c", f"{host}:{os.getpid()}:old-incarnation", ttl)
    assert store.acquire_lock("c", PROCESS_OWNER, ttl)  # our pid, another token: a past life
    assert store.acquire_lock("d", f"other-host:{_dead_pid()}:2222", ttl)
    assert not store.acquire_lock("d", PROCESS_OWNER, ttl)  # another host: only expiry frees it
    assert not store.acquire_lock("a", PROCESS_OWNER, ttl)  # our own lock is not re-entrant


def test_ping_notices_a_deleted_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    live = Store.open(f"sqlite:///{path}")
    assert live.ping()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with pytest.raises(StoreUnavailableError, match="missing"):
        live.ping()


def test_an_unsupported_database_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(StoreUnavailableError) as info:
        Store.open("mysql://user@127.0.0.1/verl")
    assert info.value.message.startswith("unsupported database mysql:")


def test_a_digest_stored_by_schema_2_gets_its_stories_from_the_stored_weeks(
    store: Store, verl_profile: RepoProfile
) -> None:
    """Schema 2 had no relations or stories: reading it anew finds them, across the stored
    week before (#5033 rewrites code #4916 added in 2026-W03)."""
    week, before = load_week("2026-W04"), load_week("2026-W03")
    built = build_digest(week, verl_profile, language="zh", now=NOW, earlier=before.prs)
    old = built.model_dump(mode="json", exclude={"relations", "stories"})
    old["schema_version"] = 2
    store.save_prs(week.repo, "2026-W03", before.prs)
    store.save_prs(week.repo, "2026-W04", week.prs)
    store.save_digest(Digest.model_validate(old))
    loaded = store.get_digest(week.repo, period("2026-W04"), "zh")
    assert loaded is not None
    assert loaded.relations == built.relations
    assert (5033, 4916, "2026-W03") in {(r.pr, r.other, r.week) for r in loaded.relations}
    assert loaded.stories == built.stories
    assert loaded.narrative == built.narrative


def test_a_period_reads_its_prs_by_the_instant_not_by_the_clock_digits(store: Store) -> None:
    """A month's window is in the digest's time zone and the snapshots' merge times in UTC:
    the window is compared as instants (SQLite compares the stored times as text)."""
    from zoneinfo import ZoneInfo

    week = load_week("2026-W04")
    store.save_prs(week.repo, "2026-W04", week.prs)
    latest = max(week.prs, key=lambda p: p.merged_at or NOW)
    assert latest.merged_at is not None
    shanghai = ZoneInfo("Asia/Shanghai")
    merged = latest.merged_at.astimezone(shanghai)
    # a window ending one minute after the merge in Shanghai time holds it; one ending one
    # minute before does not (were the digits compared, eight hours would decide instead)
    after = merged + timedelta(minutes=1)
    before = merged - timedelta(minutes=1)
    start = merged - timedelta(days=30)
    assert latest.number in {p.number for p in store.load_prs_between(week.repo, start, after)}
    assert latest.number not in {p.number for p in store.load_prs_between(week.repo, start, before)}


def test_a_database_path_that_cannot_be_made_is_a_store_error_not_a_traceback(
    tmp_path: Path,
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the database's folder should be", encoding="utf-8")
    with pytest.raises(StoreUnavailableError):
        Store.open(f"sqlite:///{blocker}/verl-week.db")


def test_an_existing_database_file_is_opened_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "verl-week.db"
    Store.open(f"sqlite:///{path}").ping()
    path.chmod(0o600)
    before = path.stat().st_ino
    assert Store.open(f"sqlite:///{path}").ping()
    assert path.stat().st_ino == before
