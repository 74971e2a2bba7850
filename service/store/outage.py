"""One log line when the database stops answering and one when it answers again, however many
requests meet the outage in between (each of them answers "temporarily unavailable" or 503
without a line or a traceback of its own)."""

from __future__ import annotations

import logging
import threading

from service import operator_text

logger = logging.getLogger("service.store")


class OutageLog:
    """Whether the database is in an outage, as the last store call found it."""

    def __init__(self) -> None:
        self._down = False
        self._lock = threading.Lock()

    @property
    def down(self) -> bool:
        return self._down

    def failed(self, reason: str) -> None:
        """A store call found the database unavailable: logged if it was answering before."""
        with self._lock:
            if self._down:
                return
            self._down = True
        logger.error(operator_text.LOG_OUTAGE_BEGAN, reason)

    def answered(self) -> None:
        """A store call succeeded: logged if the database was down before."""
        if not self._down:  # the common case: no lock taken
            return
        with self._lock:
            if not self._down:
                return
            self._down = False
        logger.warning(operator_text.LOG_OUTAGE_ENDED)


OUTAGE = OutageLog()
