"""Narrow a digest to the PRs a filter matches (`module:`, `label:`, `path:`, `author:`,
`severity:`), with its own figures: stats, risks, trends and narrative are recomputed for the
matching PRs by the same builders the full digest uses. Parsing the filter text is the command
engine's job (service/commands/filters.py); this module only matches and narrows."""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from service.core.globs import glob_matches
from service.core.mentions import leaf_risks
from service.core.models import (
    Contributor,
    Digest,
    Risk,
    ScoredPR,
    Severity,
    Stats,
    TrendBucket,
    Trends,
)
from service.core.narrative import build_narrative
from service.core.ranking import SEVERITY_RANK
from service.core.trends import authors, bucket_pairs

# the filter keys in the order a filter is written back (`describe`)
FILTER_KEYS = ("module", "label", "path", "author", "severity")
# the path indexes kept (one per digest read lately: a burst of filtered reads shares them)
PATH_INDEXES = 16
GLOB_WILDCARDS = ("*", "?")


class DigestFilter(BaseModel):
    """What a reader asked to see. Within a key the values are alternatives (`module:a,b` is
    a or b); different keys must all hold. `severity` keeps risks at or above it, and the PRs
    that carry one. Modules are canonical names, logins and labels compare case-insensitively."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    modules: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    severity: Severity | None = None

    @property
    def empty(self) -> bool:
        return not (self.modules or self.labels or self.paths or self.authors or self.severity)

    def describe(self) -> str:
        """The filter written back in the grammar, keys in a fixed order: one text per filter
        (a subscription's key, and the line a filtered answer shows)."""
        values = {
            "module": self.modules,
            "label": self.labels,
            "path": self.paths,
            "author": self.authors,
            "severity": (self.severity.value,) if self.severity else (),
        }
        return " ".join(f"{key}:{','.join(values[key])}" for key in FILTER_KEYS if values[key])

    def keeps_risk(self, risk: Risk) -> bool:
        """Whether `risk` is at or above the severity asked for (any risk without one)."""
        if self.severity is None:
            return True
        return SEVERITY_RANK[risk.severity] <= SEVERITY_RANK[self.severity]


def _lower(values: Iterable[str]) -> set[str]:
    return {v.lower() for v in values}


def labels_by_pr(trends: Trends) -> dict[int, set[str]]:
    """Each PR's labels (lower case), read back from the label trend buckets."""
    out: dict[int, set[str]] = {}
    for bucket in trends.labels:
        for number in bucket.prs:
            out.setdefault(number, set()).add(bucket.key.lower())
    return out


def pr_matches(pr: ScoredPR, flt: DigestFilter, labels: set[str]) -> bool:
    """Module, label, path and author keys (severity is decided by the risks)."""
    if flt.modules and not _lower(pr.modules) & _lower(flt.modules):
        return False
    if flt.labels and not labels & _lower(flt.labels):
        return False
    if flt.paths and not any(_path_hit(path, flt.paths) for path in pr.paths):
        return False
    return not flt.authors or (pr.author or "").lower() in _lower(flt.authors)


def _path_hit(path: str, globs: tuple[str, ...]) -> bool:
    """A glob (`verl/workers/**`, `*.md`), or a folder or file named plainly (`docs`); the
    globs are a reader's text, matched in linear time (service/core/globs.py)."""
    for glob in globs:
        plain = glob.rstrip("/")
        if glob_matches(path, glob) or path == plain or path.startswith(plain + "/"):
            return True
    return False


@dataclass(frozen=True)
class PathIndex:
    """A digest's distinct paths, sorted, and the PRs that touch each: a `path:` filter
    matches each path once, and only the paths that start with its literal part."""

    paths: tuple[str, ...]
    prs: dict[str, tuple[int, ...]]

    @classmethod
    def of(cls, digest: Digest) -> PathIndex:
        prs: dict[str, list[int]] = {}
        for pr in digest.prs:
            for path in pr.paths:
                prs.setdefault(path, []).append(pr.number)
        return cls(tuple(sorted(prs)), {path: tuple(n) for path, n in prs.items()})

    def numbers(self, globs: tuple[str, ...]) -> set[int]:
        """The PRs with a path any of `globs` matches (as `_path_hit` decides)."""
        found: set[int] = set()
        for glob in globs:
            prefix = _literal_prefix(glob)
            for path in self.paths[bisect_left(self.paths, prefix) :]:
                if not path.startswith(prefix):
                    break
                if _path_hit(path, (glob,)):
                    found.update(self.prs[path])
        return found


def _literal_prefix(glob: str) -> str:
    """What every path `glob` matches starts with: the text before its first wildcard (a
    plain folder `docs/` matches `docs` and `docs/…`, so the slash is not part of it)."""
    cut = min((i for w in GLOB_WILDCARDS if (i := glob.find(w)) >= 0), default=len(glob))
    return glob[:cut] if cut < len(glob) else glob.rstrip("/")


class _PathIndexes:
    """The path indexes of the digests read lately, keyed by what identifies a stored digest
    (a rebuilt digest has a new `generated_at`, so its index is made again)."""

    def __init__(self, size: int = PATH_INDEXES) -> None:
        self.size = size
        self._kept: OrderedDict[tuple[object, ...], PathIndex] = OrderedDict()
        self._lock = threading.Lock()

    def of(self, digest: Digest) -> PathIndex:
        key = (digest.repo, digest.period, digest.language, digest.generated_at, len(digest.prs))
        with self._lock:
            index = self._kept.get(key)
            if index is not None:
                self._kept.move_to_end(key)
                return index
        index = PathIndex.of(digest)
        with self._lock:
            self._kept[key] = index
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return index


_INDEXES = _PathIndexes()


def matching_numbers(digest: Digest, flt: DigestFilter) -> list[int]:
    """The PRs of `digest` the filter matches, most important first (the digest's order)."""
    labels = labels_by_pr(digest.trends)
    on_paths = _INDEXES.of(digest).numbers(flt.paths) if flt.paths else None
    by_path = flt.model_copy(update={"paths": ()})
    numbers = [
        p.number
        for p in digest.prs
        if (on_paths is None or p.number in on_paths)
        and pr_matches(p, by_path, labels.get(p.number, set()))
    ]
    if flt.severity is None:
        return numbers
    flagged = {n for r in digest.risks if flt.keeps_risk(r) for n in _risk_numbers(r)}
    return [n for n in numbers if n in flagged]


def _risk_numbers(risk: Risk) -> list[int]:
    return [n for member in risk.members for n in member.prs] if risk.members else risk.prs


def narrow_risk(risk: Risk, keep: set[int]) -> Risk | None:
    """`risk` as far as it concerns the kept PRs: a roll-up keeps the members about them (and
    their evidence); a single risk is kept whole when it names one of them, else dropped."""
    if risk.members:
        members = [m for m in risk.members if set(m.prs) & keep]
        if not members:
            return None
        prs = [n for m in members for n in m.prs if n in keep]
        evidence = [e for e in risk.evidence if e.pr is None or e.pr in keep]
        return risk.model_copy(
            update={"members": members, "prs": list(dict.fromkeys(prs)), "evidence": evidence}
        )
    return risk if set(risk.prs) & keep else None


def _stats(prs: list[ScoredPR], risks: list[Risk], trends: Trends) -> Stats:
    paths = {path for p in prs for path in p.paths}
    known = [c.first_time for c in trends.contributors]
    contributors, unknown = authors((p.author, p.author_name) for p in prs)
    return Stats(
        prs=len(prs),
        additions=sum(p.additions for p in prs),
        deletions=sum(p.deletions for p in prs),
        changed_files=len(paths) if paths else sum(p.changed_files for p in prs),
        contributors=contributors,
        unknown_authors=unknown,
        first_time_contributors=None
        if known and all(k is None for k in known)
        else sum(1 for k in known if k),
        risks_high=sum(1 for r in leaf_risks(risks) if r.severity is Severity.HIGH),
        risks_medium=sum(1 for r in leaf_risks(risks) if r.severity is Severity.MEDIUM),
        risks_low=sum(1 for r in leaf_risks(risks) if r.severity is Severity.LOW),
    )


def _buckets(
    buckets: list[TrendBucket], keep: set[int], before: list[TrendBucket] | None
) -> list[TrendBucket]:
    pairs = ((b.key, n) for b in buckets for n in b.prs if n in keep)
    return bucket_pairs(pairs, before)


def narrow_trends(trends: Trends, keep: set[int], previous: Trends | None) -> Trends:
    """The trend buckets counted over the kept PRs; `previous` (already narrowed by the same
    filter) gives the week-before counts, or None when unknown."""
    contributors = [
        Contributor(login=c.login, name=c.name, prs=kept, first_time=c.first_time)
        for c in trends.contributors
        if (kept := [n for n in c.prs if n in keep])
    ]
    contributors.sort(key=lambda c: (-len(c.prs), c.login.lower()))
    return Trends(
        modules=_buckets(trends.modules, keep, previous.modules if previous else None),
        types=_buckets(trends.types, keep, previous.types if previous else None),
        labels=_buckets(trends.labels, keep, previous.labels if previous else None),
        categories=_buckets(trends.categories, keep, previous.categories if previous else None),
        contributors=contributors,
        previous_period=trends.previous_period if previous is not None else None,
    )


def narrow_digest(digest: Digest, flt: DigestFilter, previous: Digest | None = None) -> Digest:
    """A digest of the PRs `flt` matches, with its own figures and narrative, saying which
    filter it applies. `previous` (the week before, unfiltered) gives trend deltas."""
    if flt.empty:
        return digest
    keep = set(matching_numbers(digest, flt))
    prs = [p for p in digest.prs if p.number in keep]
    risks = [
        kept
        for risk in digest.risks
        if flt.keeps_risk(risk) and (kept := narrow_risk(risk, keep)) is not None
    ]
    before = _narrowed_trends(previous, flt) if previous is not None else None
    trends = narrow_trends(digest.trends, keep, before)
    narrowed = digest.model_copy(
        update={
            "prs": prs,
            "risks": risks,
            "trends": trends,
            "stats": _stats(prs, risks, trends),
            "filter": flt.describe(),
        }
    )
    narrowed.narrative = build_narrative(narrowed)
    return narrowed


def _narrowed_trends(digest: Digest, flt: DigestFilter) -> Trends:
    return narrow_trends(digest.trends, set(matching_numbers(digest, flt)), None)


def week_modules(digest: Digest) -> list[str]:
    """The module names of the week, most PRs first (what an unknown-module answer lists)."""
    return [b.key for b in digest.trends.modules]
