"""A cadence's watch over the period it owes: the catch-up at start, then a retry whenever the
planned check comes due. A period still owed after an attempt (failed, abandoned, locked by a
run that died) is tried again after a backoff (RUN_RETRY_FIRST_SECONDS, doubling, at most
RUN_RETRY_MAX_SECONDS), and checked at least that often anyway, so a period another process
left owed is found too."""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime
from typing import Protocol

from service.core.models import Period
from service.errors import ServiceError
from service.pipeline.runs import RetryPolicy
from service.runtime.scheduler.rows import utc_now

logger = logging.getLogger(__name__)


class Owing(Protocol):
    """What the retries ask of a cadence: the period it owes, and to catch it up."""

    def owed(self) -> Period | None: ...

    def catch_up(self, kind: str = "catch-up") -> bool: ...


class Retries:
    """Consecutive attempts that left a period owed, and when to look again."""

    def __init__(self, cadence: Owing, retry: RetryPolicy) -> None:
        self.cadence = cadence
        self.retry = retry
        self._plan = threading.Condition()
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._caught_up = threading.Event()
        self.failures = 0
        self.next_check: datetime | None = None  # wall time, for logs
        self._next_due: float | None = None  # time.monotonic() of the next check

    def start(self, catch_up: bool) -> None:
        self._thread = threading.Thread(
            target=self._watch_owed, args=(catch_up,), name="verl-week-catch-up", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """No more retries: the watching thread ends."""
        with self._plan:
            self._stopping = True
            self._plan.notify_all()

    def join_catch_up(self, timeout: float | None = None) -> None:
        """Wait for the catch-up at start (if the watch was started)."""
        if self._thread is not None:
            self._caught_up.wait(timeout)

    def _watch_owed(self, catch_up: bool) -> None:
        if catch_up:
            self._attempt("catch-up")
        else:
            self.plan_next_check()
        self._caught_up.set()
        while self._wait_for_check():
            self._attempt("retry")

    def _attempt(self, kind: str) -> None:
        try:
            self.cadence.catch_up(kind)
        except ServiceError as exc:  # the database is down, say: one line, the retry follows
            logger.warning("catch-up failed", extra={"kind": kind, "error": exc.message})
        except Exception:  # the thread's boundary: the planned retry tries again
            logger.exception("catch-up failed", extra={"kind": kind})
        self.plan_next_check()

    def _wait_for_check(self) -> bool:
        """Sleep until the planned check (True) or until shutdown (False)."""
        with self._plan:
            while not self._stopping:
                due = self._next_due
                wait = due - time.monotonic() if due is not None else None
                if wait is not None and wait <= 0:
                    return True
                self._plan.wait(wait)
            return False

    def plan_next_check(self) -> None:
        """After an attempt: a period still owed (or a database that can't say) is retried
        after the backoff; with nothing owed the next look is one cap away."""
        try:
            owed = self.cadence.owed()
            unknown = None
        except Exception as exc:  # the database is down: the period may well still be owed
            owed, unknown = None, str(exc)
        with self._plan:
            if owed is None and unknown is None:
                self.failures = 0
                delay = self.retry.cap
            else:
                self.failures += 1
                delay = self.retry.delay(self.failures)
            # the wait is real time (monotonic), whatever clock decides which period is owed
            self._next_due = time.monotonic() + delay.total_seconds()
            self.next_check = utc_now() + delay
            if self.failures:
                self._log_retry(owed.label if owed else "unknown", self.next_check, unknown)
            self._plan.notify_all()

    def _log_retry(self, label: str, retry_at: datetime, unknown: str | None) -> None:
        extra = {
            "week": label,  # the log's key, as before the period had its name
            "failures": self.failures,
            "retry_at": retry_at.isoformat(),
            "error": unknown,
        }
        logger.warning("week still owed: retry planned", extra=extra)
