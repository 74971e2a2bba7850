"""Progress of long work as log lines, for a run with no terminal to draw a bar on (a container,
systemd, CI): every `interval` seconds, "PRs fetched N of T, stage S", until the work is done."""

from __future__ import annotations

import logging
import threading

from service import operator_text

logger = logging.getLogger(__name__)
DONE = "done"


class ProgressLog:
    """Called as `progress(done, total)` by the collector and `stage(name)` by the build; a
    daemon thread logs the state each `interval` seconds from the first call to `stage("done")`.

    A thread, not a line per call: a stage with no PR to count (listing, narrating) still shows
    it is alive, and a fast collection does not flood the log."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._lock = threading.Lock()
        self._done = 0
        self._total: int | None = None
        self._stage = "starting"
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self._beats = 0

    def __call__(self, done: int, total: int) -> None:
        with self._lock:
            self._done, self._total, self._stage = done, total, "collecting"
        self._start()

    def stage(self, name: str) -> None:
        with self._lock:
            self._stage = name
        if name == DONE:
            self.stop()
        else:
            self._start()

    def line(self) -> str:
        with self._lock:
            return operator_text.log_progress(self._done, self._total, self._stage)

    def stop(self, *, quiet: bool = False) -> None:
        """End the heartbeat, with a last line if it wrote any (work shorter than one interval
        stays quiet; `quiet`: no line, as at exit after an error was said); the next build (a
        long-running process has many) starts a fresh one."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stopped.set()
        thread.join()
        if self._beats and not quiet:
            logger.info(self.line())
        with self._lock:
            self._done, self._total, self._beats = 0, None, 0
            self._stopped = threading.Event()

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._beat, name="progress-log", daemon=True)
        self._thread.start()

    def _beat(self) -> None:
        stopped = self._stopped
        while not stopped.wait(self.interval):
            with self._lock:
                if self._stage == DONE:  # stop() is on its way and writes the last line
                    return
                self._beats += 1
                line = operator_text.log_progress(self._done, self._total, self._stage)
            logger.info(line)
