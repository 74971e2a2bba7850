"""The test run's guard against CPython 3.11's settrace race (tests/trace_race.py)."""

from __future__ import annotations

import sys
import threading

import pytest

from tests.trace_race import _RetryingSys


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the race is CPython 3.11's")
def test_threads_install_their_trace_through_the_retrying_sys() -> None:
    assert isinstance(threading._sys, _RetryingSys)  # type: ignore[attr-defined]
    assert threading._sys.stderr is sys.stderr  # type: ignore[attr-defined]
    ran: list[bool] = []
    worker = threading.Thread(target=lambda: ran.append(True))
    worker.start()
    worker.join(5)
    assert ran == [True]
