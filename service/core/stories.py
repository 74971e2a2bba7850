"""The week's stories: PRs grouped by their relations (core/relations.py), most weighty first.

Two PRs of the week share a story when one relates to the other. A PR of an earlier week ties
two PRs of this week together only through a strong, explicit tie (a revert, a re-land, a PR
named in the body): a rework of its lines or a shared subject joins it to the story as what the
story continues, without gluing every PR that touched the same code (unless that PR is already
in the story by a strong tie). Every PR of the week is in
exactly one story (most stand alone)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from service.core.models import Relation, RelationKind, ScoredPR, Story

# kinds of relation to an earlier week's PR that tie this week's PRs together through it
GLUE_EARLIER = frozenset(
    {RelationKind.REVERT, RelationKind.RELAND, RelationKind.FIXES, RelationKind.FOLLOWS}
)
BACK_AND_FORTH = frozenset({RelationKind.REVERT, RelationKind.RELAND})
MIGRATION = "migration"
BREAKING = "breaking"
REVERTS = "reverts"
REVERT = "revert"
# a story weighs what its notable PRs score together, then all its PRs
NOTABLE_SCORE = 4.5


class _Union:
    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def find(self, n: int) -> int:
        self.parent.setdefault(n, n)
        while self.parent[n] != n:
            self.parent[n] = self.parent[self.parent[n]]
            n = self.parent[n]
        return n

    def join(self, a: int, b: int) -> None:
        self.parent[self.find(a)] = self.find(b)


def _kind(members: list[ScoredPR], relations: list[Relation], breaking: set[int]) -> str:
    if any(p.category == MIGRATION for p in members):
        return MIGRATION
    if any(p.number in breaking or p.breaking for p in members):
        return BREAKING
    if any(r.kind in BACK_AND_FORTH for r in relations):
        return REVERTS
    return members[0].category


def story_weight(members: Iterable[ScoredPR]) -> float:
    scores = [p.score for p in members]
    return round(sum(s for s in scores if s >= NOTABLE_SCORE) + max(scores, default=0.0), 2)


def build_stories(
    prs: Sequence[ScoredPR], relations: Sequence[Relation], breaking: Iterable[int] = ()
) -> list[Story]:
    """The stories of the week's scored PRs (most important first) given their relations;
    `breaking` are the PRs known to break users (declared, or found by the risk detectors)."""
    week = {p.number: p for p in prs}
    union = _Union()
    attached: dict[int, list[int]] = {}
    for n in week:
        union.find(n)
    # an earlier PR that a PR of the week reverts, re-lands or names is part of the story
    strong = {r.other for r in relations if r.pr in week and r.kind in GLUE_EARLIER}
    for r in relations:
        if r.pr not in week:
            continue
        if r.other in week or r.other in strong:
            union.join(r.pr, r.other)
        else:  # a weak tie to an earlier week: the story continues it, nothing more
            attached.setdefault(r.pr, []).append(r.other)
    groups: dict[int, list[int]] = {}
    for n in [*week, *(r.other for r in relations if r.pr in week)]:
        groups.setdefault(union.find(n), []).append(n)
    rank = {p.number: i for i, p in enumerate(prs)}
    order = {r.pr: i for i, r in reversed(list(enumerate(relations)))}
    order.update({n: len(relations) + rank[n] for n in week if n not in order})
    ties_of: dict[int, list[Relation]] = {}
    for r in relations:
        ties_of.setdefault(r.pr, []).append(r)
    stories = []
    for numbers in groups.values():
        mine_first = [week[n] for n in dict.fromkeys(numbers) if n in week]
        # the lead is what the story is about: its most important PR that is no revert
        members = sorted(mine_first, key=lambda p: (p.change_type == REVERT, rank[p.number]))
        if not members:
            continue
        members = [members[0], *sorted(members[1:], key=lambda p: rank[p.number])]
        mine = {p.number for p in members}
        earlier = [n for n in numbers if n not in week]
        earlier += [n for p in members for n in attached.get(p.number, [])]
        ties = [r for n in sorted(mine, key=order.__getitem__) for r in ties_of.get(n, [])]
        stories.append(
            Story(
                prs=[p.number for p in members],
                kind=_kind(members, ties, set(breaking)),
                earlier=sorted(set(earlier)),
                relations=ties,
                weight=story_weight(members),
            )
        )
    stories.sort(key=lambda s: (-s.weight, min(rank[n] for n in s.prs)))
    return stories
