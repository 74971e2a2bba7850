"""Large removals and migrations: many files deleted, or whole directories gone.

Rule ids name what is known about references to the removed paths, since the wording differs:
- ``unverified``: nobody searched the repository (``references`` is None: no token);
- ``search_incomplete``: the code search ran but did not answer for some removed path (it is
  missing from ``references``: refused, rate-limited, or past the week's query budget);
- ``references_remain``: files of the repository still name a removed path (listed in evidence);
- ``no_references``: searched, nothing refers to the removed paths any more;
- ``submodule``: the removed directory became a git submodule at the same path
  (``.gitmodules`` gains it): the code moved to another repository, and users of a checkout
  must run ``git submodule update --init`` to get it back; the risk says where it lives now
  (``url``). Its paths are not searched. Ranked as a migration by its size (below), never low.
- ``moved_repository``: the PR says it moves the removed code to another repository (a move
  word and "repository" in its title or body, and a link to that repository): the risk says
  where it lives now (``url``) — unless references remain or the search did not finish, which
  come first (``url`` is kept in the params).
A PR qualifies with 10 or more removed files, or a directory it empties: 3 or more files removed
or renamed away, including the directory's ``__init__.py`` or README. Severity: high from 20
removed files or 2,000 removed lines, or when references remain; low when verified clean and
nothing says the code lives on elsewhere; medium otherwise.

`removal_targets(pr)` is what the collector should search for: each removed directory, plus
each removed file outside those directories (never what moved into a submodule).
`search_terms` says how: GitHub's code search ignores punctuation, so a quoted path or import
path is a phrase of its words (``verl.experimental.vla`` and ``verl/experimental/vla`` are the
same query) and a one-word path (``recipe/``) would match every file that says "recipe": such a
directory is searched through its removed subdirectories and files instead.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

from service.core.models import Evidence, FileStatus, PullRequest, Risk, RiskKind, Severity
from service.core.profile import GITMODULES
from service.core.risks.base import (
    Context,
    RuleSet,
    evidence,
    line_evidence,
    make_risk,
    parse_patch,
)

MANY_FILES = 10
DIRECTORY_FILES = 3
HIGH_FILES = 20
HIGH_LINES = 2000
MAX_TARGETS = 3
MARKERS = frozenset(
    {"__init__.py", "README.md", "README.rst", "README", "setup.py", "pyproject.toml"}
)
MAX_PHRASES = 3
# what GitHub's code search treats as a separator (github/docs "Searching code": these symbols
# are ignored) besides whitespace
SEARCH_IGNORED = ".,:;/\\`'\"=*!?#$&+^|~<>(){}[]@"
_SEARCH_WORD = re.compile("[^\\s" + re.escape(SEARCH_IGNORED) + "]+")
_SUBMODULE_SECTION = re.compile(r"^\s*\[submodule\b")
_SUBMODULE_SETTING = re.compile(r"^\s*(path|url)\s*=\s*(\S+)\s*$")
_MOVE_WORD = re.compile(r"\b(?:move[sd]?|moving|migrat(?:e|es|ed|ing)|split)\b", re.IGNORECASE)
_REPO_WORD = re.compile(r"\b(?:repo|repos|repository|repositories)\b", re.IGNORECASE)
_REPO_LINK = re.compile(r"https?://github\.com/([\w.-]+/[\w.-]+?)(?:\.git)?(?=[/)\s\]>\"'#?]|$)")
_PR_REPO = re.compile(r"https?://[^/]+/([\w.-]+/[\w.-]+)/pull/\d+")


@dataclass(frozen=True)
class Submodule:
    """A git submodule the PR adds: where it sits, where its code lives, and the evidence."""

    path: str
    url: str
    proof: Evidence


@dataclass(frozen=True)
class SearchTerm:
    """One removed path and the code-search phrases that find what still names it."""

    target: str
    phrases: tuple[str, ...]


def _removed_paths(pr: PullRequest) -> list[str]:
    return [c.path for c in pr.files if c.status == FileStatus.REMOVED]


def _gone_from(pr: PullRequest) -> list[str]:
    """Paths that no longer exist after the PR: removed files and rename sources."""
    moved = [c.previous_path for c in pr.files if c.status == FileStatus.RENAMED]
    return _removed_paths(pr) + [path for path in moved if path]


def search_words(text: str) -> list[str]:
    """The words GitHub's code search sees in `text` (punctuation ignored, case folded)."""
    return [word.lower() for word in _SEARCH_WORD.findall(text)]


def submodules(pr: PullRequest) -> list[Submodule]:
    """Submodules the PR's `.gitmodules` gains (a `path =` and `url =` pair it adds)."""
    found: list[Submodule] = []
    for change in pr.files:
        if change.path != GITMODULES:
            continue
        values: dict[str, str] = {}
        where = None
        for line in parse_patch(change.patch).added:
            if _SUBMODULE_SECTION.match(line.text):
                values, where = {}, None
                continue
            setting = _SUBMODULE_SETTING.match(line.text)
            if setting:
                values[setting.group(1)] = setting.group(2)
                where = where if setting.group(1) == "url" else line
            if "path" in values and "url" in values and where is not None:
                path = values["path"].strip("/")
                found.append(Submodule(path, values["url"], line_evidence(change.path, where)))
                values, where = {}, None
    return found


