"""Batches for bulk statements: IN (...) lists and executemany rows kept to a bounded size."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")
# bound parameters per IN (...) list: far under SQLite's limit (32,766) and Postgres's (65,535)
IN_CHUNK = 500
# rows per executemany: bounds the memory of rows encoded at once (PR snapshots are ~20 kB each)
ROW_CHUNK = 200


def chunks(items: Sequence[T], size: int = IN_CHUNK) -> Iterator[Sequence[T]]:
    """`items` in slices of at most `size`."""
    for start in range(0, len(items), size):
        yield items[start : start + size]
