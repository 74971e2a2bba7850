"""Store: the composition root of the store's aggregates, one per module of this package (PR
snapshots, HTTP cache, digests, deliveries, subscriptions, locks, runs, the analyst's cache,
repositories, the service's keys, inbound events), over one engine. Each aggregate is an
attribute (`store.deliveries`), and each of its methods is also the store's (`store.record_sent`),
so code handed the Store reads as before; code that needs one aggregate is handed that one."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from sqlalchemy import Engine, literal, select
from sqlalchemy.exc import SQLAlchemyError

from service.errors import StoreUnavailableError
from service.store.aggregate import period_kind
from service.store.analyst_cache import ModelAnswers, StoredAnswer
from service.store.delegate import via
from service.store.deliveries import Deliveries, DeliveryRecord
from service.store.digests import Digests, ReportEntry
from service.store.engine import SchemaState, create_store_engine, schema_state
from service.store.events import InboundEvents
from service.store.http_cache import HttpCacheTable
from service.store.locks import Locks
from service.store.owners import PROCESS_OWNER, is_dead_owner
from service.store.pulls import PullSnapshots
from service.store.repositories import Repositories
from service.store.runs import ABANDONED, DONE_OUTCOMES, RUNNING, RunRecord, Runs
from service.store.schema import SchemaUpgrade, upgrade_schema
from service.store.service_keys import ServiceKeys
from service.store.subscriptions import Subscribers, SubscriptionRecord
from service.store.translate import translated

__all__ = [
    "ABANDONED",
    "DONE_OUTCOMES",
    "PROCESS_OWNER",
    "RUNNING",
    "DeliveryRecord",
    "ReportEntry",
    "RunRecord",
    "SchemaState",
    "Store",
    "StoredAnswer",
    "SubscriptionRecord",
    "create_store_engine",
    "is_dead_owner",
    "period_kind",
    "schema_state",
]


class Store:
    """All persistent state; one instance per process, safe to share between threads."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        url = engine.url
        is_file = url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:")
        self._sqlite_file = Path(url.database).expanduser() if is_file and url.database else None
        self.pulls = PullSnapshots(engine)
        self.http_cache = HttpCacheTable(engine)
        self.digests = Digests(engine, self.pulls)
        self.deliveries = Deliveries(engine)
        self.subscribers = Subscribers(engine)
        self.locks = Locks(engine)
        self.repositories = Repositories(engine)
        self.runs = Runs(engine, self.repositories.canonical_repo)
        self.model_answers = ModelAnswers(engine)
        self.keys = ServiceKeys(engine)
        self.events = InboundEvents(engine)

    @classmethod
    @translated
    def open(cls, url: str, *, migrate: bool = True) -> Store:
        """Open the database at `url` and (unless told not to) bring its schema up to date."""
        try:
            engine = create_store_engine(url)
        except (SQLAlchemyError, ValueError, OSError) as exc:
            reason = getattr(exc, "strerror", None) or type(exc).__name__
            raise StoreUnavailableError(f"cannot open database: {reason}") from None
        store = cls(engine)
        if migrate:
            store.migrate()
        return store

    @translated
    def migrate(self) -> SchemaUpgrade:
        """Upgrade the schema to the code's revisions, under the schema lock."""
        return upgrade_schema(self.engine)

    @translated
    def ping(self) -> bool:
        """Whether the database answers a trivial query (and, for SQLite, its file still exists:
        a pooled connection keeps answering from a deleted file's inode)."""
        if self._sqlite_file is not None and not self._sqlite_file.exists():
            raise StoreUnavailableError(f"database file {self._sqlite_file.name} is missing")
        with self.engine.connect() as conn:
            conn.execute(select(literal(1))).first()
        return True

    def prune(self, *, events_before: datetime, cache_before: datetime) -> tuple[int, int]:
        """Drop event ids received and cache entries written before the given times;
        returns (events, cache entries) removed."""
        return self.events.prune_before(events_before), self.http_cache.prune_before(cache_before)

    # PR snapshots (github.collect.StoredPulls)
    save_prs = via("pulls", PullSnapshots.save_prs)
    stored_prs = via("pulls", PullSnapshots.stored_prs)
    load_prs = via("pulls", PullSnapshots.load_prs)
    load_prs_between = via("pulls", PullSnapshots.load_prs_between)
    stored_period = via("pulls", PullSnapshots.stored_period)
    load_pr = via("pulls", PullSnapshots.load_pr)

    # HTTP cache (github.http.HttpCache)
    cache_get = via("http_cache", HttpCacheTable.cache_get)
    cache_put = via("http_cache", HttpCacheTable.cache_put)
    cache_fresh = via("http_cache", HttpCacheTable.cache_fresh)

    # digests (commands.context.DigestReader)
    save_digest = via("digests", Digests.save_digest)
    get_digest = via("digests", Digests.get_digest)
    digest_revision = via("digests", Digests.digest_revision)
    digest_built_from = via("digests", Digests.digest_built_from)
    period_stamp = via("digests", Digests.period_stamp)
    latest_digest = via("digests", Digests.latest_digest)
    list_periods = via("digests", Digests.list_periods)
    list_reports = via("digests", Digests.list_reports)

    # deliveries (delivery.outbox.DeliveryLog)
    get_delivery = via("deliveries", Deliveries.get_delivery)
    record_intent = via("deliveries", Deliveries.record_intent)
    mark_attempt = via("deliveries", Deliveries.mark_attempt)
    record_sent = via("deliveries", Deliveries.record_sent)
    record_failed = via("deliveries", Deliveries.record_failed)
    record_unknown = via("deliveries", Deliveries.record_unknown)
    list_deliveries = via("deliveries", Deliveries.list_deliveries)

    # subscriptions (commands.context.Subscriptions)
    subscribe = via("subscribers", Subscribers.subscribe)
    unsubscribe = via("subscribers", Subscribers.unsubscribe)
    subscription_records = via("subscribers", Subscribers.subscription_records)
    subscriptions = via("subscribers", Subscribers.subscriptions)
    channel_subscriptions = via("subscribers", Subscribers.channel_subscriptions)

    # locks
    acquire_lock = via("locks", Locks.acquire_lock)
    release_lock = via("locks", Locks.release_lock)
    lock = via("locks", Locks.lock)

    # runs
    start_run = via("runs", Runs.start_run)
    renew_lease = via("runs", Runs.renew_lease)
    abandon_runs = via("runs", Runs.abandon_runs)
    finish_run = via("runs", Runs.finish_run)
    interrupt_running = via("runs", Runs.interrupt_running)
    last_run = via("runs", Runs.last_run)

    # the analyst's cache (pipeline.narrator.AnswerCache, pipeline.verifier.VerdictCache)
    get_model_answer = via("model_answers", ModelAnswers.get_model_answer)
    save_model_answer = via("model_answers", ModelAnswers.save_model_answer)

    # repositories
    save_repo_privacy = via("repositories", Repositories.save_repo_privacy)
    repo_privacy = via("repositories", Repositories.repo_privacy)
    canonical_repo = via("repositories", Repositories.canonical_repo)
    identify_repo = via("repositories", Repositories.identify_repo)
    moves_to_announce = via("repositories", Repositories.moves_to_announce)
    announce_moves = via("repositories", Repositories.announce_moves)

    # keys the service makes for itself; inbound events (feishu.events.EventLog)
    service_key = via("keys", ServiceKeys.service_key)
    remember_event = via("events", InboundEvents.remember_event)