def _in_submodule(path: str, subs: list[Submodule]) -> bool:
    return any(path == s.path or path.startswith(s.path + "/") for s in subs)


def removed_directories(pr: PullRequest) -> list[str]:
    """Directories the PR empties: 3+ files gone, its marker file (``__init__.py``, README…)
    gone too, and no file of the PR left in it. Only the outermost such directory is named.

    The marker matters: a PR lists only the files it touches, so "every listed file of
    verl/utils is deleted" says nothing about the 40 files it does not list."""
    gone = _gone_from(pr)
    alive = [c.path for c in pr.files if c.status != FileStatus.REMOVED]
    counts: dict[str, int] = defaultdict(int)
    for path in gone:
        for parent in PurePosixPath(path).parents:
            counts[str(parent)] += 1
    marked = {str(PurePosixPath(p).parent) for p in gone if PurePosixPath(p).name in MARKERS}
    deleted = _removed_paths(pr)
    whole = [
        folder
        for folder, count in counts.items()
        if count >= DIRECTORY_FILES
        and folder in marked
        and not any(p.startswith(folder + "/") for p in alive)
        and any(p.startswith(folder + "/") for p in deleted)  # renamed away whole: moved
    ]
    return sorted(f for f in whole if not any(f.startswith(o + "/") for o in whole if o != f))


def _all_targets(pr: PullRequest) -> list[str]:
    folders = removed_directories(pr)
    loose = [p for p in _removed_paths(pr) if not any(p.startswith(f + "/") for f in folders)]
    return folders + loose


def removal_targets(pr: PullRequest) -> list[str]:
    """What to search the repository for: removed directories, then loose removed files; what
    moved into a submodule the PR adds is not removed."""
    subs = submodules(pr)
    return [t for t in _all_targets(pr) if not _in_submodule(t, subs)]


def _phrases(target: str, pr: PullRequest) -> tuple[str, ...]:
    """Code-search phrases for a removed path: the import path of Python code, else the path;
    a one-word directory through its biggest removed children (a bare word matches too much)."""
    python = target.endswith(".py") or any(
        p.startswith(target + "/") and p.endswith(".py") for p in _gone_from(pr)
    )
    phrase = target.removesuffix(".py").replace("/", ".") if python else target
    if len(search_words(phrase)) > 1:
        return (phrase,)
    removed = [c for c in pr.files if c.status == FileStatus.REMOVED]
    sizes: dict[str, int] = defaultdict(int)
    for change in removed:
        parts = change.path.split("/")
        if change.path.startswith(target + "/") and len(parts) > 1:
            sizes["/".join(parts[:2])] += change.deletions
    children = sorted(sizes, key=lambda child: (-sizes[child], child))[:MAX_PHRASES]
    return tuple(p for child in children for p in _phrases(child, pr) if len(search_words(p)) > 1)


def search_terms(prs: list[PullRequest], limit: int) -> list[SearchTerm]:
    """What the collector searches for, at most `limit` phrases in all: the removal targets of
    the week's large removals, biggest removal first (so the detector reads what was
    searched). A target whose phrases do not all fit is left out (it stays unsearched)."""
    terms: list[SearchTerm] = []
    used = 0
    for pr in _ranked(prs):
        for target in removal_targets(pr):
            phrases = _phrases(target, pr)
            if any(t.target == target for t in terms) or not phrases:
                continue
            if used + len(phrases) > limit:
                return terms
            terms.append(SearchTerm(target, phrases))
            used += len(phrases)
    return terms


def _reference_keys(target: str) -> tuple[str, ...]:
    module = target.removesuffix(".py").replace("/", ".")
    return (target, target + "/", module)


def _remaining(targets: list[str], references: dict[str, list[str]]) -> list[Evidence]:
    """Evidence per file that still names a removed target (path, or dotted module name)."""
    found = []
    for target in targets:
        key = next((k for k in _reference_keys(target) if k in references), None)
        for path in references.get(key, []) if key else []:
            found.append(evidence(path, None, target))
    return found


def _folder_evidence(pr: PullRequest, folder: str) -> Evidence:
    """The folder's deleted files by name, then what moved out of it (old → new): a moved
    subdirectory is not deleted."""
    names = [PurePosixPath(p).name for p in _removed_paths(pr) if p.startswith(folder + "/")]
    return evidence(folder + "/", None, ", ".join([*names, *_moves_out_of(pr, folder)]))


