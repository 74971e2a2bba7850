"""The cadences APScheduler can reach in this process. APScheduler's SQLAlchemy job store pickles
a *reference* to the job function, so every stored job names `JOB_FUNCTION` (the package's
`_run_registered(job_id)`, a name kept since the scheduler was one module); the cadence it runs
is registered here at start-up."""

from __future__ import annotations

import logging
import threading
from typing import Protocol

logger = logging.getLogger(__name__)

# what the job store keeps for every job: `service.runtime.scheduler._run_registered`
JOB_FUNCTION = "service.runtime.scheduler:_run_registered"


class Ticking(Protocol):
    def tick(self) -> None: ...


_REGISTRY: dict[str, Ticking] = {}
_REGISTRY_LOCK = threading.Lock()


def register(job_id: str, target: Ticking) -> None:
    with _REGISTRY_LOCK:
        _REGISTRY[job_id] = target


def unregister(job_id: str, target: Ticking) -> None:
    """Forget `target` as the runner of `job_id` (a newer registration is left alone)."""
    with _REGISTRY_LOCK:
        if _REGISTRY.get(job_id) is target:
            del _REGISTRY[job_id]


def run_registered(job_id: str) -> None:
    """The job function APScheduler stores: run the callable registered for `job_id`."""
    with _REGISTRY_LOCK:
        target = _REGISTRY.get(job_id)
    if target is None:
        logger.warning("scheduled job has no runner in this process", extra={"job": job_id})
        return
    target.tick()
