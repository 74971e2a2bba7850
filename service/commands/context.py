"""What the command engine works with: the digest reader (and its cache), subscriptions, the
caller, the regenerate gate, the live-lookup quota, and the EngineContext an adapter builds
once."""

from __future__ import annotations

import math
import threading
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Generic, Protocol, TypeVar, cast

from service.commands.kinds import Renderings
from service.core.models import Digest, Period, PullRequest, ScoredPR
from service.core.profile import RepoProfile
from service.core.scope import Scope
from service.errors import ServiceError

REGENERATE_INTERVAL = timedelta(seconds=60)
DIGEST_CACHE_TTL = timedelta(seconds=60)
DIGEST_CACHE_ENTRIES = 32
LIVE_LOOKUP_WINDOW = timedelta(hours=1)
LIVE_LOOKUPS_PER_WINDOW = 20  # PR_LOOKUPS_PER_HOUR's default
LIVE_LOOKUP_USERS = 10_000  # users remembered before the idle ones are forgotten
LIVE_LOOKUP_SECONDS = 20.0  # PR_LOOKUP_TIMEOUT_SECONDS's default


class DigestReader(Protocol):
    """Read access to stored digests (service.store.repository.Store satisfies it)."""

    def get_digest(self, repo: str, period: Period, language: str) -> Digest | None: ...
    def latest_digest(self, repo: str, language: str) -> Digest | None: ...
    def list_periods(self, repo: str, language: str | None = None) -> list[str]: ...


K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")


def _in_background(work: Callable[[], None]) -> None:
    threading.Thread(target=work, name="digest-refresh", daemon=True).start()


