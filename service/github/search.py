"""The merged-PR search of a window, shared by GraphQL and REST: the query string and the
window split that keeps every sub-query under GitHub's 1,000-result cap."""

from __future__ import annotations

from datetime import datetime, timedelta
from itertools import pairwise

# GitHub search answers at most 1,000 results per query, REST and GraphQL alike (platform-facts
# §1.1); a window with that many is split, never truncated. At exactly 1,000 we split too, in
# case the count itself is capped.
SEARCH_CAP = 1000
# a capped window is cut into parts expected to hold this many results each: three quarters of
# the cap, so few parts (each part's last page is part-empty: fewer parts, fewer pages) while
# a part still has room for merges that bunch up before it needs cutting again
SPLIT_TARGET = SEARCH_CAP * 3 // 4
ONE_SECOND = timedelta(seconds=1)


def merged_qualifier(start: datetime, end: datetime) -> str:
    """`merged:START..END` for [start, end): END is inclusive in search, so its last second."""
    return f"merged:{start.isoformat()}..{(end - ONE_SECOND).isoformat()}"


def merged_query(
    repo: str, start: datetime, end: datetime, updated_since: datetime | None = None
) -> str:
    """`repo:o/r is:pr is:merged merged:START..END` for [start, end); with `updated_since`, only
    the PRs that changed since then (`updated:>=T`)."""
    q = f"repo:{repo} is:pr is:merged {merged_qualifier(start, end)}"
    if updated_since is not None:
        q += f" updated:>={updated_since.replace(microsecond=0).isoformat()}"
    return q


def needs_split(count: int, start: datetime, end: datetime) -> bool:
    """Whether a window's result count reaches the cap and the window can still be halved."""
    return count >= SEARCH_CAP and end - start > ONE_SECOND


def split(start: datetime, end: datetime, count: int) -> list[tuple[datetime, datetime]]:
    """[start, end) cut on whole seconds into equal parts of about SPLIT_TARGET results each
    (at least two, at most one per second), given that the window holds `count` results."""
    seconds = int((end - start).total_seconds())
    parts = min(max(2, -(-count // SPLIT_TARGET)), max(seconds, 1))
    cuts = [start + timedelta(seconds=seconds * i // parts) for i in range(1, parts)]
    bounds = [start, *cuts, end]
    return [(lo, hi) for lo, hi in pairwise(bounds) if lo < hi]
