"""Store: PR snapshots, HTTP cache, digests, deliveries, subscriptions, locks, runs, events."""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    create_engine,
    delete,
    event,
    func,
    insert,
    literal,
    select,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DatabaseError, IntegrityError, SQLAlchemyError

from service.core.models import DIGEST_SCHEMA_VERSION, Digest, PullRequest
from service.core.periods import kind_of
from service.core.weeks import label_before
from service.errors import StoreUnavailableError
from service.store import tables as t
from service.store.batches import ROW_CHUNK, chunks
from service.store.moves import carry_history, known_names, record_alias
from service.store.schema import (
    SchemaUpgrade,
    code_heads,
    database_heads,
    known_revisions,
    upgrade_schema,
)
from service.store.translate import translated
from service.store.upsert import upsert

logger = logging.getLogger(__name__)
# under Slack's 3 s ack: a command that writes (subscribe) answers "busy, retry" in time
SQLITE_BUSY_MS = 2000
# the dialects the upserts and the schema lock are written for
SUPPORTED_BACKENDS = ("sqlite", "postgresql")
# one id per process: lock owners are `host:pid:token`, so a successor can tell a dead holder
PROCESS_OWNER = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
RUNNING = "running"
ABANDONED = "abandoned"  # a run whose process died: its lease ran out before it finished
DONE_OUTCOMES = ("ok", "partial")
# how many threads of this process (any Store) hold or are taking each (lock, owner): a row of
# ours that nobody here claims is one whose release failed (the database was down), so it is
# ours to take back
_CLAIMS: dict[tuple[str, str], int] = {}
_CLAIMS_LOCK = threading.Lock()
# the runs this process started and has not finished: a `running` row of ours that is not here
# lost its worker (its finish could not be written: the database was down), so it is abandoned
# at once, not when its lease runs out
_LIVE_RUNS: set[int] = set()


def period_kind(label: str) -> str:
    """The `period_kind` column of a row keyed by `label` (`week` for anything else)."""
    return kind_of(label) or "week"


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(value: datetime) -> datetime:
    # SQLite hands back naive datetimes even for timezone=True columns; we only store UTC.
    return value if value.tzinfo else value.replace(tzinfo=UTC)


@dataclass(frozen=True)
class DeliveryRecord:
    id: int
    repo: str
    week: str
    destination: str
    status: str
    message_id: str | None
    idempotency_key: str
    attempts: int
    error: str | None
    filter: str = ""


@dataclass(frozen=True)
class SubscriptionRecord:
    """A channel's subscription to a scope's card (`repo`: a repository or a family): its
    filter ("" for every PR), its language (None: the channel's or the default) and its
    cadence (`weekly`, `monthly`)."""

    platform: str
    channel: str
    repo: str
    filter: str
    language: str | None
    cadence: str = "weekly"

    @property
    def destination(self) -> str:
        return f"{self.platform}:{self.channel}"


@dataclass(frozen=True)
class RunRecord:
    id: int
    repo: str
    week: str
    trigger: str
    started_at: datetime
    finished_at: datetime | None
    outcome: str
    detail: dict[str, Any]
    owner: str | None = None
    lease_expires_at: datetime | None = None

    def state(self, now: datetime) -> str:
        """The outcome, with a `running` row whose lease ran out (or whose process of this
        host is gone) read as `abandoned`."""
        if self.outcome != RUNNING:
            return self.outcome
        if self.owner is not None and is_dead_owner(self.owner):
            return ABANDONED
        if self.owner == PROCESS_OWNER and self.id not in _LIVE_RUNS:
            return ABANDONED
        if self.lease_expires_at is not None and self.lease_expires_at < now:
            return ABANDONED
        return RUNNING


@dataclass(frozen=True)
class StoredAnswer:
    """A language model's answer as cached: its text and what it cost."""

    content: str
    prompt_tokens: int
    completion_tokens: int


@dataclass(frozen=True)
class ReportEntry:
    repo: str
    week: str
    language: str
    generated_at: datetime
    complete: bool


# the live database holds subscriptions and the report-link key: the owner alone reads it
PRIVATE_FILE_MODE = 0o600
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")


def _prepare_sqlite(url: str) -> None:
    """The folder made, the file created 0600 before SQLite opens it (its -wal and -shm then
    take the same mode), and a file made earlier with a wider mode narrowed to 0600."""
    parsed = make_url(url)
    if not parsed.database or parsed.database == ":memory:" or parsed.database.startswith("file:"):
        return
    path = Path(parsed.database).expanduser()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # created only when missing: an existing file (perhaps read-only to this user) is
        # opened by SQLite alone, as before
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE))
    except FileExistsError:
        pass
    except OSError as exc:
        raise StoreUnavailableError(f"cannot create the database file: {exc.strerror}") from None
    for each in (path, *(path.with_name(path.name + side) for side in SQLITE_SIDE_FILES)):
        _narrow(each)


