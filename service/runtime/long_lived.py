"""Digests a server keeps are kept out of the cyclic garbage collector's full passes.

A command server holds its parsed digests for minutes (a 2,000-PR digest is a few million
objects); every command meanwhile makes short-lived objects, some of which outlive a young
collection, and every ~25 % of the old generation's size in such survivors Python walks the
whole old generation again: ~200 ms holding the GIL, five times in 12 s at 50 parallel
commands, which was `/livez`'s worst case and the commands' p99 (benchmarks/README.md,
"Fifth pass"). `gc.freeze()` moves what exists now into the permanent generation, which the
collector never walks; the objects are still freed by reference counting when the cache drops
them (a digest's models hold no cycles). The young generations are collected first, so
little garbage is frozen with the digest.
"""

from __future__ import annotations

import gc


def keep_out_of_collections() -> None:
    """Freeze what the process holds now (a digest just read and kept) out of gc's passes."""
    gc.collect(1)
    gc.freeze()
