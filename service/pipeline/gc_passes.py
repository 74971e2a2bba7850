"""Fewer passes of Python's cyclic garbage collector while a period is built.

Building a big week allocates millions of objects that live until the digest is done (the
collected PRs, ~300,000 parsed patch lines, their texts): at the default threshold (a pass every
700 new container objects) the collector walks them again and again, ~1 s of CPU at 2,046 PRs.
They are freed by reference counting, not by the collector, so passes every 50,000 objects
find as much and cost a tenth. The threshold is process-wide: the first build to start raises
it and the last to finish puts back what it was (the web app may run builds in threads)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

BUILD_GEN0_THRESHOLD = 50_000

_lock = threading.Lock()
_builds = 0
_saved: tuple[int, int, int] = gc.get_threshold()


@contextmanager
def fewer_gc_passes() -> Iterator[None]:
    """Run the block with the young generation collected every BUILD_GEN0_THRESHOLD objects
    (or the threshold set already, when higher)."""
    global _builds, _saved
    with _lock:
        if _builds == 0:
            _saved = gc.get_threshold()
            gc.set_threshold(max(_saved[0], BUILD_GEN0_THRESHOLD), _saved[1], _saved[2])
        _builds += 1
    try:
        yield
    finally:
        with _lock:
            _builds -= 1
            if _builds == 0:
                gc.set_threshold(*_saved)
