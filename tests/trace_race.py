"""A thread that starts while another installs its trace function can die before running a
line under coverage on CPython 3.11: `threading` calls `sys.settrace(hook)` as each thread
starts (coverage sets the hook), and `sys.settrace` raises "Cannot install a trace function
while another trace function is being installed" when another thread is inside it at that
moment (python/cpython#98257). A websockets client's receive thread died of it in CI and its
handshake timed out. `retry_thread_trace()` gives `threading` a `sys` whose `settrace` waits and
tries again on that one error; the service is untouched (no trace hook runs in production)."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any

RACE = "another trace function is being installed"
TRIES = 200
PAUSE_SECONDS = 0.001


class _RetryingSys:
    """`sys` for `threading`, with `settrace` retried on the race (everything else is sys's)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(sys, name)

    @staticmethod
    def settrace(function: Callable[..., Any] | None) -> None:
        for _ in range(TRIES):
            try:
                sys.settrace(function)
                return
            except RuntimeError as exc:
                if RACE not in str(exc):
                    raise
                time.sleep(PAUSE_SECONDS)
        sys.settrace(function)


def retry_thread_trace() -> None:
    """Make each new thread's trace installation survive the race (idempotent)."""
    if sys.version_info < (3, 12) and not isinstance(threading._sys, _RetryingSys):  # type: ignore[attr-defined]
        threading._sys = _RetryingSys()  # type: ignore[attr-defined]
