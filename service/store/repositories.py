"""Repositories as GitHub knows them: private or not, their current name, and the earlier names
(aliases) their history moved from, with the digest that announced each move."""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import delete, select, update

from service.core.models import Period
from service.store import tables as t
from service.store.aggregate import Aggregate, utc_now
from service.store.moves import carry_history, known_names, record_alias
from service.store.translate import translated
from service.store.upsert import upsert


class Repositories(Aggregate):
    """The `repositories` and `repository_aliases` tables."""

    @translated
    def save_repo_privacy(self, repo: str, private: bool) -> None:
        """Record what GitHub said of `repo` (private or not) when it was last collected."""
        row = {"repo": repo, "private": private, "checked_at": utc_now()}
        with self._tx() as conn:
            upsert(conn, t.repositories, ("repo",), [row])

    @translated
    def repo_privacy(self, repo: str) -> bool | None:
        """Whether `repo` (or the repository that name moved to) is private as last collected;
        None when it never was."""
        query = select(t.repositories.c.private).where(
            t.repositories.c.repo == self.canonical_repo(repo)
        )
        with self.engine.connect() as conn:
            found = conn.execute(query).scalar()
        return None if found is None else bool(found)

    @translated
    def canonical_repo(self, name: str) -> str:
        """The current name of the repository once called `name` (else `name` itself)."""
        r, a = t.repositories.c, t.repository_aliases.c
        query = (
            select(r.repo)
            .join(t.repository_aliases, a.github_id == r.github_id)
            .where(a.alias == name)
        )
        with self.engine.connect() as conn:
            return conn.execute(query).scalar() or name

    @translated
    def identify_repo(
        self, github_id: int, name: str, private: bool | None, *, asked: str | None = None
    ) -> list[str]:
        """GitHub says its repository `github_id` is `name` now (asked for as `asked`): the
        history stored under its earlier names moves to `name`, and each earlier name becomes
        an alias. Returns the names it moved from just now."""
        r = t.repositories.c
        with self._tx() as conn:
            earlier = known_names(conn, github_id) | ({asked} if asked else set())
            earlier.discard(name)
            aliases = set(
                conn.execute(
                    select(t.repository_aliases.c.alias).where(
                        t.repository_aliases.c.github_id == github_id
                    )
                ).scalars()
            )
            stored = conn.execute(select(r.private).where(r.repo.in_([*earlier, name]))).scalar()
            for old in sorted(earlier):
                carry_history(conn, old, name)
                if old not in aliases:
                    record_alias(conn, old, github_id, utc_now())
            conn.execute(delete(t.repository_aliases).where(t.repository_aliases.c.alias == name))
            conn.execute(
                delete(t.repositories).where(r.repo.in_(earlier) | (r.github_id == github_id))
            )
            known = private if private is not None else (True if stored is None else stored)
            row = {"repo": name, "private": known, "checked_at": utc_now(), "github_id": github_id}
            upsert(conn, t.repositories, ("repo",), [row])
        return sorted(earlier - aliases)

    @translated
    def moves_to_announce(self, repo: str, period: Period) -> list[str]:
        """Earlier names of `repo` that the digest of `period` says it moved from: moves no
        digest has announced yet, or that this period's digest announced."""
        r, a = t.repositories.c, t.repository_aliases.c
        unsaid = a.announced_period.is_(None) | (a.announced_period == period.label)
        query = (
            select(a.alias)
            .join(t.repositories, a.github_id == r.github_id)
            .where(r.repo == repo, unsaid)
            .order_by(a.moved_at, a.alias)
        )
        with self.engine.connect() as conn:
            return list(conn.execute(query).scalars())

    @translated
    def announce_moves(self, repo: str, period: Period, names: Collection[str]) -> None:
        """The digest of `period` has said that `repo` moved from `names`."""
        if not names:
            return
        a = t.repository_aliases.c
        with self._tx() as conn:
            conn.execute(
                update(t.repository_aliases)
                .where(a.alias.in_(list(names)), a.announced_period.is_(None))
                .values(announced_period=period.label)
            )
