"""Classify a PR: modules, change type, breaking flag and key-change category, from its title,
labels and changed paths, following the repo profile."""

from __future__ import annotations

import functools
import re
from collections import defaultdict

from pydantic import BaseModel, ConfigDict

from service.core.models import FileStatus, PullRequest
from service.core.profile import CategoryRule, RepoProfile, canonical_name
from service.core.titles import ParsedTitle, parse_title

OTHER = "other"
MISC = "misc"
BREAKING_LABEL = "breaking"
# a PR touching many modules is still about its few most-changed ones
MAX_PATH_MODULES = 3
FROM_TITLE = "title"
FROM_LABELS = "labels"
FROM_PATHS = "paths"


class Classification(BaseModel):
    """What a PR is about: its modules (canonical), change type, breaking flag and category."""

    model_config = ConfigDict(extra="forbid")
    modules: list[str]
    change_type: str
    breaking: bool
    category: str
    is_revert: bool
    reverted_title: str | None
    modules_from: str  # "title" | "paths" | "labels"


def _known_modules(profile: RepoProfile) -> frozenset[str]:
    """Every module name the profile knows, canonical: worked out once per profile content (a
    big week asked it for every PR, ~70 names canonicalised each time)."""
    aliases = tuple(profile.module_aliases.items())
    return _known_of(tuple(profile.title_modules), tuple(profile.module_weights), aliases)


@functools.lru_cache(maxsize=16)
def _known_of(
    title_modules: tuple[str, ...], weighted: tuple[str, ...], aliases: tuple[tuple[str, str], ...]
) -> frozenset[str]:
    canonical = dict(aliases)
    known = set(title_modules) | set(weighted) | set(canonical.values())
    return frozenset(canonical_name(m, canonical) for m in known)


def _canonical_modules(raw: list[str], profile: RepoProfile) -> list[str]:
    """Aliased, de-duplicated modules; unknown names are dropped when the profile lists modules."""
    known = _known_modules(profile)
    out: list[str] = []
    for name in raw:
        module = profile.canonical_module(name)
        if module and module not in out and (not profile.title_modules or module in known):
            out.append(module)
    return out


def modules_from_paths(pr: PullRequest, profile: RepoProfile) -> list[str]:
    """Modules of the changed paths, most-changed lines first (ties: path order)."""
    lines: dict[str, int] = defaultdict(int)
    for change in pr.files:
        lines[profile.module_for_path(change.path)] += change.additions + change.deletions
    ranked = sorted(lines, key=lambda m: -lines[m])
    if len(ranked) > 1 and MISC in ranked:
        ranked.remove(MISC)
    return ranked[:MAX_PATH_MODULES]


def _canonical_type(word: str | None, profile: RepoProfile) -> str | None:
    if not word:
        return None
    lowered = word.strip().lower()
    aliased = profile.type_aliases.get(lowered, lowered)
    known = (
        set(profile.title_types) | set(profile.type_weights) | set(profile.type_aliases.values())
    )
    return aliased if aliased in known else None


def type_from_keywords(text: str, profile: RepoProfile) -> str | None:
    """The type whose keyword occurs earliest (as a whole word) in `text`, if any."""
    lowered = text.lower()
    best: tuple[int, str] | None = None
    for change_type, words in profile.type_keywords.items():
        for word in words:
            match = re.search(rf"(?<![\w-]){re.escape(word.lower())}(?![\w-])", lowered)
            if match and (best is None or match.start() < best[0]):
                best = (match.start(), change_type)
    return best[1] if best else None


def _label_facts(labels: list[str], profile: RepoProfile) -> tuple[list[str], str | None, bool]:
    """Modules, a change type and a breaking flag that GitHub labels name."""
    modules = _canonical_modules(labels, profile) if profile.title_modules else []
    types = [t for t in (_canonical_type(label, profile) for label in labels) if t]
    breaking = any(label.strip().lower() == BREAKING_LABEL for label in labels)
    return modules, (types[0] if types else None), breaking


def _pick_modules(
    parsed: ParsedTitle, label_modules: list[str], pr: PullRequest, profile: RepoProfile
) -> tuple[list[str], str]:
    title_modules = _canonical_modules(parsed.modules, profile)
    if title_modules:
        extra = [m for m in label_modules if m not in title_modules]
        return title_modules + extra, FROM_TITLE
    if label_modules:
        return label_modules, FROM_LABELS
    return modules_from_paths(pr, profile) or [MISC], FROM_PATHS


def _rule_matches(rule: CategoryRule, c_type: str, modules: list[str], pr: PullRequest) -> bool:
    if c_type in rule.types:
        return True
    if modules and modules[0] in rule.modules:
        return True
    title = pr.title.lower()
    if any(re.search(rf"(?<!\w){re.escape(k.lower())}", title) for k in rule.title_keywords):
        return True
    if rule.min_deleted_files is not None:
        removed = sum(1 for f in pr.files if f.status == FileStatus.REMOVED)
        return removed >= rule.min_deleted_files
    return False


def category_for(
    pr: PullRequest, change_type: str, modules: list[str], profile: RepoProfile
) -> str:
    """The first profile category rule that the PR matches, else `other`."""
    for rule in profile.categories:
        if _rule_matches(rule, change_type, modules, pr):
            return rule.name
    return OTHER


def classify_pr(pr: PullRequest, profile: RepoProfile) -> Classification:
    """Classify one PR; tolerant of any title, never raises on odd input."""
    parsed = parse_title(pr.title, frozenset(profile.title_types))
    label_modules, label_type, label_breaking = _label_facts(pr.labels or [], profile)
    modules, modules_from = _pick_modules(parsed, label_modules, pr, profile)
    change_type = (
        _canonical_type(parsed.change_type, profile)
        or label_type
        or _canonical_type(type_from_keywords(parsed.description, profile), profile)
        or OTHER
    )
    return Classification(
        modules=modules,
        change_type=change_type,
        breaking=parsed.breaking or label_breaking,
        category=category_for(pr, change_type, modules, profile),
        is_revert=parsed.is_revert,
        reverted_title=parsed.reverted_title,
        modules_from=modules_from,
    )
