"""The server's digest cache hands each digest it reads to `kept` (the server freezes it out of
the garbage collector's full passes: service/runtime/long_lived.py, issue 30)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from service.commands.context import CachedReader
from service.runtime.long_lived import keep_out_of_collections
from service.store.repository import Store
from tests.commands.conftest import REPO, Clock
from tests.periods import TIMEZONE, period

WEEK = "2026-W04"


@pytest.fixture
def unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()  # the test process's objects back into the collector's generations


def test_each_digest_read_is_handed_to_kept_once(store: Store, clock: Clock) -> None:
    kept: list[int] = []
    reader = CachedReader(store, clock, kept=lambda: kept.append(1), timezone=TIMEZONE)
    digest = reader.get_digest(REPO, period(WEEK), "en")
    assert digest is not None
    assert reader.get_digest(REPO, period(WEEK), "en") is digest
    assert kept == [1]
    reader.invalidate(REPO)
    assert reader.get_digest(REPO, period(WEEK), "en") == digest
    assert kept == [1, 1]


def test_a_kept_digest_is_out_of_the_collector_s_walks(
    store: Store, clock: Clock, unfrozen: None
) -> None:
    gc.unfreeze()
    reader = CachedReader(store, clock, kept=keep_out_of_collections, timezone=TIMEZONE)
    digest = reader.get_digest(REPO, period(WEEK), "en")
    assert digest is not None
    frozen = gc.get_freeze_count()
    assert frozen > 0
    tracked = {id(o) for o in gc.get_objects()}  # what a full collection walks
    assert id(digest) not in tracked
    assert id(digest.prs[0]) not in tracked
