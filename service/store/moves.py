"""A repository that moved (transfer or rename) keeps one history: its rows are carried from the
old name to the new one inside the caller's transaction, and the old name becomes an alias of
GitHub's id for the repository.

Every table that names a repository names it by its current name, so reads stay simple; the
one place that knows the id is `repositories` (and the aliases). Where the new name already has
a row for the same key (a week collected under both names), the new name's row wins.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, Table, and_, delete, exists, select, update

from service.store import tables as t

# each table that names a repository, with the other columns of its unique key
HISTORY: tuple[tuple[Table, tuple[str, ...]], ...] = (
    (t.pr_snapshots, ("number",)),
    (t.digests, ("period", "language")),
    (t.deliveries, ("period", "destination", "filter")),
    (t.subscriptions, ("platform", "channel", "filter", "cadence")),
    (t.runs, ()),
)


def carry_history(conn: Connection, old: str, new: str) -> None:
    """Every row stored under `old` is stored under `new` (duplicates of `new`'s rows go)."""
    for table, key in HISTORY:
        clash = table.alias("clash")
        taken = exists().where(clash.c.repo == new, *(clash.c[col] == table.c[col] for col in key))
        where = and_(table.c.repo == old, ~taken) if key else table.c.repo == old
        conn.execute(update(table).where(where).values(repo=new))
        conn.execute(delete(table).where(table.c.repo == old))


def known_names(conn: Connection, github_id: int) -> set[str]:
    """The names the store holds for GitHub's repository `github_id`, aliases included."""
    r, a = t.repositories.c, t.repository_aliases.c
    names = set(conn.execute(select(r.repo).where(r.github_id == github_id)).scalars())
    return names | set(conn.execute(select(a.alias).where(a.github_id == github_id)).scalars())


def record_alias(conn: Connection, old: str, github_id: int, now: datetime) -> None:
    """`old` names GitHub's repository `github_id` from now on (a move not announced yet)."""
    a = t.repository_aliases.c
    if conn.execute(select(a.alias).where(a.alias == old)).first() is None:
        conn.execute(
            t.repository_aliases.insert().values(alias=old, github_id=github_id, moved_at=now)
        )
    else:  # a name reused by another repository, or an earlier move: point it here
        conn.execute(
            update(t.repository_aliases)
            .where(a.alias == old)
            .values(github_id=github_id, moved_at=now, announced_period=None)
        )
