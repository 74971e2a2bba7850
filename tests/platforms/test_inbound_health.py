"""A connection whose health probe fails (a client torn down half-way) reads as reconnecting:
/healthz reports it and never fails on it."""

from __future__ import annotations

from service.observe.connection_health import CONNECTED, RECONNECTING, ConnectionHealth
from service.platforms.inbound import StartedInbound


class _Broken:
    def close(self) -> None:
        return None

    def health(self) -> ConnectionHealth:
        raise RuntimeError("the session is half torn down")


class _Fine:
    def close(self) -> None:
        return None

    def health(self) -> ConnectionHealth:
        return ConnectionHealth("feishu", CONNECTED, last_event_at=1.0)


def test_a_failing_probe_reads_as_reconnecting_the_others_as_they_are() -> None:
    started = StartedInbound(connections=[_Broken(), _Fine()], platforms=["slack", "feishu"])
    broken, fine = started.health()
    assert (broken.platform, broken.state) == ("slack", RECONNECTING)
    assert broken.down_since is not None
    assert fine == ConnectionHealth("feishu", CONNECTED, last_event_at=1.0)
