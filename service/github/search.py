"""The merged-PR search of a window, shared by GraphQL and REST: the query string and the
window split that keeps every sub-query under GitHub's 1,000-result cap."""

from __future__ import annotations

from datetime import datetime, timedelta

# GitHub search answers at most 1,000 results per query, REST and GraphQL alike (platform-facts
# §1.1); a window with that many is split, never truncated. At exactly 1,000 we split too, in
# case the count itself is capped.
SEARCH_CAP = 1000
ONE_SECOND = timedelta(seconds=1)


def merged_query(repo: str, start: datetime, end: datetime) -> str:
    """`repo:o/r is:pr is:merged merged:START..END` for [start, end): END is inclusive in search."""
    last = end - ONE_SECOND
    return f"repo:{repo} is:pr is:merged merged:{start.isoformat()}..{last.isoformat()}"


def needs_split(count: int, start: datetime, end: datetime) -> bool:
    """Whether a window's result count reaches the cap and the window can still be halved."""
    return count >= SEARCH_CAP and end - start > ONE_SECOND


def halves(start: datetime, end: datetime) -> tuple[tuple[datetime, datetime], ...]:
    """[start, mid) and [mid, end), mid on a whole second."""
    mid = start + timedelta(seconds=int((end - start).total_seconds()) // 2)
    return (start, mid), (mid, end)
