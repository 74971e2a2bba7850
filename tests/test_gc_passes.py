"""A build raises the collector's threshold while it runs and puts back what it was, however
builds overlap (the web app and the scheduler may build in threads)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from service.pipeline.gc_passes import BUILD_GEN0_THRESHOLD, fewer_gc_passes


@pytest.fixture(autouse=True)
def _threshold_kept() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)


def test_a_build_raises_the_threshold_and_restores_it() -> None:
    gc.set_threshold(700, 10, 10)
    with fewer_gc_passes():
        assert gc.get_threshold() == (BUILD_GEN0_THRESHOLD, 10, 10)
    assert gc.get_threshold() == (700, 10, 10)


def test_a_higher_threshold_is_kept() -> None:
    gc.set_threshold(BUILD_GEN0_THRESHOLD * 2, 5, 5)
    with fewer_gc_passes():
        assert gc.get_threshold() == (BUILD_GEN0_THRESHOLD * 2, 5, 5)
    assert gc.get_threshold() == (BUILD_GEN0_THRESHOLD * 2, 5, 5)


def test_overlapping_builds_restore_it_when_the_last_one_ends() -> None:
    gc.set_threshold(700, 10, 10)
    first_in, second_done = threading.Event(), threading.Event()
    seen: list[int] = []

    def first() -> None:
        with fewer_gc_passes():
            first_in.set()
            second_done.wait(5)
            seen.append(gc.get_threshold()[0])  # after the second one left

    thread = threading.Thread(target=first)
    thread.start()
    first_in.wait(5)
    with fewer_gc_passes():
        pass
    second_done.set()
    thread.join(5)
    assert seen == [BUILD_GEN0_THRESHOLD]
    assert gc.get_threshold() == (700, 10, 10)


def test_a_failing_build_restores_it() -> None:
    gc.set_threshold(700, 10, 10)
    with pytest.raises(RuntimeError), fewer_gc_passes():
        raise RuntimeError("failed")
    assert gc.get_threshold() == (700, 10, 10)
