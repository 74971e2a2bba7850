"""What keeps the weekly promise: a run's lease and the heartbeat that renews it, the backoff
of retries, and which weeks are owed (for the scheduler, /healthz and /metrics alike)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from types import TracebackType

from apscheduler.triggers.base import BaseTrigger

from service import operator_text
from service.core.models import Period
from service.core.periods import owed_month
from service.core.weeks import owed_week
from service.observe.metrics import Metrics
from service.store.repository import ABANDONED, RUNNING, RunRecord, Store

logger = logging.getLogger(__name__)

DEFAULT_LEASE = timedelta(minutes=5)
DEFAULT_RETRY_FIRST = timedelta(seconds=30)
DEFAULT_RETRY_CAP = timedelta(hours=1)
BEATS_PER_LEASE = 3  # a renewal every third of the lease: two may fail before it runs out
FAILED_OUTCOMES = ("failed", ABANDONED, "interrupted")
HIDDEN_REPO = "a repository not known to be public"


@dataclass(frozen=True)
class RetryPolicy:
    """The wait before the n-th retry of an owed week: `first`, doubling, at most `cap`."""

    first: timedelta = DEFAULT_RETRY_FIRST
    cap: timedelta = DEFAULT_RETRY_CAP

    def delay(self, failures: int) -> timedelta:
        doublings = min(max(0, failures - 1), 32)
        delay: timedelta = min(self.first * 2**doublings, self.cap)
        return delay


class Heartbeat:
    """`with Heartbeat(beat, lease):` calls `beat()` every third of `lease` in a daemon thread
    while the block runs; a failing beat is logged (once per failure spell) and tried again."""

    def __init__(self, beat: Callable[[], object], lease: timedelta, name: str) -> None:
        self._beat = beat
        self._interval = lease.total_seconds() / BEATS_PER_LEASE
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"heartbeat-{name}", daemon=True)
        self._failing = False

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(
        self,
        _type: type[BaseException] | None,
        _value: BaseException | None,
        _traceback: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                self._beat()
            except Exception as exc:  # the database may be down: the lease will tell
                if not self._failing:
                    logger.warning(
                        operator_text.LOG_LEASE_RENEWAL_FAILED, extra={"error": str(exc)}
                    )
                self._failing = True
            else:
                self._failing = False


def catch_up_due(
    last_done: str | None, now: datetime, timezone: str, trigger: BaseTrigger, kind: str = "week"
) -> Period | None:
    """The period to catch up: the last complete week (or month, for `kind` month) when it
    was not done and its tick has already passed."""
    owed = owed_month if kind == "month" else owed_week
    due = owed(last_done, now, timezone)
    if due is None:
        return None
    first_tick = trigger.get_next_fire_time(None, due.end)
    if first_tick is None or first_tick > now:
        return None  # its own tick is still ahead: the schedule will do it
    return due


@dataclass(frozen=True)
class RepoRuns:
    """One repository's runs as /healthz and /metrics tell them."""

    repo: str
    owed: Period | None
    last_attempt: RunRecord | None
    last_success: RunRecord | None
    now: datetime
    public: bool = False  # GitHub said so at the last collection: the probe may name it

    @property
    def attempt_state(self) -> str | None:
        return self.last_attempt.state(self.now) if self.last_attempt else None

    @property
    def running(self) -> bool:
        return self.attempt_state == RUNNING

    def reason(self) -> str | None:
        """Why this repository makes the service `degraded`, or None. A repository not known
        to be public is not named (the probe answers anyone)."""
        shown = self.repo if self.public else HIDDEN_REPO
        state = self.attempt_state
        if state in FAILED_OUTCOMES and self.last_attempt is not None:
            error = str((self.last_attempt.detail or {}).get("error") or "")
            what = f"last run of {shown} {self.last_attempt.period} {state}"
            return f"{what}: {error.replace(self.repo, shown)}" if error else what
        if self.owed is not None and not self.running:
            return f"{shown} {self.owed.label} is owed: not posted yet"
        return None


class RunWatch:
    """Which weeks are owed and how the last runs went, read from the store (so every process
    sees the same answer, whichever of them ran the week)."""

    def __init__(
        self,
        store: Store,
        *,
        repos: Sequence[str],
        timezone: str,
        trigger: BaseTrigger,
        clock: Callable[[], datetime],
        kind: str = "week",
        scopes: Callable[[], Sequence[str]] | None = None,
    ) -> None:
        self.store = store
        self.repos = list(repos)
        # the scopes a cadence's job runs now (routes of that cadence), when they change with
        # the subscriptions; None: `repos`
        self.scopes = scopes
        self.timezone = timezone
        self.trigger = trigger
        self.clock = clock
        self.kind = kind  # the cadence watched: `week`, or `month` for the monthly job

    def owed(self, repo: str | None = None) -> Period | None:
        """The week (month) a catch-up would run now for `repo` (None: nothing owed)."""
        last = self.store.last_run(repo, done_only=True, kind=self.kind)
        done = last.period if last else None
        return catch_up_due(done, self.clock(), self.timezone, self.trigger, self.kind)

    def first_owed(self) -> Period | None:
        """The owed week of the first repository that owes one (every repo is checked)."""
        if self.scopes is not None:
            repos: list[str | None] = list(self.scopes())
            if not repos:  # no route of this cadence: nothing is owed to nobody
                return None
        else:
            repos = list(self.repos) or [None]
        for repo in repos:
            due = self.owed(repo)
            if due is not None:
                return due
        return None

    def repo_runs(self) -> list[RepoRuns]:
        now = self.clock()
        return [
            RepoRuns(
                repo=repo,
                owed=self.owed(repo),
                last_attempt=self.store.last_run(repo),
                last_success=self.store.last_run(repo, done_only=True),
                now=now,
                public=self.store.repo_privacy(repo) is False,
            )
            for repo in self.repos
        ]


def observe_runs(metrics: Metrics, watch: RunWatch) -> None:
    """Set the run gauges of /metrics from the database (called before each scrape)."""
    for runs in watch.repo_runs():
        attempt = runs.last_attempt
        success = runs.last_success
        metrics.runs_read(
            runs.repo,
            (attempt.finished_at or attempt.started_at).timestamp() if attempt else None,
            (success.finished_at or success.started_at).timestamp() if success else None,
            1 if runs.owed is not None else 0,
        )
