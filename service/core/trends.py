"""Trends of a week: counts per module, type, label and category with the PRs behind each count,
the change from the previous week, and the week's contributors."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from service.core.models import (
    Contributor,
    Digest,
    PullRequest,
    ScoredPR,
    TrendBucket,
    Trends,
)

# GitHub's author_association values for someone whose first PR this is
FIRST_TIME_ASSOCIATIONS = frozenset({"FIRST_TIME_CONTRIBUTOR", "FIRST_TIMER"})


def _buckets(
    pairs: Iterable[tuple[str, int]], previous: list[TrendBucket] | None
) -> list[TrendBucket]:
    """(key, PR number) pairs → buckets by count desc, then key; `previous` counts when given."""
    prs: dict[str, list[int]] = defaultdict(list)
    for key, number in pairs:
        if number not in prs[key]:
            prs[key].append(number)
    before = {b.key: b.count for b in previous} if previous is not None else None
    buckets = [
        TrendBucket(
            key=key,
            count=len(numbers),
            prs=sorted(numbers),
            previous=None if before is None else before.get(key, 0),
        )
        for key, numbers in prs.items()
    ]
    return sorted(buckets, key=lambda b: (-b.count, b.key))


def bucket_pairs(
    pairs: Iterable[tuple[str, int]], previous: list[TrendBucket] | None
) -> list[TrendBucket]:
    """Trend buckets from (key, PR number) pairs (a filtered digest counts its own)."""
    return _buckets(pairs, previous)


# logins that name no one person: GitHub's for a deleted account's PRs and reviews, and the
# placeholder of data taken from git history when a commit's author has no account
GHOST_LOGINS = frozenset({"ghost", "unknown"})


def known_login(login: str | None) -> str | None:
    """The login when it names a person: not missing, not a placeholder (GHOST_LOGINS)."""
    return login if login and login.lower() not in GHOST_LOGINS else None


def identity(login: str | None, name: str | None = None) -> str | None:
    """Who wrote something: the login when it names a person; else the display name the data
    gives (two authors behind one placeholder login are two people); else no one."""
    if known := known_login(login):
        return known
    shown = " ".join((name or "").split()).lower()
    return f"name:{shown}" if shown else None


def authors(people: Iterable[tuple[str | None, str | None]]) -> tuple[int, int]:
    """(distinct authors the (login, display name) pairs name, how many name no one): authors
    the data cannot name are counted apart, not as one contributor."""
    every = [identity(login, name) for login, name in people]
    return len({p for p in every if p}), sum(1 for p in every if p is None)


def is_first_time(pr: PullRequest, earlier_authors: set[str] | None) -> bool | None:
    """GitHub's word when it has one; else absence from `earlier_authors` when that is known;
    else None (unknown)."""
    if pr.author_association is not None:
        return pr.author_association.upper() in FIRST_TIME_ASSOCIATIONS
    if earlier_authors is not None and pr.author:
        return pr.author not in earlier_authors
    return None


def _either(known: bool | None, more: bool | None) -> bool | None:
    """True if any PR says first-time; None only while no PR has said anything."""
    if known is None:
        return more
    return known or bool(more)


def build_contributors(
    prs: list[PullRequest], earlier_authors: set[str] | None = None
) -> list[Contributor]:
    """Authors of the week by login with their display name and PRs (most PRs first); first-time
    when GitHub said so, None when it did not say."""
    by_login: dict[str, list[int]] = defaultdict(list)
    logins: dict[str, str] = {}
    names: dict[str, str | None] = {}
    first: dict[str, bool | None] = {}
    for pr in sorted(prs, key=lambda p: p.number):
        person = identity(pr.author, pr.author_name)
        if person is None:  # no one the data can name: not one shared contributor
            continue
        by_login[person].append(pr.number)
        # a placeholder login ("unknown", "ghost") is shown as no one's `@`: the display name
        # stands in for it, as it does in data read from git history (pipeline/recorded.py)
        logins[person] = known_login(pr.author) or pr.author_name or ""
        names[person] = names.get(person) or pr.author_name
        first[person] = _either(first.get(person), is_first_time(pr, earlier_authors))
    people = [
        Contributor(login=logins[k], name=names[k], prs=v, first_time=first[k])
        for k, v in by_login.items()
    ]
    return sorted(people, key=lambda c: (-len(c.prs), c.login.lower()))


def build_trends(
    scored: list[ScoredPR],
    prs: list[PullRequest],
    *,
    previous: Digest | None,
    earlier_authors: set[str] | None = None,
) -> Trends:
    """Counts by module, type, label (when GitHub gave labels) and category; contributors."""
    before = previous.trends if previous is not None else None
    labelled = [pr for pr in prs if pr.labels is not None]
    return Trends(
        modules=_buckets(
            ((m, s.number) for s in scored for m in s.modules), before.modules if before else None
        ),
        types=_buckets(
            ((s.change_type, s.number) for s in scored), before.types if before else None
        ),
        labels=_buckets(
            ((label, pr.number) for pr in labelled for label in pr.labels or []),
            before.labels if before and before.labels else None,
        )
        if labelled
        else [],
        categories=_buckets(
            ((s.category, s.number) for s in scored), before.categories if before else None
        ),
        contributors=build_contributors(prs, earlier_authors),
        previous_period=previous.period if previous is not None else None,
        previous_stats=previous.stats if previous is not None else None,
    )
