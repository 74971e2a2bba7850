"""The store split by aggregate: each aggregate is its consumer's protocol (mypy checks the
assignments below), works on its own over an engine, and the Store's methods are its
aggregates'."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.commands.context import DigestReader, Subscriptions
from service.delivery.outbox import DeliveryLog
from service.feishu.events import EventLog
from service.github.collect import StoredPulls
from service.github.http import HttpCache
from service.pipeline.narrator import AnswerCache
from service.pipeline.verifier import VerdictCache
from service.store.deliveries import Deliveries
from service.store.repository import Store
from service.store.subscriptions import Subscribers
from tests.periods import period


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(f"sqlite:///{tmp_path}/verl-week.db")


def test_each_aggregate_is_its_consumers_protocol(store: Store) -> None:
    digests: DigestReader = store.digests
    subscriptions: Subscriptions = store.subscribers
    deliveries: DeliveryLog = store.deliveries
    answers: AnswerCache = store.model_answers
    verdicts: VerdictCache = store.model_answers
    events: EventLog = store.events
    http: HttpCache = store.http_cache
    pulls: StoredPulls = store.pulls
    # the Store itself still is every one of them (the code handed the Store reads as before)
    whole: tuple[DigestReader, Subscriptions, DeliveryLog, AnswerCache, EventLog, HttpCache] = (
        store,
        store,
        store,
        store,
        store,
        store,
    )
    assert digests.list_periods("o/r") == []
    assert subscriptions.channel_subscriptions("slack", "C1") == []
    assert deliveries.get_delivery("o/r", period("2026-W04"), "slack:C1") is None
    assert answers.get_model_answer("h", "m", "v1", "en") is None
    assert verdicts.get_model_answer("h", "m", "v1", "en") is None
    assert events.remember_event("e1", "feishu") is True
    assert http.cache_get("k") is None
    assert pulls.stored_prs("o/r", [1]) == {}
    assert all(part is store for part in whole)


def test_an_aggregate_works_on_its_own_engine(store: Store) -> None:
    log = Deliveries(store.engine)
    record = log.record_intent("o/r", period("2026-W04"), "slack:C1", "key-1")
    log.record_sent(record.id, "ts-1")
    assert store.get_delivery("o/r", period("2026-W04"), "slack:C1") == log.get_delivery(
        "o/r", period("2026-W04"), "slack:C1"
    )
    assert store.list_deliveries("o/r", period("2026-W04"))[0].message_id == "ts-1"


def test_the_stores_methods_are_its_aggregates(store: Store) -> None:
    assert store.subscribe("slack", "C1", "o/r", None, cadence="monthly") is True
    assert Subscribers(store.engine).subscriptions("o/r") == [("slack", "C1")]
    assert store.subscribers.channel_subscriptions("slack", "C1") == store.channel_subscriptions(
        "slack", "C1"
    )
    assert store.unsubscribe("slack", "C1", "o/r") == 1