@dataclass
class _Loads(Generic[K, V]):
    """Values kept `ttl`, each loaded once however many callers want it at the same moment
    (single-flight): the first caller of a missing key loads it and the others wait for that
    load; a value past its `ttl` is still served while one refresh runs off the request path."""

    clock: Callable[[], datetime]
    ttl: timedelta
    max_entries: int
    spawn: Callable[[Callable[[], None]], None]
    _values: dict[K, tuple[datetime, V]] = field(default_factory=dict)
    _pending: dict[K, Future[V]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def get(
        self, key: K, load: Callable[[], V], current: Callable[[V], bool] = lambda _: False
    ) -> V:
        """The value of `key`; past its ttl, `current(kept)` tells (cheaply, off the request
        path) whether the kept value is still the stored one, and only if not is it loaded."""
        with self._lock:
            hit = self._values.get(key)
            if hit is not None and self.clock() - hit[0] < self.ttl:
                return hit[1]
            pending, owner = self._claim(key)
        if hit is not None:  # stale: served while the refresh runs in the background
            if owner:
                kept = hit[1]
                refresh = lambda: kept if current(kept) else load()  # noqa: E731
                self._spawn_refresh(key, refresh, pending)
            return hit[1]
        if owner:
            self._load(key, load, pending, quiet=False)
        return pending.result()

    def _spawn_refresh(self, key: K, load: Callable[[], V], pending: Future[V]) -> None:
        """The refresh of `key` started off the request path; when no thread can be started,
        the claim is given up (the next caller tries again) and the stale value still served."""
        try:
            self.spawn(lambda: self._load(key, load, pending, quiet=True))
        except BaseException as exc:
            with self._lock:
                if self._pending.get(key) is pending:
                    del self._pending[key]
            pending.set_exception(exc)
            pending.exception()  # retrieved: nobody waits on a refresh

    def _claim(self, key: K) -> tuple[Future[V], bool]:
        """The load of `key` in flight, and whether this caller is the one to run it."""
        pending = self._pending.get(key)
        if pending is not None:
            return pending, False
        pending = self._pending[key] = Future()
        return pending, True

    def _load(self, key: K, load: Callable[[], V], pending: Future[V], *, quiet: bool) -> None:
        try:
            value = load()
        except BaseException as exc:  # handed to every waiter; a refresh keeps the stale value
            with self._lock:
                if self._pending.get(key) is pending:
                    del self._pending[key]
            pending.set_exception(exc)
            if quiet:
                pending.exception()  # retrieved: a failed refresh is retried by the next caller
            return
        with self._lock:
            if self._pending.get(key) is pending:  # not forgotten meanwhile
                del self._pending[key]
                self._store(key, value)
        pending.set_result(value)

    def _store(self, key: K, value: V) -> None:
        self._values.pop(key, None)
        if len(self._values) >= self.max_entries:
            self._values.pop(next(iter(self._values)))
        self._values[key] = (self.clock(), value)

    def values(self) -> list[V]:
        with self._lock:
            return [value for _, value in self._values.values()]

    def forget(self, drop: Callable[[K], bool]) -> None:
        """Forget the keys `drop` picks, loads in flight included (their answers are not kept)."""
        with self._lock:
            for key in [k for k in self._values if drop(k)]:
                del self._values[key]
            for key in [k for k in self._pending if drop(k)]:
                del self._pending[key]


DigestKey = tuple[str, str, str]
WeeksKey = tuple[str, str | None]


@dataclass(frozen=True)
class _Indexed:
    """A parsed digest, its PRs by number (a 2,000-PR digest is not searched line by line) and
    the store's revision token it was read under (None: unknown, read again when stale), and
    the views commands worked out from it (`CachedReader.view`), kept as long as it is."""

    digest: Digest | None
    by_number: dict[int, ScoredPR]
    revision: str | None = None
    views: dict[Hashable, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, digest: Digest | None, revision: str | None = None) -> _Indexed:
        prs = digest.prs if digest is not None else []
        return cls(digest, {p.number: p for p in reversed(prs)}, revision)


def _revisions(reader: DigestReader) -> Callable[[str, Period, str], str | None] | None:
    """The reader's `digest_revision(repo, period, language)` when it has one (Store does): a
    token new on every save, so a kept digest is checked without reading it again."""
    revision = getattr(reader, "digest_revision", None)
    return revision if callable(revision) else None


class CachedReader:
    """A DigestReader that keeps parsed digests for `ttl`: parsing a 2,000-PR digest costs
    hundreds of ms, a command should answer in tens. Each digest is read once however many
    commands ask for it at the same moment; once past `ttl` the kept one is still served while
    one background read refreshes it, so no command waits on the store for a digest it has
    seen. That refresh first asks the store for the digest's revision token (when the reader
    has `digest_revision`, as Store does) and keeps the parsed digest while it is unchanged:
    a 2,000-PR digest is not parsed again every `ttl` for nothing. Regenerate calls
    `invalidate`; a digest rebuilt by another process is seen after at most `ttl` (and one
    refresh)."""

    def __init__(
        self,
        reader: DigestReader,
        clock: Callable[[], datetime],
        ttl: timedelta = DIGEST_CACHE_TTL,
        max_entries: int = DIGEST_CACHE_ENTRIES,
        spawn: Callable[[Callable[[], None]], None] = _in_background,
        kept: Callable[[], None] | None = None,
        *,
        timezone: str,
    ) -> None:
        self.reader = reader
        self.clock = clock
        self.timezone = timezone  # a stored label (the newest week) is read as a period of it
        self.ttl = ttl
        # called once a digest read from the store is parsed and about to be kept (the server
        # freezes it out of the garbage collector's passes: runtime/long_lived.py)
        self.kept = kept
        self._digests: _Loads[DigestKey, _Indexed] = _Loads(clock, ttl, max_entries, spawn)
        self._weeks: _Loads[WeeksKey, list[str]] = _Loads(clock, ttl, max_entries, spawn)

    def _read(self, repo: str, period: Period, language: str, token: str | None) -> _Indexed:
        indexed = _Indexed.of(self.reader.get_digest(repo, period, language), token)
        if self.kept is not None:
            self.kept()
        return indexed

    def _indexed(self, repo: str, period: Period, language: str) -> _Indexed:
        key = (repo, period.label, language)  # kept by label: invalidate forgets by it
        revision = _revisions(self.reader)
        if revision is None:

            def load() -> _Indexed:
                return self._read(repo, period, language, None)

            return self._digests.get(key, load)

        def stamp() -> str | None:
            return revision(repo, period, language)

        def load_revised() -> _Indexed:  # the token first: a save in between reads again later
            return self._read(repo, period, language, stamp())

        def current(kept: _Indexed) -> bool:
            return kept.revision is not None and stamp() == kept.revision

        return self._digests.get(key, load_revised, current)

    def get_digest(self, repo: str, period: Period, language: str) -> Digest | None:
        return self._indexed(repo, period, language).digest

    def find_pr(self, digest: Digest, number: int) -> ScoredPR | None:
        """`digest.pr(number)` by index when `digest` is one this cache holds."""
        for indexed in self._digests.values():
            if indexed.digest is digest:
                return indexed.by_number.get(number)
        return digest.pr(number)

    def view(self, digest: Digest, key: Hashable, work: Callable[[], T]) -> T:
        """`work()`, worked out once per `key` while `digest` is one this cache holds (the
        top PRs, a severity's risks and their PRs): a 2,000-PR digest is not ranked or scanned
        again by every command that asks the same. Its result is shared: never changed."""
        for indexed in self._digests.values():
            if indexed.digest is digest:
                if key not in indexed.views:  # two threads at once: the same result, twice
                    indexed.views[key] = work()
                return cast(T, indexed.views[key])
        return work()

    def list_periods(self, repo: str, language: str | None = None) -> list[str]:
        load = lambda: list(self.reader.list_periods(repo, language))  # noqa: E731
        return list(self._weeks.get((repo, language), load))

    def latest_digest(self, repo: str, language: str) -> Digest | None:
        weeks = self.list_periods(repo, language)
        if not weeks:
            return None
        # the store lists labels (its keys): the newest is read into its Period here, once
        return self.get_digest(repo, Period.of_label(weeks[0], self.timezone), language)

    def invalidate(self, repo: str, period: Period | None = None) -> None:
        """Forget `repo` (one period, or all of it) so the next answer reads the store."""
        label = period.label if period is not None else None  # the cache's key, as the store's
        self._digests.forget(lambda k: k[0] == repo and label in (None, k[1]))
        self._weeks.forget(lambda k: k[0] == repo)


def find_pr(reader: DigestReader, digest: Digest, number: int) -> ScoredPR | None:
    """The PR `number` of `digest`: from the cache's index when `reader` keeps one."""
    if isinstance(reader, CachedReader):
        return reader.find_pr(digest, number)
    return digest.pr(number)


@dataclass(frozen=True, eq=False)
class Kept(Generic[T]):
    """A view worked out from a cached digest, and the renderings of the answers made from it
    (`AnswerBase.keep_renderings`): both live as long as the digest is kept."""

    value: T
    renderings: Renderings = field(default_factory=Renderings)


def digest_view(reader: DigestReader, digest: Digest, key: Hashable, work: Callable[[], T]) -> T:
    """`work()` on `digest`, kept with it when `reader` is a cache holding it (CachedReader.view);
    a digest narrowed by a filter, or read without a cache, is worked on every time."""
    if isinstance(reader, CachedReader):
        return reader.view(digest, key, work)
    return work()


class SubscriptionLike(Protocol):
    """One channel's subscription to a scope (`repo`: a repository or a family): its filter
    (grammar text, "" for all), language and cadence."""

    @property
    def repo(self) -> str: ...
    @property
    def filter(self) -> str: ...
    @property
    def language(self) -> str | None: ...
    @property
    def cadence(self) -> str: ...


class Subscriptions(Protocol):
    """Channels that get a scope's cards, each with a filter, a language and a cadence (Store
    satisfies it)."""

    def subscribe(
        self,
        platform: str,
        channel: str,
        repo: str,
        added_by: str | None,
        *,
        filter_text: str = "",
        language: str | None = None,
        cadence: str = ...,
    ) -> bool: ...
    def unsubscribe(
        self,
        platform: str,
        channel: str,
        repo: str,
        *,
        filter_text: str | None = None,
        cadence: str | None = None,
    ) -> int: ...
    def channel_subscriptions(self, platform: str, channel: str) -> Sequence[SubscriptionLike]: ...


class RunResultLike(Protocol):
    """What service.pipeline.jobs.RunResult offers the engine (outcome: ok | partial | locked |
    failed)."""

    repo: str
    period: Period
    outcome: str
    digest: Digest | None
    error: str | None
    failure: ServiceError | None  # the error behind a failed outcome, worded for the user


@dataclass(frozen=True)
class Caller:
    """Who asked, and where: the platform's user id and channel (chat) id."""

    user_id: str
    platform: str
    channel: str = ""


@dataclass
class Regenerations:
    """Regenerate's in-process gate: one run per (repo, period) at a time, and a per-user rate."""

    interval: timedelta = REGENERATE_INTERVAL
    # the (repo, period label) pairs being rebuilt: a label is the period's key, as in the store
    _running: set[tuple[str, str]] = field(default_factory=set)
    _last: dict[str, datetime] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def wait_seconds(self, user: str, now: datetime) -> int:
        """Seconds `user` must still wait before another regenerate (0: may go)."""
        with self._lock:
            last = self._last.get(user)
        if last is None or now - last >= self.interval:
            return 0
        return max(math.ceil((self.interval - (now - last)).total_seconds()), 1)

    def try_start(self, user: str, repo: str, period: Period, now: datetime) -> bool:
        """Claim (repo, period); False when a regenerate of it is already running."""
        with self._lock:
            if (repo, period.label) in self._running:
                return False
            self._running.add((repo, period.label))
            self._last[user] = now
            return True

    def finish(self, repo: str, period: Period) -> None:
        """Release (repo, period) once the rebuild ended, however it ended."""
        with self._lock:
            self._running.discard((repo, period.label))

    def is_running(self, repo: str, period: Period) -> bool:
        with self._lock:
            return (repo, period.label) in self._running


@dataclass
class LiveLookups:
    """A per-user quota on answers that spend GitHub quota (`pr N` for a PR not in the store):
    at most `limit` in any `window`, so one chat user can't drain the token."""

    limit: int = LIVE_LOOKUPS_PER_WINDOW
    window: timedelta = LIVE_LOOKUP_WINDOW
    # a lookup still running after this is answered "GitHub is slow" (it ends on its own)
    timeout: float = LIVE_LOOKUP_SECONDS
    _taken: dict[str, deque[datetime]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, user: str, now: datetime) -> int:
        """Count one lookup for `user` and return 0, or the seconds until one is allowed."""
        with self._lock:
            taken = self._taken.setdefault(user, deque())
            while taken and now - taken[0] >= self.window:
                taken.popleft()
            if len(taken) >= self.limit:
                return max(math.ceil((self.window - (now - taken[0])).total_seconds()), 1)
            taken.append(now)
            if len(self._taken) > LIVE_LOOKUP_USERS:
                self._forget_idle(now)
            return 0

    def _forget_idle(self, now: datetime) -> None:
        for user in [u for u, t in self._taken.items() if not t or now - t[-1] >= self.window]:
            del self._taken[user]


def bounded(call: Callable[[], T], seconds: float) -> T:
    """`call()` in a daemon thread, waited for at most `seconds` (TimeoutError after that; the
    call then ends on its own, bounded by the client's own timeouts and retries)."""
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed to the waiting caller, raised there
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="pr-lookup", daemon=True).start()
    if not done.wait(seconds):
        raise TimeoutError(f"no answer within {seconds:g} s")
    if "error" in outcome:
        raise outcome["error"]
    value: T = outcome["value"]
    return value


