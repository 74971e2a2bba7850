"""Who holds a lock or a run: `host:pid:token`, one per process, so a successor can tell a
holder that died (on this host) from one that still runs."""

from __future__ import annotations

import os
import socket
import uuid

# one id per process: lock owners are `host:pid:token`, so a successor can tell a dead holder
PROCESS_OWNER = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def is_dead_owner(owner: str) -> bool:
    """Whether a `host:pid:token` lock owner is a process of this host that no longer runs
    (a different token on our own pid is an earlier incarnation: PID 1 again in a container)."""
    host, _, rest = owner.partition(":")
    pid_text, _, token = rest.partition(":")
    if host != socket.gethostname() or not pid_text.isdigit() or not token:
        return False
    if int(pid_text) == os.getpid():
        return owner != PROCESS_OWNER
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