def _narrow(path: Path) -> None:
    try:
        mode = path.stat().st_mode & 0o777
        if mode & 0o077:
            path.chmod(PRIVATE_FILE_MODE)
            logger.warning(
                "database file was readable by others; now 0600",
                extra={"file": path.name, "was": oct(mode)},
            )
    except FileNotFoundError:
        return
    except PermissionError:  # not ours to change: say so, the service still runs
        logger.warning("database file is readable by others", extra={"file": path.name})


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # busy wait first: switching a fresh file to WAL waits for another process's lock
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_MS}")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def create_store_engine(url: str) -> Engine:
    """An Engine on `url`; for SQLite the folder is created and WAL is switched on."""
    backend = make_url(url).get_backend_name()
    if backend not in SUPPORTED_BACKENDS:
        raise StoreUnavailableError(
            f"unsupported database {backend}: DATABASE_URL must be sqlite:///… or "
            "postgresql+psycopg://…"
        )
    if url.startswith("sqlite"):
        _prepare_sqlite(url)
        engine = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True)


def is_dead_owner(owner: str) -> bool:
    """Whether a `host:pid:token` lock owner is a process of this host that no longer runs
    (a different token on our own pid is an earlier incarnation: PID 1 again in a container)."""
    host, _, rest = owner.partition(":")
    pid_text, _, token = rest.partition(":")
    if host != socket.gethostname() or not pid_text.isdigit() or not token:
        return False
    if int(pid_text) == os.getpid():
        return owner != PROCESS_OWNER
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


@dataclass(frozen=True)
class SchemaState:
    """Where a database stands: its Alembic revisions (empty: no verl-week schema yet), the
    ones this release ships, and the revisions this release knows at all."""

    revisions: frozenset[str]
    heads: frozenset[str]
    known: frozenset[str]

    @property
    def current(self) -> bool:
        return self.revisions == self.heads

    @property
    def newer(self) -> bool:
        """The database was migrated by a newer verl-week."""
        return not self.revisions <= self.known


def schema_state(url: str) -> SchemaState:
    """Read the schema's revisions without creating or migrating anything (`doctor`)."""
    heads, known = code_heads(), known_revisions()
    parsed = make_url(url)
    is_file = parsed.get_backend_name() == "sqlite" and parsed.database not in (None, ":memory:")
    if is_file and not Path(parsed.database or "").expanduser().exists():
        return SchemaState(frozenset(), heads, known)  # connecting would create an empty file
    try:
        engine = create_store_engine(url)
    except (SQLAlchemyError, ValueError, OSError) as exc:
        raise StoreUnavailableError(f"cannot open database: {type(exc).__name__}") from None
    try:
        with engine.connect() as conn:
            return SchemaState(database_heads(conn), heads, known)
    except DatabaseError as exc:
        reason = str(exc.orig).splitlines()[0] if exc.orig else "operational error"
        raise StoreUnavailableError(f"database unavailable: {reason}") from None
    finally:
        engine.dispose()


