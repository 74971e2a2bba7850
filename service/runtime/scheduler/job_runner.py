"""Running one cadence's job: never two at once in one process, counted while in flight (so a
shutdown can wait for it), timed and logged, its failures logged at the job's boundary."""

from __future__ import annotations

import logging
import threading
import time

from service.errors import ServiceError
from service.runtime.scheduler.rows import Job

logger = logging.getLogger(__name__)


def _outcome_counts(result: object) -> dict[str, object]:
    """`runs` and `outcomes` ({"ok": 2, "locked": 1}) when the job returned run results."""
    if not isinstance(result, list):
        return {}
    outcomes: dict[str, int] = {}
    for item in result:
        outcome = str(getattr(item, "outcome", "unknown"))
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    return {"runs": len(result), "outcomes": outcomes}


class JobRunner:
    """One cadence's runs: a tick and a catch-up of the cadence never overlap in one process."""

    def __init__(self) -> None:
        self._work = threading.Lock()
        self._in_flight = 0
        self._idle = threading.Condition()

    def run(self, kind: str, job: Job) -> object:
        """Run `job` (a `schedule`, `catch-up` or `retry`); None when it failed."""
        with self._idle:
            self._in_flight += 1
        started = time.monotonic()
        try:
            with self._work:
                result = job()
            seconds = round(time.monotonic() - started, 3)
            extra = {"kind": kind, "seconds": seconds, **_outcome_counts(result)}
            logger.info("scheduled job done", extra=extra)
            return result
        except ServiceError as exc:  # a failure we named (database down): one line, no trace
            logger.warning("scheduled job failed", extra={"kind": kind, "error": exc.message})
            return None
        except Exception:  # the job's boundary: logged with its kind, a retry follows
            logger.exception("scheduled job failed", extra={"kind": kind})
            return None
        finally:
            with self._idle:
                self._in_flight -= 1
                self._idle.notify_all()

    def wait_idle(self, deadline: float) -> bool:
        """Block until no run is in flight (True), or `deadline` (of time.monotonic()) passes
        (False)."""
        with self._idle:
            while self._in_flight:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._idle.wait(remaining)
        return True