@dataclass
class EngineContext:
    """Everything answer() needs, passed in by the adapter (wiring builds it once)."""

    reader: DigestReader
    repos: list[str]
    language: str
    timezone: str
    clock: Callable[[], datetime]
    admins: frozenset[str] = frozenset()
    fetch_pr: Callable[[str, int], PullRequest] | None = None
    subscriptions: Subscriptions | None = None
    report_url: Callable[[str, str], str] | None = None
    regenerations: Regenerations = field(default_factory=Regenerations)
    # the repo's profile: canonical module names (`npu` → `hardware`) and the known ones
    profile_for: Callable[[str], RepoProfile] | None = None
    # a channel's own language (SLACK_CHANNELS=C1:en, a subscription's lang:), or None
    channel_language: Callable[[str, str], str | None] | None = None
    lookups: LiveLookups = field(default_factory=LiveLookups)
    # whether `caller` may read `repo` (a private repository: only where its digest goes, and
    # admins); None: everyone may read every repository
    may_read: Callable[[Caller, str], bool] | None = None

    # a repository's name now: an earlier name of one that moved (transfer, rename) → the new
    current_name: Callable[[str], str] | None = None
    # what a name of `repos` stands for: one repository or a family of them (core/scope.py)
    scope_for: Callable[[str], Scope] = Scope.one

    def is_admin(self, caller: Caller) -> bool:
        return caller.user_id in self.admins

    def can_read(self, caller: Caller, repo: str) -> bool:
        return self.may_read is None or self.is_admin(caller) or self.may_read(caller, repo)

    def language_for(self, caller: Caller, asked: str | None = None) -> str:
        """`lang:` in the command, else the channel's language, else the default."""
        if asked:
            return asked
        if self.channel_language is not None and caller.channel:
            try:
                found = self.channel_language(caller.platform, caller.channel)
            except ServiceError:  # the store is down: the answer (saying so) still goes out
                found = None
            if found:
                return found
        return self.language

    def forget(self, repo: str, period: Period) -> None:
        """After a rebuild: drop the cached digest (when the reader caches) of (repo, period)."""
        if isinstance(self.reader, CachedReader):
            self.reader.invalidate(repo, period)
