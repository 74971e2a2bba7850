"""The health of the connections a replica opens to bring chat events in (Slack's Socket Mode,
Feishu's long connection): what each reports, and when its being down makes the replica unready.

A replica whose configured connection gave up is deaf: it must stop saying it is ready, so an
orchestrator replaces it or an operator looks. A connection that is down for less than the bound
(CONNECTION_DOWN_SECONDS) is reconnecting as it should; the replica is then only degraded.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

CONNECTED = "connected"
RECONNECTING = "reconnecting"
STOPPED = "stopped"
# a connection down longer than this makes /healthz unready (the setting's default)
DEFAULT_DOWN_SECONDS = 300.0


@dataclass(frozen=True)
class ConnectionHealth:
    """One connection: `state` is connected, reconnecting or stopped; times are epoch seconds
    (the last event or frame read from it, and since when it is down)."""

    platform: str
    state: str
    last_event_at: float | None = None
    down_since: float | None = None

    @property
    def up(self) -> bool:
        return self.state == CONNECTED

    def down_for(self, now: float) -> float:
        """Seconds it has been down (0 while up)."""
        if self.up:
            return 0.0
        return max(now - self.down_since, 0.0) if self.down_since is not None else 0.0

    def too_long_down(self, now: float, bound: float) -> bool:
        return not self.up and (self.state == STOPPED or self.down_for(now) > bound)

    def as_json(self) -> dict[str, Any]:
        return {
            "platform": self.platform,
            "state": self.state,
            "last_event_at": _iso(self.last_event_at),
            "down_since": _iso(self.down_since),
        }


def _iso(moment: float | None) -> str | None:
    return None if moment is None else datetime.fromtimestamp(moment, UTC).isoformat()
