"""A build's analysis of each PR while the rest of the week downloads (core.ahead's `work_of`,
in a thread of its own): the collector's fetch threads hand each PR over as its files arrive,
and build_week gives the work to build_digest once the week is whole."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from service.core.models import PullRequest
from service.core.profile import RepoProfile

if TYPE_CHECKING:
    from service.core.ahead import PrWork


class Ahead:
    """A thread working out each PR `add`ed, in the order they come. Nothing is imported or
    loaded before the first PR: a rebuild that fetches no file (its stored digest stands)
    costs nothing. `finish` waits for the PRs added so far and hands their work over; `cancel`
    drops what is left."""

    def __init__(self, profile_for: Callable[[], RepoProfile]) -> None:
        self._profile_for = profile_for
        self._queue: queue.SimpleQueue[PullRequest | None] = queue.SimpleQueue()
        self._work: dict[int, PrWork] = {}
        self._cancelled = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.profile: RepoProfile | None = None  # the profile the work was done with
        self.cpu_s = 0.0  # the thread's CPU time, once it ended

    def add(self, pr: PullRequest) -> None:
        """Work `pr` out when its turn comes (called from the collector's fetch threads)."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="ahead", daemon=True)
                self._thread.start()
        self._queue.put(pr)

    def finish(self, profile: RepoProfile) -> Mapping[int, PrWork]:
        """The work of every PR added, once the thread is through them; none when it was done
        with another profile than `profile` (a repository that moved)."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is None:
            return {}
        self._queue.put(None)
        thread.join()
        return self._work if self.profile == profile else {}

    def cancel(self) -> None:
        """No further work: the build ended or needs none (a stored digest stands)."""
        self._cancelled.set()
        self._queue.put(None)

    def _run(self) -> None:
        try:
            self._work_each()
        finally:
            self.cpu_s = time.thread_time()

    def _work_each(self) -> None:
        from service.core.ahead import work_of
        from service.core.risks import risk_context

        profile = self.profile = self._profile_for()
        context = risk_context((), profile)
        while (pr := self._queue.get()) is not None:
            if self._cancelled.is_set():
                continue
            try:
                self._work[pr.number] = work_of(pr, profile, context)
            except Exception:  # noqa: S112 - build_digest works it out again, and raises
                continue
            finally:
                context.release()
