"""Digests: one per (repository, period, language), with the key of what it was built from and
a revision token (satisfies commands.context.DigestReader)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from sqlalchemy import Engine, func, select

from service.core.models import DIGEST_SCHEMA_VERSION, Digest, Period, PullRequest
from service.core.weeks import label_before
from service.store import tables as t
from service.store.aggregate import Aggregate, aware, period_kind
from service.store.json_text import model_json
from service.store.translate import translated
from service.store.upsert import upsert


class PeriodPulls(Protocol):
    """The PR snapshots a digest stored by older code is read anew from (PullSnapshots)."""

    def load_prs(self, repo: str, week: str) -> list[PullRequest]: ...
    def load_prs_between(self, repo: str, start: datetime, end: datetime) -> list[PullRequest]: ...


@dataclass(frozen=True)
class ReportEntry:
    repo: str
    period: str
    language: str
    generated_at: datetime
    complete: bool


class Digests(Aggregate):
    """The `digests` table (and the snapshot count a period's stamp includes)."""

    def __init__(self, engine: Engine, pulls: PeriodPulls) -> None:
        super().__init__(engine)
        self.pulls = pulls

    @translated
    def save_digest(self, digest: Digest, inputs: str | None = None) -> None:
        """Store (or replace) the digest of (repo, period, language); `inputs` is the key of what
        it was built from (see digest_built_from)."""
        row = {
            "repo": digest.repo,
            "period": digest.period,
            "period_kind": period_kind(digest.period),
            "language": digest.language,
            "inputs": inputs,
            "revision": uuid.uuid4().hex,
            "schema_version": digest.schema_version,
            "data": model_json(digest),
            "generated_at": digest.generated_at,
            "complete": digest.completeness.complete,
            "missing": [m.model_dump(mode="json") for m in digest.completeness.missing],
        }
        with self._tx() as conn:
            upsert(conn, t.digests, ("repo", "period", "language"), [row])

    @translated
    def get_digest(self, repo: str, period: Period, language: str) -> Digest | None:
        return self._digest_at(repo, period.label, language)

    def _digest_at(self, repo: str, label: str, language: str) -> Digest | None:
        """The digest stored under the period label `label` (the store's column)."""
        query = select(t.digests.c.data).where(
            t.digests.c.repo == repo, t.digests.c.period == label, t.digests.c.language == language
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        if not row:
            return None
        digest = Digest.model_validate(row[0])
        if digest.schema_version < DIGEST_SCHEMA_VERSION:  # stored by older code: read it anew
            return self._upgraded(digest, repo, label)
        return digest

    def _upgraded(self, digest: Digest, repo: str, label: str) -> Digest:
        from service.core.digest import upgrade_digest  # the analysis, only when needed

        before = label_before(label)
        earlier = {before: self.pulls.load_prs(repo, before)} if before else {}
        prs = (
            self.pulls.load_prs(repo, label)
            if period_kind(label) == "week"
            else self.pulls.load_prs_between(repo, digest.start, digest.end)
        )
        return upgrade_digest(digest, prs, earlier)

    @translated
    def digest_revision(self, repo: str, period: Period, language: str) -> str | None:
        """The token the stored digest of (repo, period, language) got when it was last saved
        (None when there is none, or it was saved before tokens were kept): unchanged exactly
        while the stored digest is, read without reading the digest."""
        c = t.digests.c
        query = select(c.revision).where(
            c.repo == repo, c.period == period.label, c.language == language
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return row[0] if row else None

    @translated
    def digest_built_from(
        self, repo: str, period: Period, language: str, inputs: str
    ) -> Digest | None:
        """The stored digest of (repo, period, language) if it was built from `inputs`, else
        None."""
        c = t.digests.c
        query = select(c.data).where(
            c.repo == repo, c.period == period.label, c.language == language, c.inputs == inputs
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return Digest.model_validate(row[0]) if row else None

    @translated
    def period_stamp(self, repo: str, period: Period, language: str) -> str:
        """A short text that changes when the stored digest of the period or its set of PR
        snapshots does: the digest's inputs key (else its time), and the snapshot count."""
        d, s = t.digests.c, t.pr_snapshots.c
        digest = select(d.inputs, d.generated_at).where(
            d.repo == repo, d.period == period.label, d.language == language
        )
        count = select(func.count()).where(s.repo == repo, s.week == period.label)
        with self.engine.connect() as conn:
            row = conn.execute(digest).first()
            snapshots = conn.execute(count).scalar_one()
        built = (row[0] or aware(row[1]).astimezone(UTC).isoformat()) if row else "-"
        return f"{built}:{snapshots}"

    @translated
    def latest_digest(self, repo: str, language: str) -> Digest | None:
        """The digest of the newest stored week of `repo` (months and ranges are asked by
        label)."""
        weeks = self.list_periods(repo, language)
        return self._digest_at(repo, weeks[0], language) if weeks else None

    @translated
    def list_periods(
        self, repo: str, language: str | None = None, *, kind: str = "week"
    ) -> list[str]:
        """Stored periods of `kind` (weeks unless told) of `repo`, newest first."""
        c = t.digests.c
        query = select(c.period).where(c.repo == repo, c.period_kind == kind).distinct()
        if language:
            query = query.where(t.digests.c.language == language)
        with self.engine.connect() as conn:
            return sorted((row[0] for row in conn.execute(query)), reverse=True)

    @translated
    def list_reports(self) -> list[ReportEntry]:
        """Every stored digest, newest period first, then repo and language."""
        cols = t.digests.c
        query = select(cols.repo, cols.period, cols.language, cols.generated_at, cols.complete)
        with self.engine.connect() as conn:
            rows = [
                ReportEntry(r[0], r[1], r[2], aware(r[3]), bool(r[4])) for r in conn.execute(query)
            ]
        return sorted(rows, key=lambda e: (e.period, e.repo, e.language), reverse=True)
