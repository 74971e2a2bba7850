"""ProgressLog in a long-running process: a heartbeat per build, each ended by its last line."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator

import pytest

from service.observe.progress import ProgressLog


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.arrived = threading.Condition()

    def emit(self, record: logging.LogRecord) -> None:
        with self.arrived:
            self.lines.append(record.getMessage())
            self.arrived.notify_all()

    def wait_for(self, text: str) -> None:
        with self.arrived:
            assert self.arrived.wait_for(lambda: text in self.lines, timeout=10), self.lines


@pytest.fixture
def lines() -> Iterator[Lines]:
    handler = Lines()
    logger = logging.getLogger("service.observe.progress")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield handler
    logger.removeHandler(handler)


def test_two_builds_in_one_process_each_log_and_stop(lines: Lines) -> None:
    log = ProgressLog(interval=0.01)
    for total in (3, 5):
        log.stage("collecting")
        lines.wait_for("PRs fetched 0 of ?, stage collecting")
        log(total, total)
        lines.wait_for(f"PRs fetched {total} of {total}, stage collecting")
        log.stage("analysing")
        lines.wait_for(f"PRs fetched {total} of {total}, stage analysing")
        log.stage("done")
        assert lines.lines[-1] == f"PRs fetched {total} of {total}, stage done"
        count = len(lines.lines)
        log.stop()  # a second stop (as at exit) writes nothing more
        assert len(lines.lines) == count
        lines.lines.clear()


class SlowToStop(ProgressLog):
    """A build whose end takes a while to reach the heartbeat (a busy process): beats wake
    after stage("done") and before the stop, the meeting that used to write "done" twice."""

    def stop(self, *, quiet: bool = False) -> None:
        time.sleep(self.interval * 5)
        super().stop(quiet=quiet)


def test_the_last_line_is_written_once_even_when_beats_meet_the_end(lines: Lines) -> None:
    log = SlowToStop(interval=0.01)
    log(1, 1)
    lines.wait_for("PRs fetched 1 of 1, stage collecting")
    log.stage("done")
    assert [line for line in lines.lines if line.endswith("stage done")] == [
        "PRs fetched 1 of 1, stage done"
    ]
