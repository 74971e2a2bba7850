"""Ties between the repositories of a family (core/family.py), read from PR bodies, links,
paths and titles:

- ``fixes`` / ``follows``: the PR names a PR of another repository of the family
  (`verl-omni#25`, `owner/verl-omni#25`, a pull URL);
- ``moved``: the PR moves code out (a move word and removed files) to another repository it
  names; the PRs there that received or continued it (this period's or a stored earlier
  one's) are those that add files under the same path tails, or that name the PR;
- ``names``: the PR names another repository (not the primary, whose name every repository
  of the family uses) without a PR of it: the PRs of that repository in the period whose
  titles share a distinctive name with the PR's text, else all of them when they are few.

Every PR is given by its family key (`scope.pr_key`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from service.core.models import Crossing, FileStatus, PullRequest, Relation, RelationKind
from service.core.scope import pr_key, short_name
from service.core.titles import MOVE_WORDS, parse_title

# a repository named without a PR: all its PRs of the period when they are at most this many
FEW_PRS = 3
# a PR moves code out when it removes at least this many files
MOVED_FILES = 3
PATH_TAIL = 2
MIN_NAME = 4
_NAME_TOKEN = re.compile(r"[A-Za-z][\w.+-]*[\w+]")


@dataclass(frozen=True)
class _Pool:
    """The family's PRs: (repo index, PR) for the period and the earlier stored weeks."""

    repos: Sequence[str]
    week: Sequence[Sequence[PullRequest]]
    earlier: Sequence[Mapping[str, Sequence[PullRequest]]]

    def find(self, index: int, number: int) -> tuple[PullRequest, str] | None:
        for pr in self.week[index]:
            if pr.number == number:
                return pr, ""
        for label, prs in self.earlier[index].items():
            for pr in prs:
                if pr.number == number:
                    return pr, label
        return None

    def candidates(self, index: int) -> list[tuple[PullRequest, str]]:
        found = [(p, "") for p in self.week[index]]
        return found + [(p, label) for label, prs in self.earlier[index].items() for p in prs]


def _text(pr: PullRequest) -> str:
    return f"{pr.title}\n{pr.body or ''}"


def _name_pattern(repo: str) -> re.Pattern[str]:
    name = re.escape(short_name(repo))
    return re.compile(rf"(?<![\w-]){name}(?![\w-])|github\.com/[\w.-]+/{name}(?![\w.-])", re.I)


def _ref_pattern(repo: str) -> re.Pattern[str]:
    name = re.escape(short_name(repo))
    return re.compile(
        rf"(?<![\w-])(?:[\w.-]+/)?{name}#(\d{{1,7}})\b|github\.com/[\w.-]+/{name}/pull/(\d{{1,7}})\b",
        re.I,
    )


def _names(text: str) -> set[str]:
    """Distinctive names: with `-`, `_` or a digit, inner capitals, or all capitals."""
    out = set()
    for token in _NAME_TOKEN.findall(text):
        word = token.strip(".-")
        named = (
            any(c in word for c in "-_")
            or re.search(r"\d", word)
            or re.search(r"[a-z][A-Z]", word)
            or (word.isupper() and word.isalpha())
        )
        if named and len(word) >= MIN_NAME:
            out.add(word.lower())
    return out


def _tails(pr: PullRequest, *, removed: bool) -> set[str]:
    wanted = {FileStatus.REMOVED, FileStatus.RENAMED} if removed else {FileStatus.ADDED}
    return {
        "/".join(f.path.split("/")[-PATH_TAIL:])
        for f in pr.files
        if f.status in wanted or (not removed and f.status == FileStatus.RENAMED)
    }


def _moves_out(pr: PullRequest) -> bool:
    removed = sum(1 for f in pr.files if f.status == FileStatus.REMOVED)
    return bool(MOVE_WORDS.search(_text(pr))) and removed >= MOVED_FILES


def _received(pool: _Pool, mover: PullRequest, source: int, target: int) -> list[tuple[int, str]]:
    """The PRs of `target` that took up what `mover` (of `source`) moved out."""
    gone = _tails(mover, removed=True)
    names_it = _ref_pattern(pool.repos[source])
    out = []
    for pr, label in pool.candidates(target):
        refs = {int(a or b) for a, b in names_it.findall(_text(pr))}
        if mover.number in refs or gone & _tails(pr, removed=False):
            out.append((pr.number, label))
    return out


def _matching(pool: _Pool, pr: PullRequest, target: int) -> list[int]:
    """The PRs of `target` in the period that `pr`, naming the repository, is about."""
    own = _names(_text(pr)) - {short_name(r).lower() for r in pool.repos}
    theirs = pool.week[target]
    found = [p.number for p in theirs if own & _names(parse_title(p.title).description)]
    if found or len(theirs) > FEW_PRS:
        return found
    return [p.number for p in theirs]


def _explicit(pool: _Pool, pr: PullRequest, index: int) -> list[tuple[int, int, str]]:
    """(repository, number, week) of the family's other PRs that `pr` names."""
    out = []
    for target, repo in enumerate(pool.repos):
        if target == index:
            continue
        for a, b in _ref_pattern(repo).findall(_text(pr)):
            found = pool.find(target, int(a or b))
            if found is not None:
                out.append((target, found[0].number, found[1]))
    return out


def _crossings_of(
    pool: _Pool, pr: PullRequest, index: int
) -> tuple[list[Crossing], list[Relation]]:
    key = pr_key(index, pr.number)
    crossings: list[Crossing] = []
    relations: list[Relation] = []
    fix = parse_title(pr.title).change_type == "fix"
    named_prs = _explicit(pool, pr, index)
    for target, number, week in named_prs:
        kind = RelationKind.FIXES if fix else RelationKind.FOLLOWS
        other = pr_key(target, number)
        relations.append(Relation(pr=key, other=other, kind=kind, week=week))
        crossings.append(
            Crossing(pr=key, kind=kind.value, repo=pool.repos[target], prs=[other], week=week)
        )
    for target, repo in enumerate(pool.repos):
        if target == index or not _name_pattern(repo).search(_text(pr)):
            continue
        if _moves_out(pr):
            got = _received(pool, pr, index, target)
            keys = [pr_key(target, n) for n, _ in got]
            relations += [
                Relation(pr=key, other=pr_key(target, n), kind=RelationKind.MOVED, week=w)
                for n, w in got
            ]
            week = next((w for _, w in got if w), "")
            crossings.append(Crossing(pr=key, kind="moved", repo=repo, prs=keys, week=week))
        elif target != 0 and not any(t == target for t, _, _ in named_prs):
            keys = [pr_key(target, n) for n in _matching(pool, pr, target)]
            relations += [Relation(pr=key, other=k, kind=RelationKind.SUBJECT) for k in keys]
            crossings.append(Crossing(pr=key, kind="names", repo=repo, prs=keys))
    return crossings, relations


def find_crossings(
    repos: Sequence[str],
    week: Sequence[Sequence[PullRequest]],
    earlier: Sequence[Mapping[str, Sequence[PullRequest]]] | None = None,
) -> tuple[list[Crossing], list[Relation]]:
    """The ties between the family's repositories (`week`: each one's PRs of the period, in
    the order of `repos`; `earlier`: each one's stored earlier weeks, label → PRs)."""
    pool = _Pool(repos, week, earlier or [{} for _ in repos])
    crossings: list[Crossing] = []
    relations: list[Relation] = []
    for index, prs in enumerate(week):
        for pr in prs:
            found, related = _crossings_of(pool, pr, index)
            crossings += found
            relations += related
    return crossings, relations
