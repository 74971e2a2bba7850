"""The Store on SQLite and PostgreSQL alike: digests, PRs, cache, deliveries, subscriptions,
locks, runs and inbound event de-duplication, with real verl weeks."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from alembic import command
from sqlalchemy import text

from service.core.digest import build_digest
from service.core.models import Digest
from service.core.profile import load_profile
from service.store.repository import Store, create_store_engine
from service.store.schema import alembic_config, code_heads, database_heads
from tests.conftest import NOW, load_week
from tests.periods import period

REPO = "volcengine/verl"
THREADS = 8
WRITERS = 4


@pytest.fixture(scope="module")
def digest_w04() -> Digest:
    return build_digest(load_week("2026-W04"), load_profile(REPO), language="zh", now=NOW)


@pytest.fixture
def store(database_url: str) -> Store:
    return Store.open(database_url)


def test_open_twice_migrates_once_and_pings(store: Store, database_url: str) -> None:
    again = Store.open(database_url)
    assert again.migrate().after == store.migrate().after
    assert again.ping() is True


def test_digest_round_trips_and_lists_newest_first(store: Store, digest_w04: Digest) -> None:
    older = build_digest(load_week("2026-W03"), load_profile(REPO), language="en", now=NOW)
    store.save_digest(digest_w04)
    store.save_digest(older)
    assert store.get_digest(REPO, period("2026-W04"), "zh") == digest_w04
    assert store.get_digest(REPO, period("2026-W04"), "en") is None
    assert store.list_periods(REPO) == ["2026-W04", "2026-W03"]
    assert store.list_periods(REPO, "en") == ["2026-W03"]
    assert store.latest_digest(REPO, "zh") == digest_w04
    entries = store.list_reports()
    assert [(e.repo, e.period, e.language) for e in entries] == [
        (REPO, "2026-W04", "zh"),
        (REPO, "2026-W03", "en"),
    ]
    assert entries[0].generated_at.tzinfo is not None


def test_saving_a_digest_again_replaces_it(store: Store, digest_w04: Digest) -> None:
    store.save_digest(digest_w04)
    edited = digest_w04.model_copy(update={"discussion_url": "https://example.com/d/1"})
    store.save_digest(edited)
    stored = store.get_digest(REPO, period("2026-W04"), "zh")
    assert stored is not None
    assert stored.discussion_url == "https://example.com/d/1"
    assert store.list_periods(REPO) == ["2026-W04"]


def test_pr_snapshots_round_trip_with_patches(store: Store) -> None:
    week = load_week("2026-W04")
    store.save_prs(REPO, "2026-W04", week.prs)
    store.save_prs(REPO, "2026-W04", week.prs)  # an upsert, not a duplicate
    loaded = store.load_prs(REPO, "2026-W04")
    assert sorted(p.number for p in loaded) == sorted(p.number for p in week.prs)
    first = week.prs[0]
    assert store.load_pr(REPO, first.number) == first
    assert store.load_pr(REPO, 999_999) is None


def test_pr_snapshots_are_upserted_in_bulk_and_read_back_by_number(store: Store) -> None:
    week = load_week("2026-W04")
    store.save_prs(REPO, "2026-W04", week.prs)
    retitled = [p.model_copy(update={"title": f"edited {p.number}"}) for p in week.prs[:5]]
    store.save_prs(REPO, "2026-W04", retitled)
    wanted = [p.number for p in week.prs[:7]] + [999_999]
    found = store.stored_prs(REPO, wanted)
    assert sorted(found) == sorted(wanted[:7])
    assert [found[p.number] for p in retitled] == retitled
    assert found[week.prs[6].number] == week.prs[6]
    assert store.stored_prs("other/repo", wanted) == {}
    assert len(store.load_prs(REPO, "2026-W04")) == len(week.prs)


def test_a_week_of_2000_snapshots_is_written_and_read_in_batches(store: Store) -> None:
    base = load_week("2026-W04").prs[0]
    prs = [base.model_copy(update={"number": 100_000 + i}) for i in range(2000)]
    store.save_prs(REPO, "2026-W04", prs)
    store.save_prs(REPO, "2026-W04", prs)
    found = store.stored_prs(REPO, [p.number for p in prs])
    assert len(found) == 2000
    assert found[101_999] == prs[-1]


def test_digest_is_found_by_what_it_was_built_from(store: Store, digest_w04: Digest) -> None:
    assert store.period_stamp(REPO, period("2026-W04"), "zh") == "-:0"
    store.save_digest(digest_w04, inputs="a" * 64)
    assert store.digest_built_from(REPO, period("2026-W04"), "zh", "a" * 64) == digest_w04
    assert store.digest_built_from(REPO, period("2026-W04"), "zh", "b" * 64) is None
    assert store.digest_built_from(REPO, period("2026-W04"), "en", "a" * 64) is None
    assert store.period_stamp(REPO, period("2026-W04"), "zh") == f"{'a' * 64}:0"
    store.save_prs(REPO, "2026-W04", load_week("2026-W04").prs)
    assert store.period_stamp(REPO, period("2026-W04"), "zh") == f"{'a' * 64}:22"
    store.save_digest(digest_w04)  # built from something unknown: never reused
    assert store.digest_built_from(REPO, period("2026-W04"), "zh", "a" * 64) is None
    assert store.period_stamp(REPO, period("2026-W04"), "zh").startswith(
        digest_w04.generated_at.isoformat()
    )


def test_a_fresh_cached_answer_is_served_by_age(store: Store) -> None:
    key = "GET https://api.github.com/search/code?q=x"
    assert store.cache_fresh(key, timedelta(hours=1)) is None
    store.cache_put(key, '"e"', '{"data": {"items": []}, "next": null}')
    assert store.cache_fresh(key, timedelta(hours=1)) == '{"data": {"items": []}, "next": null}'
    assert store.cache_fresh(key, timedelta(seconds=-1)) is None


def test_http_cache_put_and_overwrite(store: Store) -> None:
    assert store.cache_get("GET https://api.github.com/x") is None
    store.cache_put("GET https://api.github.com/x", '"etag-1"', '{"a": 1}')
    store.cache_put("GET https://api.github.com/x", '"etag-2"', '{"a": 2}')
    assert store.cache_get("GET https://api.github.com/x") == ('"etag-2"', '{"a": 2}')


def test_delivery_intent_is_unique_and_sent_records_the_message(store: Store) -> None:
    first = store.record_intent(REPO, period("2026-W04"), "slack:C1", "key-1")
    second = store.record_intent(REPO, period("2026-W04"), "slack:C1", "key-other")
    assert second.id == first.id
    assert second.idempotency_key == "key-1"
    store.mark_attempt(first.id)
    store.record_sent(first.id, "1700000000.000100")
    record = store.get_delivery(REPO, period("2026-W04"), "slack:C1")
    assert record is not None
    assert (record.status, record.message_id, record.attempts) == ("sent", "1700000000.000100", 1)
    failed = store.record_intent(REPO, period("2026-W04"), "feishu:oc_1", "key-2")
    store.record_failed(failed.id, "code 230002")
    assert [d.status for d in store.list_deliveries(REPO, period("2026-W04"))] == ["sent", "failed"]


def test_concurrent_intents_for_one_destination_make_one_record(store: Store) -> None:
    ids: list[int] = []
    barrier = threading.Barrier(THREADS)

    def intent() -> None:
        barrier.wait()
        ids.append(store.record_intent(REPO, period("2026-W05"), "feishu:oc_x", "k").id)

    threads = [threading.Thread(target=intent) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(ids)) == 1
    assert len(store.list_deliveries(REPO, period("2026-W05"))) == 1


def test_concurrent_builds_of_one_week_all_write_and_leave_one_row_each(
    store: Store, database_url: str, digest_w04: Digest
) -> None:
    """Two processes building the same week: each writes the same PR snapshots, digest and
    cache entries at once (an update-then-insert pair raced to a unique violation here)."""
    week = load_week("2026-W04")
    writers = [Store.open(database_url) for _ in range(WRITERS)]
    barrier = threading.Barrier(WRITERS)
    errors: list[BaseException] = []

    def build(n: int, writer: Store) -> None:
        barrier.wait()
        try:
            writer.save_prs(REPO, "2026-W04", week.prs)
            writer.cache_put("GET /repos/volcengine/verl/pulls/1/files", f'"e{n}"', f"[{n}]")
            writer.save_digest(digest_w04)
        except BaseException as exc:  # collected for the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=build, args=(n, w)) for n, w in enumerate(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(p.number for p in store.load_prs(REPO, "2026-W04")) == sorted(
        p.number for p in week.prs
    )
    assert store.get_digest(REPO, period("2026-W04"), "zh") == digest_w04
    cached = store.cache_get("GET /repos/volcengine/verl/pulls/1/files")
    assert cached is not None
    assert cached in {(f'"e{n}"', f"[{n}]") for n in range(WRITERS)}


def test_subscriptions(store: Store) -> None:
    assert store.subscribe("slack", "C1", REPO, "U1") is True
    assert store.subscribe("slack", "C1", REPO, "U2") is False
    assert store.subscribe("feishu", "oc_1", REPO, None) is True
    assert store.subscriptions(REPO) == [("slack", "C1"), ("feishu", "oc_1")]
    assert store.subscriptions(REPO, "feishu") == [("feishu", "oc_1")]
    assert store.unsubscribe("slack", "C1", REPO) == 1
    assert store.unsubscribe("slack", "C1", REPO) == 0
    assert store.subscriptions(REPO, "slack") == []


def test_a_channel_holds_one_subscription_per_repo_and_filter(store: Store) -> None:
    assert store.subscribe("slack", "C1", REPO, "U1", filter_text="module:megatron") is True
    assert store.subscribe("slack", "C1", REPO, "U1", language="en") is True
    assert store.subscribe("slack", "C1", "o/other", "U1", filter_text="module:megatron") is True
    again = store.subscribe("slack", "C1", REPO, "U2", filter_text="module:megatron", language="en")
    assert again is False  # the same filter again: only its language changes
    mine = store.channel_subscriptions("slack", "C1")
    assert [(s.repo, s.filter, s.language) for s in mine] == [
        (REPO, "module:megatron", "en"),
        (REPO, "", "en"),
        ("o/other", "module:megatron", None),
    ]
    assert [s.destination for s in store.subscription_records(REPO)] == ["slack:C1", "slack:C1"]
    assert store.subscriptions(REPO) == [("slack", "C1")]
    assert store.unsubscribe("slack", "C1", REPO, filter_text="module:megatron") == 1
    assert [s.filter for s in store.subscription_records(REPO)] == [""]
    assert store.unsubscribe("slack", "C1", "o/other") == 1  # no filter: every one of the repo
    assert store.channel_subscriptions("slack", "C1")[0].repo == REPO


def test_deliveries_are_kept_per_destination_and_filter(store: Store) -> None:
    whole = store.record_intent(REPO, period("2026-W04"), "slack:C1", "k-whole")
    narrowed = store.record_intent(
        REPO, period("2026-W04"), "slack:C1", "k-mega", "module:megatron"
    )
    assert whole.id != narrowed.id
    assert (
        store.record_intent(REPO, period("2026-W04"), "slack:C1", "k-x", "module:megatron")
        == narrowed
    )
    store.record_sent(narrowed.id, "C1:1.2")
    assert store.get_delivery(REPO, period("2026-W04"), "slack:C1") == whole
    found = store.get_delivery(REPO, period("2026-W04"), "slack:C1", "module:megatron")
    assert found is not None
    assert (found.status, found.message_id, found.filter) == ("sent", "C1:1.2", "module:megatron")
    listed = store.list_deliveries(REPO, period("2026-W04"))
    assert [(d.destination, d.filter) for d in listed] == [
        ("slack:C1", ""),
        ("slack:C1", "module:megatron"),
    ]


def test_locks_exclude_other_owners_until_released_or_expired(store: Store) -> None:
    ttl = timedelta(minutes=5)
    assert store.acquire_lock("week:r:2026-W04", "a", ttl) is True
    assert store.acquire_lock("week:r:2026-W04", "b", ttl) is False
    with store.lock("week:r:2026-W04", "b", ttl) as held:
        assert held is False
    store.release_lock("week:r:2026-W04", "b")  # not b's: still held by a
    assert store.acquire_lock("week:r:2026-W04", "c", ttl) is False
    store.release_lock("week:r:2026-W04", "a")
    with store.lock("week:r:2026-W04", "b", ttl) as held:
        assert held is True
        assert store.acquire_lock("week:r:2026-W04", "a", ttl) is False
    assert store.acquire_lock("expiring", "a", timedelta(seconds=-1)) is True
    assert store.acquire_lock("expiring", "b", ttl) is True  # a's lock had expired


def test_concurrent_lock_attempts_have_one_winner(store: Store) -> None:
    wins: list[str] = []
    barrier = threading.Barrier(THREADS)

    def attempt(owner: str) -> None:
        barrier.wait()
        if store.acquire_lock("scheduler:catch-up", owner, timedelta(minutes=5)):
            wins.append(owner)

    threads = [threading.Thread(target=attempt, args=(f"o{i}",)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(wins) == 1


def test_runs_last_run_and_interrupted(store: Store) -> None:
    assert store.last_run() is None
    done = store.start_run(REPO, period("2026-W03"), "schedule")
    store.finish_run(done, "ok", {"posted": 2})
    running = store.start_run(REPO, period("2026-W04"), "catch-up")
    last = store.last_run(REPO)
    assert last is not None
    assert (last.period, last.outcome, last.finished_at) == ("2026-W04", "running", None)
    last_done = store.last_run(REPO, done_only=True)
    assert last_done is not None
    assert (last_done.period, last_done.detail) == ("2026-W03", {"posted": 2})
    assert store.interrupt_running() == 1
    interrupted = store.last_run(REPO)
    assert interrupted is not None
    assert (interrupted.id, interrupted.outcome) == (running, "interrupted")
    assert interrupted.finished_at is not None
    assert store.last_run("other/repo") is None


def test_remember_event_is_true_only_the_first_time(store: Store) -> None:
    assert store.remember_event("Ev01", "slack") is True
    assert store.remember_event("Ev01", "slack") is False
    assert store.remember_event("om_1", "feishu") is True


def at_revision(database_url: str, revision: str) -> None:
    """Bring a database to one revision of the shipped migrations (as an older release would)."""
    engine = create_store_engine(database_url)
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), revision)
    engine.dispose()


def test_a_database_at_0001_keeps_its_rows_through_the_filters_revision(database_url: str) -> None:
    at_revision(database_url, "0001")
    engine = create_store_engine(database_url)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO deliveries (repo, week, destination, status, message_id, "
                "idempotency_key, attempts, created_at, updated_at) VALUES "
                "(:repo, '2026-W04', 'slack:C1', 'sent', 'C1:1.1', 'k', 1, :now, :now)"
            ),
            {"repo": REPO, "now": NOW},
        )
        conn.execute(
            text(
                "INSERT INTO subscriptions (platform, channel, repo, added_by, created_at) "
                "VALUES ('slack', 'C9', :repo, 'U1', :now)"
            ),
            {"repo": REPO, "now": NOW},
        )
    engine.dispose()

    store = Store.open(database_url)
    with store.engine.connect() as conn:
        assert database_heads(conn) == code_heads()
    kept = store.get_delivery(REPO, period("2026-W04"), "slack:C1")
    assert kept is not None
    assert (kept.status, kept.message_id, kept.filter) == ("sent", "C1:1.1", "")
    assert [(s.channel, s.filter, s.language) for s in store.subscription_records(REPO)] == [
        ("C9", "", None)
    ]
    # what 0001 refused: a second card (and subscription) of the same channel, filtered
    assert (
        store.record_intent(REPO, period("2026-W04"), "slack:C1", "k2", "module:megatron").id
        != kept.id
    )
    assert store.subscribe("slack", "C9", REPO, "U1", filter_text="module:megatron") is True

    # and back: the filtered rows have no place in 0001, the others stay
    with store.engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0001")
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM deliveries")).scalar() == 1
        assert conn.execute(text("SELECT channel FROM subscriptions")).scalars().all() == ["C9"]


def test_prune_drops_only_rows_older_than_the_cut(store: Store) -> None:
    store.remember_event("Ev_old", "slack")
    store.cache_put("GET /old", '"e"', "{}")
    cut = datetime.now(UTC) + timedelta(seconds=1)
    assert store.prune(events_before=cut - timedelta(days=1), cache_before=cut) == (0, 1)
    assert store.prune(events_before=cut, cache_before=cut) == (1, 0)
    assert store.remember_event("Ev_old", "slack") is True
    assert store.cache_get("GET /old") is None


def test_repository_privacy_is_recorded_and_updated(store: Store) -> None:
    assert store.repo_privacy(REPO) is None
    store.save_repo_privacy(REPO, True)
    assert store.repo_privacy(REPO) is True
    store.save_repo_privacy(REPO, False)  # made public since
    assert store.repo_privacy(REPO) is False


def test_model_answers_are_cached_and_replaced_by_their_key(store: Store) -> None:
    from service.store.repository import StoredAnswer

    key = ("c" * 64, "deepseek-chat", "1.0123abcd", "zh")
    assert store.get_model_answer(*key) is None
    store.save_model_answer(*key, StoredAnswer('{"summary": []}', 7000, 800))
    store.save_model_answer(*key, StoredAnswer('{"summary": [1]}', 7100, 900))
    assert store.get_model_answer(*key) == StoredAnswer('{"summary": [1]}', 7100, 900)
    assert store.get_model_answer("c" * 64, "deepseek-chat", "1.0123abcd", "en") is None
