"""PR snapshots: each PR as last fetched, by repository and number, with the week it was saved
under (satisfies github.collect.StoredPulls)."""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime

from sqlalchemy import select

from service.core.models import PullRequest
from service.store import tables as t
from service.store.aggregate import Aggregate, aware, utc_now
from service.store.batches import ROW_CHUNK, chunks
from service.store.json_text import model_json
from service.store.translate import translated
from service.store.upsert import upsert


class PullSnapshots(Aggregate):
    """The `pr_snapshots` table."""

    @translated
    def save_prs(self, repo: str, week: str, prs: list[PullRequest]) -> None:
        """Upsert the snapshot of each PR (the newest fetch wins), a batch per statement."""
        now = utc_now()
        with self._tx() as conn:
            for batch in chunks(prs, ROW_CHUNK):
                rows = [
                    {
                        "repo": repo,
                        "number": pr.number,
                        "week": week,
                        "merged_at": pr.merged_at,
                        "data": model_json(pr),
                        "fetched_at": now,
                    }
                    for pr in batch
                ]
                upsert(conn, t.pr_snapshots, ("repo", "number"), rows)

    @translated
    def stored_prs(self, repo: str, numbers: Collection[int]) -> dict[int, PullRequest]:
        """The stored snapshots of `numbers` (whatever week they were saved under), by number."""
        c = t.pr_snapshots.c
        found: dict[int, PullRequest] = {}
        with self.engine.connect() as conn:
            for chunk in chunks(sorted(set(numbers))):
                query = select(c.number, c.data).where(c.repo == repo, c.number.in_(chunk))
                found.update(
                    (row[0], PullRequest.model_validate(row[1])) for row in conn.execute(query)
                )
        return found

    @translated
    def load_prs(self, repo: str, week: str) -> list[PullRequest]:
        """The stored PRs of `week`, by merge time."""
        query = (
            select(t.pr_snapshots.c.data)
            .where(t.pr_snapshots.c.repo == repo, t.pr_snapshots.c.week == week)
            .order_by(t.pr_snapshots.c.merged_at, t.pr_snapshots.c.number)
        )
        with self.engine.connect() as conn:
            return [PullRequest.model_validate(row[0]) for row in conn.execute(query)]

    @translated
    def load_prs_between(self, repo: str, start: datetime, end: datetime) -> list[PullRequest]:
        """The stored PRs merged in [start, end) (a month's or a range's), by merge time."""
        c = t.pr_snapshots.c
        # in UTC, as the times are stored: SQLite compares them as text, whatever their zone
        low, high = start.astimezone(UTC), end.astimezone(UTC)
        query = (
            select(c.data)
            .where(c.repo == repo, c.merged_at >= low, c.merged_at < high)
            .order_by(c.merged_at, c.number)
        )
        with self.engine.connect() as conn:
            return [PullRequest.model_validate(row[0]) for row in conn.execute(query)]

    @translated
    def stored_period(
        self, repo: str, start: datetime, end: datetime
    ) -> tuple[dict[int, PullRequest], datetime | None]:
        """The stored PRs merged in [start, end) by number, and when the oldest of those
        snapshots was saved (None when there is none): what a rebuild may keep as it is."""
        c = t.pr_snapshots.c
        # in UTC, as the times are stored: SQLite compares them as text, whatever their zone
        low, high = start.astimezone(UTC), end.astimezone(UTC)
        query = select(c.number, c.data, c.fetched_at).where(
            c.repo == repo, c.merged_at >= low, c.merged_at < high
        )
        found: dict[int, PullRequest] = {}
        oldest: datetime | None = None
        with self.engine.connect() as conn:
            for number, data, fetched in conn.execute(query):
                found[number] = PullRequest.model_validate(data)
                saved = aware(fetched)
                oldest = saved if oldest is None else min(oldest, saved)
        return found, oldest

    @translated
    def load_pr(self, repo: str, number: int) -> PullRequest | None:
        query = select(t.pr_snapshots.c.data).where(
            t.pr_snapshots.c.repo == repo, t.pr_snapshots.c.number == number
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return PullRequest.model_validate(row[0]) if row else None
