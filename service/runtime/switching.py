"""A shorter GIL switch interval while the web app serves.

The server is one process: uvicorn's event loop answers `/livez` (and reads every request off
its socket) while worker threads render answers and bolt's dispatch threads run listeners, all
taking turns at the GIL. A thread waiting for it asks the holder to let go after the switch
interval (5 ms by default), and a request on the loop needs several turns: with ten busy
threads, `/livez` waited 200-400 ms behind them at 50 parallel commands. At 1 ms the loop gets
its turns five times sooner: `/livez` worst case 209-400 → 78-125 ms and commands' p99
437-612 → 295-316 ms on the same load (benchmarks/README.md, "Fourth pass"), for ~5-10 %
more CPU a command. The interval is process-wide: the first app to start serving sets it and
the last to stop puts back what it was (tests run several apps in one process)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

SERVING_SWITCH_INTERVAL_S = 0.001

_lock = threading.Lock()
_serving = 0
_saved = sys.getswitchinterval()


@contextmanager
def quick_turns() -> Iterator[None]:
    """Run the block (an app's lifespan) with the GIL switch interval at
    SERVING_SWITCH_INTERVAL_S, or the one set already when shorter."""
    global _serving, _saved
    with _lock:
        if _serving == 0:
            _saved = sys.getswitchinterval()
            sys.setswitchinterval(min(_saved, SERVING_SWITCH_INTERVAL_S))
        _serving += 1
    try:
        yield
    finally:
        with _lock:
            _serving -= 1
            if _serving == 0:
                sys.setswitchinterval(_saved)
