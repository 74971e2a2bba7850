"""What a digest is about: one repository, or a named family of them (the first is the primary).

A family digest is one Digest over every repository of the scope. Its PRs are keyed by one
integer each, as a single repository's are, so that every part keyed by PR number (risks,
stories, relations, narrative, the model's checked sentences) works unchanged: a PR of the
primary keeps its number, the PR `n` of the scope's i-th repository is `i * KEY_STRIDE + n`.
A reference is written `#6200` for the primary and `verl-omni#25` for another (`ref_label`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# PR numbers stay below 10 million (the reference patterns read at most 7 digits)
KEY_STRIDE = 10_000_000
REPO_RE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
FAMILY_NAME_RE = re.compile(r"^[A-Za-z0-9_.-]+$")
ADHOC_JOIN = "+"
# a PR as a model names it: `#72`, `72`, `verl-omni#72`, `verl-project/verl-omni#72`
_ONE_REF = re.compile(r"^\s*(?:(?:(?:[\w.-]+/)?([\w.-]+))?#)?(\d{1,8})\s*$")


@dataclass(frozen=True)
class Scope:
    """One repository (`name` is the repository) or a family: its name and its repositories
    in order, the first the primary."""

    name: str
    repos: tuple[str, ...]

    @classmethod
    def one(cls, repo: str) -> Scope:
        return cls(repo, (repo,))

    @property
    def primary(self) -> str:
        return self.repos[0]

    @property
    def is_family(self) -> bool:
        return len(self.repos) > 1 or self.name != self.repos[0]

    @property
    def key(self) -> str:
        """What the store, locks and report links know the scope's digests by."""
        return self.name

    def index(self, repo: str) -> int | None:
        """The position of `repo` (case-insensitive; a short name such as `verl-omni` too)."""
        wanted = repo.lower()
        for i, name in enumerate(self.repos):
            if name.lower() == wanted or short_name(name).lower() == wanted:
                return i
        return None


def short_name(repo: str) -> str:
    """`verl-project/verl-omni` → `verl-omni`."""
    return repo.rpartition("/")[2]


def pr_key(index: int, number: int) -> int:
    """The key of PR `number` of the scope's `index`-th repository."""
    return index * KEY_STRIDE + number


def split_key(key: int) -> tuple[int, int]:
    """(repository index, PR number) of a family key."""
    return divmod(key, KEY_STRIDE)


def ref_label(repos: Sequence[str], key: int) -> str:
    """`#6200` (the primary's, or a single repository's), `verl-omni#25` (another's)."""
    index, number = split_key(key)
    if index == 0 or index >= len(repos):
        return f"#{key}"
    return f"{short_name(repos[index])}#{number}"


def family_name(key: str, repos: Sequence[str]) -> str:
    """What a family is called in titles: its `DIGEST_GROUPS` name; repositories listed by
    hand (`a/b+c/d`), their common owner (`verl-project`), else their names joined by `+`."""
    if ADHOC_JOIN not in key:
        return key
    owners = {repo.partition("/")[0] for repo in repos}
    if len(owners) == 1:
        return owners.pop()
    return ADHOC_JOIN.join(short_name(repo) for repo in repos)


def pr_anchor(key: int, repo: str = "") -> str:
    """The HTML id of a PR's row: `pr-6200`, or `verl-omni-25` for another repository's."""
    index, number = split_key(key)
    return f"{short_name(repo)}-{number}" if index and repo else f"pr-{key}"


def pr_ref(key: int, repo: str = "") -> str:
    """A PR named by itself (a ScoredPR's key and `repo`): `verl-omni#25` when it is of a
    family's other repository, else `#6200`."""
    index, number = split_key(key)
    return f"{short_name(repo)}#{number}" if index and repo else f"#{key}"


def key_of_ref(value: object, repos: Sequence[str]) -> int | None:
    """The key of a PR the model named (`#72`, `72`, `verl-omni#72`, or a key as an integer);
    None when it names no repository of the family."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, str):
        return None
    found = _ONE_REF.match(value)
    if found is None:
        return None
    name, number = found.group(1), int(found.group(2))
    if name is None:
        return number
    index = {short_name(r).lower(): i for i, r in enumerate(repos)}.get(name.lower())
    if index is None or number >= KEY_STRIDE:
        return None
    return pr_key(index, number)


def parse_groups(text: str) -> dict[str, list[str]]:
    """`DIGEST_GROUPS`: `name=o/a|o/b;other=c/d|e/f` → {name: [repos]} (checked by
    `check_groups`; a JSON object is read by the settings before this)."""
    out: dict[str, list[str]] = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        name, sep, repos = part.partition("=")
        if not sep:
            raise ValueError(f"expected name=owner/a|owner/b, got {part!r}")
        out[name.strip()] = [r.strip() for r in re.split(r"[|,]", repos) if r.strip()]
    return out


def check_groups(groups: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Each family named like `verl-project` (no `/`), with owner/name repositories."""
    for name, repos in groups.items():
        if not FAMILY_NAME_RE.match(name):
            why = "expected a family name without '/' such as verl-project"
            raise ValueError(f"{why}, got {name!r}")
        if not repos:
            raise ValueError(f"family {name!r} names no repository")
        for repo in repos:
            if not REPO_RE.match(repo):
                raise ValueError(f"expected owner/name in family {name!r}, got {repo!r}")
    return {name: list(repos) for name, repos in groups.items()}


def resolve_scope(names: Sequence[str], groups: Mapping[str, Sequence[str]]) -> Scope:
    """The scope `names` stand for: one repository, a family's name, or several repositories
    (and families) in order; several that are exactly a named family take its name."""
    repos: list[str] = []
    for name in names:
        repos += groups.get(name, [name])
    repos = list(dict.fromkeys(repos))
    if len(names) == 1 and names[0] in groups:
        return Scope(names[0], tuple(repos))
    if len(repos) == 1:
        return Scope.one(repos[0])
    for family, members in groups.items():
        if list(members) == repos:
            return Scope(family, tuple(repos))
    return Scope(ADHOC_JOIN.join(repos), tuple(repos))


def scope_of_key(key: str, groups: Mapping[str, Sequence[str]]) -> Scope:
    """The scope a stored key names (a repository, a family, or `a/b+c/d`)."""
    if key in groups:
        return Scope(key, tuple(groups[key]))
    if ADHOC_JOIN in key:
        return Scope(key, tuple(key.split(ADHOC_JOIN)))
    return Scope.one(key)
