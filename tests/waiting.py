"""The one way a test waits for work done elsewhere (a background thread, a fake server, a
child process): poll a predicate until it holds, or fail the test with what was awaited."""

from __future__ import annotations

import time
from collections.abc import Callable

# a bound for a failing wait; a passing one returns as soon as its predicate holds (process
# tests on a loaded CI machine need the long bound)
WAIT_SECONDS = 90.0
POLL_SECONDS = 0.02


def wait_for(
    predicate: Callable[[], object],
    timeout: float = WAIT_SECONDS,
    what: str | Callable[[], str] = "",
) -> None:
    """Return as soon as `predicate()` is truthy; AssertionError after `timeout` seconds.

    `what` (or, when empty, the predicate's name) goes into the failure so a timeout says what
    never happened; a callable is asked then (e.g. a process's log at the time of failure)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            label = what() if callable(what) else what
            label = label or getattr(predicate, "__name__", "condition")
            raise AssertionError(f"not in time ({timeout:g} s): {label}")
        time.sleep(POLL_SECONDS)  # the polling interval, not a wait for an event