class Store:
    """All persistent state; one instance per process, safe to share between threads."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        url = engine.url
        is_file = url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:")
        self._sqlite_file = Path(url.database).expanduser() if is_file and url.database else None

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

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        with self.engine.begin() as conn:
            yield conn

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

    # --- PR snapshots ---------------------------------------------------------------------

    @translated
    def save_prs(self, repo: str, week: str, prs: list[PullRequest]) -> None:
        """Upsert the snapshot of each PR (the newest fetch wins), a batch per statement."""
        now = _now()
        with self._tx() as conn:
            for batch in chunks(prs, ROW_CHUNK):
                rows = [
                    {
                        "repo": repo,
                        "number": pr.number,
                        "week": week,
                        "merged_at": pr.merged_at,
                        "data": pr.model_dump(mode="json"),
                        "fetched_at": now,
                    }
                    for pr in batch
                ]
                upsert(conn, t.pr_snapshots, ("repo", "number"), rows)

    @translated
    def stored_prs(self, repo: str, numbers: Collection[int]) -> dict[int, PullRequest]:
        """The stored snapshots of `numbers` (whatever week they were saved under), by number."""
        c = t.pr_snapshots.c
        found: dict[int, PullRequest] = {}
        with self.engine.connect() as conn:
            for chunk in chunks(sorted(set(numbers))):
                query = select(c.number, c.data).where(c.repo == repo, c.number.in_(chunk))
                found.update(
                    (row[0], PullRequest.model_validate(row[1])) for row in conn.execute(query)
                )
        return found

    @translated
    def load_prs(self, repo: str, week: str) -> list[PullRequest]:
        """The stored PRs of `week`, by merge time."""
        query = (
            select(t.pr_snapshots.c.data)
            .where(t.pr_snapshots.c.repo == repo, t.pr_snapshots.c.week == week)
            .order_by(t.pr_snapshots.c.merged_at, t.pr_snapshots.c.number)
        )
        with self.engine.connect() as conn:
            return [PullRequest.model_validate(row[0]) for row in conn.execute(query)]

    @translated
    def load_prs_between(self, repo: str, start: datetime, end: datetime) -> list[PullRequest]:
        """The stored PRs merged in [start, end) (a month's or a range's), by merge time."""
        c = t.pr_snapshots.c
        # in UTC, as the times are stored: SQLite compares them as text, whatever their zone
        low, high = start.astimezone(UTC), end.astimezone(UTC)
        query = (
            select(c.data)
            .where(c.repo == repo, c.merged_at >= low, c.merged_at < high)
            .order_by(c.merged_at, c.number)
        )
        with self.engine.connect() as conn:
            return [PullRequest.model_validate(row[0]) for row in conn.execute(query)]

    @translated
    def stored_period(
        self, repo: str, start: datetime, end: datetime
    ) -> tuple[dict[int, PullRequest], datetime | None]:
        """The stored PRs merged in [start, end) by number, and when the oldest of those
        snapshots was saved (None when there is none): what a rebuild may keep as it is."""
        c = t.pr_snapshots.c
        # in UTC, as the times are stored: SQLite compares them as text, whatever their zone
        low, high = start.astimezone(UTC), end.astimezone(UTC)
        query = select(c.number, c.data, c.fetched_at).where(
            c.repo == repo, c.merged_at >= low, c.merged_at < high
        )
        found: dict[int, PullRequest] = {}
        oldest: datetime | None = None
        with self.engine.connect() as conn:
            for number, data, fetched in conn.execute(query):
                found[number] = PullRequest.model_validate(data)
                saved = _aware(fetched)
                oldest = saved if oldest is None else min(oldest, saved)
        return found, oldest

    @translated
    def load_pr(self, repo: str, number: int) -> PullRequest | None:
        query = select(t.pr_snapshots.c.data).where(
            t.pr_snapshots.c.repo == repo, t.pr_snapshots.c.number == number
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return PullRequest.model_validate(row[0]) if row else None

    # --- HTTP cache (satisfies github.http.HttpCache) ----------------------------------------

    @translated
    def cache_get(self, key: str) -> tuple[str, str] | None:
        """(etag, body) stored for `key`, if any."""
        query = select(t.http_cache.c.etag, t.http_cache.c.body).where(t.http_cache.c.key == key)
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return (row[0], row[1]) if row else None

    @translated
    def cache_put(self, key: str, etag: str, body: str) -> None:
        row = {"key": key, "etag": etag, "body": body, "updated_at": _now()}
        with self._tx() as conn:
            upsert(conn, t.http_cache, ("key",), [row])

    @translated
    def cache_fresh(self, key: str, max_age: timedelta) -> str | None:
        """The body stored for `key` if it was stored less than `max_age` ago."""
        c = t.http_cache.c
        query = select(c.body).where(c.key == key, c.updated_at > _now() - max_age)
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return row[0] if row else None

    # --- digests (satisfies commands.answer.DigestReader) -----------------------------------

    @translated
    def save_digest(self, digest: Digest, inputs: str | None = None) -> None:
        """Store (or replace) the digest of (repo, week, language); `inputs` is the key of what
        it was built from (see digest_built_from)."""
        row = {
            "repo": digest.repo,
            "period": digest.week,
            "period_kind": period_kind(digest.week),
            "language": digest.language,
            "inputs": inputs,
            "revision": uuid.uuid4().hex,
            "schema_version": digest.schema_version,
            "data": digest.model_dump(mode="json"),
            "generated_at": digest.generated_at,
            "complete": digest.completeness.complete,
            "missing": [m.model_dump(mode="json") for m in digest.completeness.missing],
        }
        with self._tx() as conn:
            upsert(conn, t.digests, ("repo", "period", "language"), [row])

    @translated
    def get_digest(self, repo: str, week: str, language: str) -> Digest | None:
        query = select(t.digests.c.data).where(
            t.digests.c.repo == repo, t.digests.c.period == week, t.digests.c.language == language
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        if not row:
            return None
        digest = Digest.model_validate(row[0])
        if digest.schema_version < DIGEST_SCHEMA_VERSION:  # stored by older code: read it anew
            from service.core.digest import upgrade_digest  # the analysis, only when needed

            before = label_before(week)
            earlier = {before: self.load_prs(repo, before)} if before else {}
            prs = (
                self.load_prs(repo, week)
                if period_kind(week) == "week"
                else self.load_prs_between(repo, digest.start, digest.end)
            )
            digest = upgrade_digest(digest, prs, earlier)
        return digest

    @translated
    def digest_revision(self, repo: str, week: str, language: str) -> str | None:
        """The token the stored digest of (repo, week, language) got when it was last saved
        (None when there is none, or it was saved before tokens were kept): unchanged exactly
        while the stored digest is, read without reading the digest."""
        c = t.digests.c
        query = select(c.revision).where(c.repo == repo, c.period == week, c.language == language)
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return row[0] if row else None

    @translated
    def digest_built_from(self, repo: str, week: str, language: str, inputs: str) -> Digest | None:
        """The stored digest of (repo, week, language) if it was built from `inputs`, else None."""
        c = t.digests.c
        query = select(c.data).where(
            c.repo == repo, c.period == week, c.language == language, c.inputs == inputs
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return Digest.model_validate(row[0]) if row else None

    @translated
    def week_stamp(self, repo: str, week: str, language: str) -> str:
        """A short text that changes when the stored digest of the week or its set of PR
        snapshots does: the digest's inputs key (else its time), and the snapshot count."""
        d, s = t.digests.c, t.pr_snapshots.c
        digest = select(d.inputs, d.generated_at).where(
            d.repo == repo, d.period == week, d.language == language
        )
        count = select(func.count()).where(s.repo == repo, s.week == week)
        with self.engine.connect() as conn:
            row = conn.execute(digest).first()
            snapshots = conn.execute(count).scalar_one()
        built = (row[0] or _aware(row[1]).astimezone(UTC).isoformat()) if row else "-"
        return f"{built}:{snapshots}"

    @translated
    def latest_digest(self, repo: str, language: str) -> Digest | None:
        """The digest of the newest stored week of `repo` (months and ranges are asked by
        label)."""
        weeks = self.list_weeks(repo, language)
        return self.get_digest(repo, weeks[0], language) if weeks else None

    @translated
    def list_weeks(
        self, repo: str, language: str | None = None, *, kind: str = "week"
    ) -> list[str]:
        """Stored periods of `kind` (weeks unless told) of `repo`, newest first."""
        c = t.digests.c
        query = select(c.period).where(c.repo == repo, c.period_kind == kind).distinct()
        if language:
            query = query.where(t.digests.c.language == language)
        with self.engine.connect() as conn:
            return sorted((row[0] for row in conn.execute(query)), reverse=True)

    @translated
    def list_reports(self) -> list[ReportEntry]:
        """Every stored digest, newest week first, then repo and language."""
        cols = t.digests.c
        query = select(cols.repo, cols.period, cols.language, cols.generated_at, cols.complete)
        with self.engine.connect() as conn:
            rows = [
                ReportEntry(r[0], r[1], r[2], _aware(r[3]), bool(r[4])) for r in conn.execute(query)
            ]
        return sorted(rows, key=lambda e: (e.week, e.repo, e.language), reverse=True)

    # --- deliveries (satisfies delivery.DeliveryLog) ----------------------------------------

    @staticmethod
    def _delivery(row: Any) -> DeliveryRecord:
        m = row._mapping
        return DeliveryRecord(
            m["id"],
            m["repo"],
            m["period"],
            m["destination"],
            m["status"],
            m["message_id"],
            m["idempotency_key"],
            m["attempts"],
            m["error"],
            m["filter"],
        )

    @translated
    def get_delivery(
        self, repo: str, week: str, destination: str, filter_text: str = ""
    ) -> DeliveryRecord | None:
        c = t.deliveries.c
        query = select(t.deliveries).where(
            c.repo == repo, c.period == week, c.destination == destination, c.filter == filter_text
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return self._delivery(row) if row else None

    @translated
    def record_intent(
        self, repo: str, week: str, destination: str, key: str, filter_text: str = ""
    ) -> DeliveryRecord:
        """Record that we are about to post; returns the existing record if there is one."""
        now = _now()
        try:
            with self._tx() as conn:
                conn.execute(
                    insert(t.deliveries).values(
                        repo=repo,
                        period=week,
                        period_kind=period_kind(week),
                        destination=destination,
                        filter=filter_text,
                        status="intent",
                        idempotency_key=key,
                        attempts=0,
                        created_at=now,
                        updated_at=now,
                    )
                )
        except IntegrityError:
            pass  # another process or an earlier run recorded it first
        record = self.get_delivery(repo, week, destination, filter_text)
        assert record is not None  # noqa: S101 - inserted or already present just above
        return record

    @translated
    def mark_attempt(self, delivery_id: int) -> None:
        with self._tx() as conn:
            conn.execute(
                update(t.deliveries)
                .where(t.deliveries.c.id == delivery_id)
                .values(attempts=t.deliveries.c.attempts + 1, updated_at=_now())
            )

    @translated
    def record_sent(self, delivery_id: int, message_id: str) -> None:
        with self._tx() as conn:
            conn.execute(
                update(t.deliveries)
                .where(t.deliveries.c.id == delivery_id)
                .values(status="sent", message_id=message_id, error=None, updated_at=_now())
            )

    @translated
    def record_failed(self, delivery_id: int, error: str) -> None:
        with self._tx() as conn:
            conn.execute(
                update(t.deliveries)
                .where(t.deliveries.c.id == delivery_id)
                .values(status="failed", error=error[:2000], updated_at=_now())
            )

    @translated
    def record_unknown(self, delivery_id: int, reason: str) -> None:
        """A send whose arrival can't be known (left unconfirmed by a dead process)."""
        with self._tx() as conn:
            conn.execute(
                update(t.deliveries)
                .where(t.deliveries.c.id == delivery_id)
                .values(status="unknown", error=reason[:2000], updated_at=_now())
            )

    @translated
    def list_deliveries(self, repo: str, week: str) -> list[DeliveryRecord]:
        c = t.deliveries.c
        query = select(t.deliveries).where(c.repo == repo, c.period == week).order_by(c.id)
        with self.engine.connect() as conn:
            return [self._delivery(row) for row in conn.execute(query)]

    # --- subscriptions --------------------------------------------------------------------

    @translated
    def subscribe(
        self,
        platform: str,
        channel: str,
        repo: str,
        added_by: str | None,
        *,
        filter_text: str = "",
        language: str | None = None,
        cadence: str = "weekly",
    ) -> bool:
        """Add a channel's subscription (scope + filter + cadence); False when it was already
        there (its language then becomes `language`, when one is given)."""
        try:
            with self._tx() as conn:
                conn.execute(
                    insert(t.subscriptions).values(
                        platform=platform,
                        channel=channel,
                        repo=repo,
                        filter=filter_text,
                        language=language,
                        added_by=added_by,
                        created_at=_now(),
                        cadence=cadence,
                    )
                )
        except IntegrityError:
            if language:
                c = t.subscriptions.c
                where = (c.platform == platform, c.channel == channel, c.repo == repo)
                with self._tx() as conn:
                    conn.execute(
                        update(t.subscriptions)
                        .where(*where, c.filter == filter_text, c.cadence == cadence)
                        .values(language=language)
                    )
            return False
        return True

    @translated
    def unsubscribe(
        self,
        platform: str,
        channel: str,
        repo: str,
        *,
        filter_text: str | None = None,
        cadence: str | None = None,
    ) -> int:
        """Remove a channel's subscription with that filter and cadence (every one of the
        scope when `filter_text` / `cadence` is None); returns how many went."""
        c = t.subscriptions.c
        query = delete(t.subscriptions).where(
            c.platform == platform, c.channel == channel, c.repo == repo
        )
        if filter_text is not None:
            query = query.where(c.filter == filter_text)
        if cadence is not None:
            query = query.where(c.cadence == cadence)
        with self._tx() as conn:
            result = conn.execute(query)
        return int(result.rowcount)

    @staticmethod
    def _subscription(row: Any) -> SubscriptionRecord:
        m = row._mapping
        return SubscriptionRecord(
            m["platform"], m["channel"], m["repo"], m["filter"], m["language"], m["cadence"]
        )

    @translated
    def subscription_records(
        self, repo: str | None = None, platform: str | None = None
    ) -> list[SubscriptionRecord]:
        """Subscriptions (of `repo`, of `platform`), oldest first."""
        c = t.subscriptions.c
        query = select(t.subscriptions).order_by(c.id)
        if repo:
            query = query.where(c.repo == repo)
        if platform:
            query = query.where(c.platform == platform)
        with self.engine.connect() as conn:
            return [self._subscription(row) for row in conn.execute(query)]

    def subscriptions(self, repo: str, platform: str | None = None) -> list[tuple[str, str]]:
        """(platform, channel) pairs subscribed to `repo`, each once."""
        pairs = [(s.platform, s.channel) for s in self.subscription_records(repo, platform)]
        return list(dict.fromkeys(pairs))

    @translated
    def channel_subscriptions(self, platform: str, channel: str) -> list[SubscriptionRecord]:
        """Every subscription of one channel, any repo, oldest first."""
        c = t.subscriptions.c
        query = (
            select(t.subscriptions)
            .where(c.platform == platform, c.channel == channel)
            .order_by(c.id)
        )
        with self.engine.connect() as conn:
            return [self._subscription(row) for row in conn.execute(query)]

    # --- locks ----------------------------------------------------------------------------

    @translated
    def acquire_lock(self, name: str, owner: str, ttl: timedelta) -> bool:
        """Take the named lock unless another live owner holds an unexpired one.

        A lock left by a dead process of this host (killed, crashed) is taken over at once
        instead of after its TTL; other hosts' locks can only expire."""
        self._claim(name, owner, 1)
        try:
            held = self._acquire(name, owner, ttl)
        except BaseException:
            self._claim(name, owner, -1)
            raise
        if not held:
            self._claim(name, owner, -1)
        return held

    def _claim(self, name: str, owner: str, step: int) -> int:
        with _CLAIMS_LOCK:
            count = _CLAIMS.get((name, owner), 0) + step
            if count > 0:
                _CLAIMS[(name, owner)] = count
            else:
                _CLAIMS.pop((name, owner), None)
            return count

    def _acquire(self, name: str, owner: str, ttl: timedelta) -> bool:
        now = _now()
        with self._tx() as conn:
            conn.execute(delete(t.locks).where(t.locks.c.name == name, t.locks.c.expires_at < now))
        for _ in range(2):
            try:
                with self._tx() as conn:
                    conn.execute(
                        insert(t.locks).values(name=name, owner=owner, expires_at=now + ttl)
                    )
            except IntegrityError:
                if not self._drop_dead_holder(name, owner):
                    return False
                continue
            return True
        return False

    def _drop_dead_holder(self, name: str, owner: str) -> bool:
        """Delete the lock when its holder is a dead process of this host, or `owner` itself
        with no other thread here claiming it (a release that failed); True if it is gone."""
        with self._tx() as conn:
            holder = conn.execute(select(t.locks.c.owner).where(t.locks.c.name == name)).scalar()
            if holder is None:
                return True
            with _CLAIMS_LOCK:
                stale_own = holder == owner and _CLAIMS.get((name, owner), 0) <= 1
            if not stale_own and not is_dead_owner(holder):
                return False
            conn.execute(delete(t.locks).where(t.locks.c.name == name, t.locks.c.owner == holder))
        logger.warning("took over a lock left by a dead process", extra={"lock": name})
        return True

    @translated
    def release_lock(self, name: str, owner: str) -> None:
        self._claim(name, owner, -1)
        with self._tx() as conn:
            conn.execute(delete(t.locks).where(t.locks.c.name == name, t.locks.c.owner == owner))

    @contextmanager
    def lock(self, name: str, owner: str, ttl: timedelta) -> Iterator[bool]:
        """`with store.lock(...) as held:` — held is False when someone else has it."""
        held = self.acquire_lock(name, owner, ttl)
        try:
            yield held
        finally:
            if held:
                self.release_lock(name, owner)

    # --- runs -----------------------------------------------------------------------------

    @translated
    def start_run(
        self,
        repo: str,
        week: str,
        trigger: str,
        *,
        owner: str = PROCESS_OWNER,
        lease: timedelta | None = None,
    ) -> int:
        """A `running` row; with a `lease`, it counts as abandoned once that runs out unless
        `renew_lease` extends it."""
        now = _now()
        with self._tx() as conn:
            result = conn.execute(
                insert(t.runs).values(
                    repo=repo,
                    period=week,
                    period_kind=period_kind(week),
                    trigger=trigger,
                    started_at=now,
                    outcome=RUNNING,
                    detail={},
                    owner=owner,
                    lease_expires_at=now + lease if lease is not None else None,
                )
            )
            run_id = int(result.inserted_primary_key[0])  # type: ignore[index]
            if owner == PROCESS_OWNER:  # live before any other connection can see the row
                _LIVE_RUNS.add(run_id)
            return run_id

    @translated
    def renew_lease(
        self, run_id: int | None, owner: str, lease: timedelta, locks: Collection[str] = ()
    ) -> bool:
        """Push the run's lease and `owner`'s `locks` to now + `lease`; False when one of the
        locks is no longer ours (it expired and another process took it)."""
        until = _now() + lease
        kept = True
        with self._tx() as conn:
            if run_id is not None:
                conn.execute(
                    update(t.runs)
                    .where(t.runs.c.id == run_id, t.runs.c.outcome == RUNNING)
                    .values(lease_expires_at=until)
                )
            for name in locks:
                result = conn.execute(
                    update(t.locks)
                    .where(t.locks.c.name == name, t.locks.c.owner == owner)
                    .values(expires_at=until)
                )
                kept = kept and result.rowcount == 1
        return kept

    @translated
    def abandon_runs(self) -> int:
        """Mark `running` rows whose lease ran out, or whose process of this host is gone,
        as `abandoned`; returns how many."""
        now = _now()
        c = t.runs.c
        with self._tx() as conn:
            rows = conn.execute(
                select(c.id, c.owner, c.lease_expires_at).where(c.outcome == RUNNING)
            ).all()
            gone = [
                row.id
                for row in rows
                if (row.owner is not None and is_dead_owner(row.owner))
                or (row.owner == PROCESS_OWNER and row.id not in _LIVE_RUNS)
                or (row.lease_expires_at is not None and _aware(row.lease_expires_at) < now)
            ]
            if gone:
                conn.execute(
                    update(t.runs)
                    .where(c.id.in_(gone), c.outcome == RUNNING)
                    .values(outcome=ABANDONED, finished_at=now)
                )
        if gone:
            logger.warning("runs abandoned by their process", extra={"runs": len(gone)})
        return len(gone)

    @translated
    def finish_run(self, run_id: int, outcome: str, detail: dict[str, Any]) -> None:
        _LIVE_RUNS.discard(run_id)  # its worker is done, whether this write lands or not
        with self._tx() as conn:
            conn.execute(
                update(t.runs)
                .where(t.runs.c.id == run_id)
                .values(outcome=outcome, detail=detail, finished_at=_now())
            )

    @translated
    def interrupt_running(self, owner: str | None = None) -> int:
        """Mark runs left `running` (by `owner` only, when given: other processes' runs are
        theirs) as `interrupted`; returns how many."""
        query = update(t.runs).where(t.runs.c.outcome == RUNNING)
        if owner is not None:
            query = query.where(t.runs.c.owner == owner)
        with self._tx() as conn:
            result = conn.execute(query.values(outcome="interrupted", finished_at=_now()))
        return int(result.rowcount)

    @translated
    def last_run(
        self, repo: str | None = None, *, done_only: bool = False, kind: str | None = None
    ) -> RunRecord | None:
        """The newest run (of `repo`, done only, of periods of `kind` when told)."""
        query = select(t.runs).order_by(t.runs.c.id.desc()).limit(1)
        if kind is not None:
            query = query.where(t.runs.c.period_kind == kind)
        if repo:  # an earlier name of a repository that moved: its runs are under the new one
            query = query.where(t.runs.c.repo == self.canonical_repo(repo))
        if done_only:
            query = query.where(t.runs.c.outcome.in_(DONE_OUTCOMES))
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        if not row:
            return None
        m = row._mapping
        finished = _aware(m["finished_at"]) if m["finished_at"] else None
        lease = _aware(m["lease_expires_at"]) if m["lease_expires_at"] else None
        return RunRecord(
            m["id"],
            m["repo"],
            m["period"],
            m["trigger"],
            _aware(m["started_at"]),
            finished,
            m["outcome"],
            m["detail"],
            m["owner"],
            lease,
        )

    # --- language model answers (satisfies narrator.AnswerCache) ------------------------------

    @translated
    def get_model_answer(
        self, content_hash: str, model: str, prompt_version: str, language: str
    ) -> StoredAnswer | None:
        """The cached answer to the same data, model, prompt version and language, if any."""
        c = t.model_answers.c
        query = select(c.answer, c.prompt_tokens, c.completion_tokens).where(
            c.content_hash == content_hash,
            c.model == model,
            c.prompt_version == prompt_version,
            c.language == language,
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return StoredAnswer(row[0], int(row[1]), int(row[2])) if row else None

    @translated
    def save_model_answer(
        self,
        content_hash: str,
        model: str,
        prompt_version: str,
        language: str,
        answer: StoredAnswer,
    ) -> None:
        """Keep (or replace) the answer to this data, model, prompt version and language."""
        row = {
            "content_hash": content_hash,
            "model": model,
            "prompt_version": prompt_version,
            "language": language,
            "answer": answer.content,
            "prompt_tokens": answer.prompt_tokens,
            "completion_tokens": answer.completion_tokens,
            "created_at": _now(),
        }
        keys = ("content_hash", "model", "prompt_version", "language")
        with self._tx() as conn:
            upsert(conn, t.model_answers, keys, [row])

    # --- repositories ------------------------------------------------------------------------

    @translated
    def save_repo_privacy(self, repo: str, private: bool) -> None:
        """Record what GitHub said of `repo` (private or not) when it was last collected."""
        row = {"repo": repo, "private": private, "checked_at": _now()}
        with self._tx() as conn:
            upsert(conn, t.repositories, ("repo",), [row])

    @translated
    def repo_privacy(self, repo: str) -> bool | None:
        """Whether `repo` (or the repository that name moved to) is private as last collected;
        None when it never was."""
        query = select(t.repositories.c.private).where(
            t.repositories.c.repo == self.canonical_repo(repo)
        )
        with self.engine.connect() as conn:
            found = conn.execute(query).scalar()
        return None if found is None else bool(found)

    @translated
    def canonical_repo(self, name: str) -> str:
        """The current name of the repository once called `name` (else `name` itself)."""
        r, a = t.repositories.c, t.repository_aliases.c
        query = (
            select(r.repo)
            .join(t.repository_aliases, a.github_id == r.github_id)
            .where(a.alias == name)
        )
        with self.engine.connect() as conn:
            return conn.execute(query).scalar() or name

    @translated
    def identify_repo(
        self, github_id: int, name: str, private: bool | None, *, asked: str | None = None
    ) -> list[str]:
        """GitHub says its repository `github_id` is `name` now (asked for as `asked`): the
        history stored under its earlier names moves to `name`, and each earlier name becomes
        an alias. Returns the names it moved from just now."""
        r = t.repositories.c
        with self._tx() as conn:
            earlier = known_names(conn, github_id) | ({asked} if asked else set())
            earlier.discard(name)
            aliases = set(
                conn.execute(
                    select(t.repository_aliases.c.alias).where(
                        t.repository_aliases.c.github_id == github_id
                    )
                ).scalars()
            )
            stored = conn.execute(select(r.private).where(r.repo.in_([*earlier, name]))).scalar()
            for old in sorted(earlier):
                carry_history(conn, old, name)
                if old not in aliases:
                    record_alias(conn, old, github_id, _now())
            conn.execute(delete(t.repository_aliases).where(t.repository_aliases.c.alias == name))
            conn.execute(
                delete(t.repositories).where(r.repo.in_(earlier) | (r.github_id == github_id))
            )
            known = private if private is not None else (True if stored is None else stored)
            row = {"repo": name, "private": known, "checked_at": _now(), "github_id": github_id}
            upsert(conn, t.repositories, ("repo",), [row])
        return sorted(earlier - aliases)

    @translated
    def moves_to_announce(self, repo: str, week: str) -> list[str]:
        """Earlier names of `repo` that the digest of `week` says it moved from: moves no
        digest has announced yet, or that this week's digest announced."""
        r, a = t.repositories.c, t.repository_aliases.c
        query = (
            select(a.alias)
            .join(t.repositories, a.github_id == r.github_id)
            .where(r.repo == repo, a.announced_period.is_(None) | (a.announced_period == week))
            .order_by(a.moved_at, a.alias)
        )
        with self.engine.connect() as conn:
            return list(conn.execute(query).scalars())

    @translated
    def announce_moves(self, repo: str, week: str, names: Collection[str]) -> None:
        """The digest of `week` has said that `repo` moved from `names`."""
        if not names:
            return
        a = t.repository_aliases.c
        with self._tx() as conn:
            conn.execute(
                update(t.repository_aliases)
                .where(a.alias.in_(list(names)), a.announced_period.is_(None))
                .values(announced_period=week)
            )

    # --- keys the service makes for itself -----------------------------------------------------

    @translated
    def service_key(self, name: str, make: Callable[[], str]) -> str:
        """The key stored under `name`; the first process to ask stores `make()`, every other
        one (another replica, a restart) reads that same value."""
        query = select(t.service_keys.c.value).where(t.service_keys.c.name == name)
        with self.engine.connect() as conn:
            found = conn.execute(query).scalar()
        if found is not None:
            return str(found)
        try:
            with self._tx() as conn:
                conn.execute(
                    insert(t.service_keys).values(name=name, value=make(), created_at=_now())
                )
        except IntegrityError:
            pass  # another process stored it first: theirs is the key
        with self.engine.connect() as conn:
            return str(conn.execute(query).scalar_one())

    # --- pruning -----------------------------------------------------------------------------

    @translated
    def prune(self, *, events_before: datetime, cache_before: datetime) -> tuple[int, int]:
        """Drop event ids received and cache entries written before the given times;
        returns (events, cache entries) removed."""
        with self._tx() as conn:
            events = conn.execute(
                delete(t.processed_events).where(t.processed_events.c.received_at < events_before)
            ).rowcount
            cached = conn.execute(
                delete(t.http_cache).where(t.http_cache.c.updated_at < cache_before)
            ).rowcount
        return int(events), int(cached)

    # --- inbound event de-duplication -------------------------------------------------------

    @translated
    def remember_event(self, event_id: str, platform: str) -> bool:
        """True the first time `event_id` is seen; False for a retry of a handled event."""
        try:
            with self._tx() as conn:
                conn.execute(
                    insert(t.processed_events).values(
                        event_id=event_id, platform=platform, received_at=_now()
                    )
                )
        except IntegrityError:
            return False
        return True