def _moves_out_of(pr: PullRequest, folder: str) -> list[str]:
    """Renames out of `folder`, one `old/ → new/` per moved directory (relative to `folder`),
    or `name → new path` for a file moved alone."""
    moves: dict[tuple[str, str], list[str]] = defaultdict(list)
    for change in pr.files:
        old = change.previous_path
        if change.status != FileStatus.RENAMED or not old or not old.startswith(folder + "/"):
            continue
        source, target = PurePosixPath(old), PurePosixPath(change.path)
        moves[(str(source.parent), str(target.parent))].append(source.name)
    shown = []
    for (parent, home), names in moves.items():
        if parent == folder:
            shown += [f"{name} → {home}/{name}" for name in names]
        else:
            shown.append(f"{parent.removeprefix(folder + '/')}/ → {home}/")
    return shown


def _severity(files: int, lines: int, rule: str) -> Severity:
    if rule == "references_remain" or files >= HIGH_FILES or lines >= HIGH_LINES:
        return Severity.HIGH
    return Severity.LOW if rule == "no_references" else Severity.MEDIUM


def destination(pr: PullRequest) -> str | None:
    """The repository the PR says it moves code to: a link in its body to another
    repository, when its title or body speaks of moving to a repository."""
    text = f"{pr.title}\n{pr.body}"
    if not (_MOVE_WORD.search(text) and _REPO_WORD.search(text)):
        return None
    own = _PR_REPO.match(pr.url)
    for link in _REPO_LINK.finditer(pr.body):
        name = link.group(1)
        if own and name.lower() == own.group(1).lower():
            continue
        if link.end() < len(pr.body) and pr.body[link.end() :].startswith(("/pull/", "/issues/")):
            continue
        return f"https://github.com/{name}"
    return None


def is_large_removal(pr: PullRequest) -> bool:
    """Whether the PR removes many files or empties whole directories."""
    return len(_removed_paths(pr)) >= MANY_FILES or bool(removed_directories(pr))


def _ranked(prs: list[PullRequest]) -> list[PullRequest]:
    return sorted(
        (pr for pr in prs if is_large_removal(pr)),
        key=lambda pr: (
            -sum(c.deletions for c in pr.files if c.status == FileStatus.REMOVED),
            pr.number,
        ),
    )


def search_targets(prs: list[PullRequest], limit: int) -> list[str]:
    """The removal targets `search_terms` covers with at most `limit` queries."""
    return [term.target for term in search_terms(prs, limit)]


def _searched(targets: list[str], references: dict[str, list[str]] | None) -> bool:
    """True when every target was searched (it has an entry, even an empty one)."""
    if references is None:
        return False
    return all(any(k in references for k in _reference_keys(t)) for t in targets)


def _rule(targets: list[str], remaining: list[Evidence], context: Context) -> str:
    if remaining:
        return "references_remain"
    if context.references is None:
        return "unverified"
    return "no_references" if _searched(targets, context.references) else "search_incomplete"


def _moved_away(pr: PullRequest) -> Iterator[Risk]:
    """Directories the PR turns into submodules: moved to another repository, not deleted."""
    subs = submodules(pr)
    moved = [s for s in subs if any(_in_submodule(t, [s]) for t in _all_targets(pr))]
    if not moved:
        return
    files = [c for c in pr.files if c.status == FileStatus.REMOVED and _in_submodule(c.path, moved)]
    lines = sum(c.deletions for c in files)
    yield make_risk(
        RiskKind.MIGRATION,
        "submodule",
        _severity(len(files), lines, "submodule"),
        [pr.number],
        [s.proof for s in moved] + [_folder_evidence(pr, s.path) for s in moved],
        files=len(files),
        lines=lines,
        targets=", ".join(s.path + "/" for s in moved[:MAX_TARGETS]),
        url=", ".join(s.url for s in moved[:MAX_TARGETS]),
    )


def large_removal(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """Many files or whole directories removed, with what is known about leftover references;
    a directory that became a submodule is reported as moved."""
    if not is_large_removal(pr):
        return
    yield from _moved_away(pr)
    subs = submodules(pr)
    removed = [
        c for c in pr.files if c.status == FileStatus.REMOVED and not _in_submodule(c.path, subs)
    ]
    folders = [f for f in removed_directories(pr) if not _in_submodule(f, subs)]
    if len(removed) < MANY_FILES and not folders:
        return
    targets = removal_targets(pr)
    remaining = _remaining(targets, context.references or {})
    rule = _rule(targets, remaining, context)
    url = destination(pr)
    if url and rule in ("unverified", "no_references"):
        rule = "moved_repository"  # where it lives now; what a search found or missed first
    lines = sum(c.deletions for c in removed)
    shown = [f + "/" for f in folders] or targets
    risk = make_risk(
        RiskKind.MIGRATION,
        rule,
        _severity(len(removed), lines, rule),
        [pr.number],
        remaining + [_folder_evidence(pr, f) for f in folders],
        files=len(removed),
        lines=lines,
        targets=", ".join(shown[:MAX_TARGETS]),
        references=len(remaining),
        **({"url": url} if url else {}),
    )
    risk.verified = _searched(targets, context.references)
    yield risk


DETECTOR = RuleSet(RiskKind.MIGRATION, (large_removal,))
