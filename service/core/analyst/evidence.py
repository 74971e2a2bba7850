"""What the checker grounds a claim in, beyond the facts the model is shown: per PR its whole
cleaned body, its changed lines by side (added or removed), its file paths by status, the
actions its title, body and diff show, the config values it changes, its risks, checks and
reviews; for the week, the relations the digest found between PRs and the earlier week's counts.

Built from the digest and the collected PRs without copying them; each PR's evidence is worked
out the first time a sentence cites it, so a 2,000-PR week costs only what the model cites.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from service.core.analyst.body import body_lines, speaks_to_the_model
from service.core.analyst.glossary import glossary
from service.core.mentions import leaf_risks
from service.core.models import (
    Digest,
    FileStatus,
    PullRequest,
    RelationKind,
    ReviewState,
    Risk,
    RiskKind,
    ScoredPR,
)
from service.core.risks.base import changed_texts
from service.core.trends import known_login

# `key: value`, `key = value`, `"key": value`, `--key=value`, `key=value,` in a changed line
_SETTING = re.compile(
    r"""^\s*[-+]*\s*["']?(?P<key>[A-Za-z_][\w.\-]*)["']?\s*(?::|=)\s*(?P<value>[^#,\n]*)"""
)
TRUE_WORDS = frozenset({"true", "yes", "on", "1", "enable", "enabled"})
FALSE_WORDS = frozenset({"false", "no", "off", "0", "disable", "disabled", "none", "null"})


_WORDS = re.compile(r"[a-z][a-z0-9]*")
MIN_PLURAL = 3  # a plural word's singular is a key part (`steps`: `step`; not `is`, `as`)
_BULLET = re.compile(r"^\s*\*\s+")  # a list item's mark: `* step:400`


def _words(sentence: str) -> set[str]:
    """A sentence's words, and the initials of each two or three in a row ("learning rate":
    `lr`), as a setting's key parts may spell them."""
    found = _WORDS.findall(sentence.lower())
    initials = {"".join(w[0] for w in found[i : i + n]) for n in (2, 3) for i in range(len(found))}
    # "400 steps" names the key `step`
    singular = {w[:-1] for w in found if len(w) > MIN_PLURAL and w.endswith("s")}
    return set(found) | singular | {i for i in initials if len(i) > 1}


def _beside(line: str, names: Sequence[str], words: set[str]) -> bool:
    """A line naming one of `names`, or setting a key whose every part is one of `words`."""
    if any(name in line for name in names):
        return True
    setting = _SETTING.match(_BULLET.sub("", line))
    if setting is None:
        return False
    parts = [p for p in re.split(r"[._\-]", setting["key"].rsplit(".", 1)[-1]) if p]
    return bool(parts) and all(part in words for part in parts)


@dataclass(frozen=True)
class SourceLine:
    """A line of a PR's data: `side` "+" (added), "-" (removed) or "body"; `path` its file."""

    side: str
    path: str
    text: str


@dataclass(frozen=True)
class Searchable:
    """A PR's lines, added then removed then the body's, and their lower-cased text joined by
    newlines, with where each line starts in it (a search runs once over the whole)."""

    lines: tuple[SourceLine, ...]
    text: str
    starts: tuple[int, ...]

    def line_at(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset) - 1


@dataclass(frozen=True)
class PREvidence:
    """One PR's evidence, lower-cased: `text` is what it says (title, body, reviews, risks,
    modules), `added` and `removed` what its diff adds and removes (lines and file paths)."""

    number: int
    text: str
    headline: str = ""  # title and modules: what the PR is about, in its own words
    paths: str = ""
    added: str = ""
    removed: str = ""
    actions: frozenset[str] = frozenset()
    said_actions: frozenset[str] = frozenset()
    risks: frozenset[str] = frozenset()
    breaking: bool = False
    failing_checks: bool = False
    approved: bool = False
    reviewed: bool = False
    author: str = ""
    changed: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # removed, added lines
    # the same lines by file: (path, removed, added); and the body's lines as written
    files: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()
    body: tuple[str, ...] = ()
    # each file the PR creates, deletes or renames: (path, "added" | "removed" | "renamed
    # from <old path>"); a modified file is not listed
    statuses: tuple[tuple[str, str], ...] = ()
    # the patches' unchanged lines: names the changed code stands beside (a setting the
    # script keeps, a variable the new line divides by), not what the PR changes
    context: str = ""
    # the same by file: (path, its unchanged lines and hunk headers)
    unchanged: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @functools.cached_property
    def settings(self) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
        """Each setting the diff gives another value: (old values, new values); worked out
        only for a sentence about a default or a switch."""
        return _settings(*self.changed)

    @functools.cached_property
    def searchable(self) -> Searchable:
        """Its changed lines by file and its body's lines, for the verifier's search; worked
        out only when a sentence citing it is verified."""
        files = self.files
        lines = [SourceLine("+", path, t) for path, _, new in files for t in new if t.strip()]
        lines += [SourceLine("-", path, t) for path, old, _ in files for t in old if t.strip()]
        lines += [SourceLine("body", "", t) for t in self.body]
        starts, offset = [], 0
        for line in lines:
            starts.append(offset)
            offset += len(line.text) + 1
        text = "\n".join(line.text for line in lines).lower()
        return Searchable(tuple(lines), text, tuple(starts))

    def states(self, figure: str, names: Sequence[str], sentence: str) -> bool:
        """Whether a changed line holds `figure` (as written, a whole token) beside what the
        sentence gives it to: one of its `names`, or the line's setting spelled in words
        ("raises the image resolution from 384 to 512": `-IMAGE_RESOLUTION=384`,
        `+IMAGE_RESOLUTION=512`; "learning rate" for `lr`). A figure alone on some line is
        no fact of the sentence (`0.8.0` of another package), and the body's lines do not
        count: a figure of a benchmark table is easily told of the wrong row."""
        said = figure.lower().lstrip("v")
        if not said[:1].isdigit():
            return False
        search = self.searchable
        words = _words(sentence)
        pattern = re.compile(rf"(?<![a-z0-9_.]){re.escape(said)}(?![a-z0-9_]|\.\d)")
        for match in pattern.finditer(search.text):
            line = search.lines[search.line_at(match.start())]
            if line.side == "body":
                break  # the body's lines come after the changed ones
            if _beside(line.text.lower(), names, words):
                return True
        return False

    @property
    def everything(self) -> str:
        """Its words, its paths and both sides of its diff."""
        return f"{self.text}\n{self.paths}\n{self.added}\n{self.removed}"

    @property
    def names(self) -> str:
        """Everything, and the unchanged lines of its patches: where a name it uses is."""
        return f"{self.everything}\n{self.context}"

    @property
    def about(self) -> str:
        """What the PR says it is about and the files it touches: what a model is shown."""
        return f"{self.text}\n{self.paths}"


def _setting_values(lines: Sequence[str]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for line in lines:
        match = _SETTING.match(line)
        if match:
            key = match["key"].lower().rsplit(".", 1)[-1]
            value = match["value"].strip().strip("\"'").lower()
            out.setdefault(key, set()).add(value)
    return out


def _settings(
    removed: Sequence[str], added: Sequence[str]
) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """Each key set on both sides of the diff with other values: (old values, new values)."""
    before, after = _setting_values(removed), _setting_values(added)
    return {
        key: (frozenset(before[key]), frozenset(after[key]))
        for key in before.keys() & after.keys()
        if before[key] != after[key]
    }


def changed_settings(
    removed: Sequence[str], added: Sequence[str]
) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """Each key the lines of one file set on both sides with other values (see `settings`)."""
    return _settings(removed, added)


def _diff_actions(pr: PullRequest) -> set[str]:
    """What the file list shows (a switch flipped is read from `settings` when asked)."""
    statuses = {f.status for f in pr.files}
    actions = set()
    if FileStatus.ADDED in statuses:
        actions.add("add")
    if FileStatus.REMOVED in statuses:
        actions.add("remove")
    if FileStatus.RENAMED in statuses:
        actions |= {"rename", "move"}
    return actions


def text_actions(text: str) -> set[str]:
    """The actions a PR's own words name (`remove the weekly workflow` → remove)."""
    return {name for name, action in glossary().actions.items() if action.evidence.search(text)}


def _paths(pr: PullRequest) -> tuple[list[str], list[str]]:
    """The paths a PR adds (new files, new names) and removes (deleted files, old names); a
    modified file is on neither side."""
    new = [f.path for f in pr.files if f.status in (FileStatus.ADDED, FileStatus.RENAMED)]
    old = [f.path for f in pr.files if f.status == FileStatus.REMOVED]
    old += [f.previous_path for f in pr.files if f.previous_path]
    return new, old


def _statuses(pr: PullRequest) -> tuple[tuple[str, str], ...]:
    """The files `pr` creates, deletes or renames, each with what happened to it."""
    out = []
    for change in pr.files:
        if change.status == FileStatus.RENAMED and change.previous_path:
            out.append((change.path, f"renamed from {change.previous_path}"))
        elif change.status in (FileStatus.ADDED, FileStatus.REMOVED):
            out.append((change.path, change.status.value))
    return tuple(out)


# a hunk header: `@@ -764,6 +765,8 @@ class DiffusersFSDPEngine(BaseEngine):`, the code the
# hunk stands in after it
_HUNK = re.compile(r"^@@ [^@]* @@ ?(?P<section>.*)$")


def unchanged_lines(patch: str) -> list[str]:
    """A patch's unchanged lines and the code its hunk headers name (the class or function
    the hunk stands in): names the changed code stands beside."""
    out = []
    for row in patch.splitlines():
        header = _HUNK.match(row)
        if header:
            out += [header["section"]] if header["section"].strip() else []
        elif row[:1] == " ":
            out.append(row[1:])
    return out


def _collected(
    number: int, scored: ScoredPR, pr: PullRequest, risks: list[Risk], repos: tuple[str, ...]
) -> PREvidence:
    from service.core.analyst.facts import clean_text  # facts builds this module's index

    removed: list[str] = []
    added: list[str] = []
    files: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = []
    context = [line for c in pr.files for line in unchanged_lines(c.patch or "")]
    for change in pr.files:
        old, new = changed_texts(change.patch)
        removed += old
        added += new
        if old or new:
            files.append((change.path, tuple(old), tuple(new)))
    new_paths, old_paths = _paths(pr)
    notes = [t.body for t in pr.unresolved_threads if not speaks_to_the_model(t.body)]
    # a line planted for the model is no fact a sentence may rest on
    body = "\n".join(line for line in pr.body.splitlines() if not speaks_to_the_model(line))
    said = "\n".join([scored.title, clean_text(body, repos), *notes]).lower()
    evidence = [e.snippet for r in risks for e in r.evidence]
    text = "\n".join([said, *evidence, *scored.modules, scored.category, scored.change_type])
    said_actions = text_actions(said)
    actions = said_actions | _diff_actions(pr)
    if scored.change_type == "revert" or scored.title.lower().startswith("revert"):
        actions.add("revert")
    reviews = pr.reviews or []
    return PREvidence(
        number=number,
        text=text.lower(),
        headline=" ".join([scored.title, *scored.modules]).lower(),
        paths="\n".join(f.path for f in pr.files).lower() + "\n" + "\n".join(old_paths).lower(),
        added="\n".join([*new_paths, *added]).lower(),
        removed="\n".join([*old_paths, *removed]).lower(),
        actions=frozenset(actions),
        said_actions=frozenset(said_actions),
        risks=frozenset(r.kind.value for r in risks),
        breaking=scored.breaking,
        failing_checks=bool(pr.failing_checks),
        approved=any(r.state == ReviewState.APPROVED for r in reviews),
        reviewed=bool(pr.unresolved_threads)
        or any(r.state == ReviewState.CHANGES_REQUESTED for r in reviews),
        author=" ".join(filter(None, [known_login(pr.author), pr.author_name])).lower(),
        changed=(tuple(removed), tuple(added)),
        files=tuple(files),
        body=body_lines(pr.body, repos),
        statuses=_statuses(pr),
        context="\n".join(context).lower(),
        unchanged=tuple((c.path, tuple(unchanged_lines(c.patch or ""))) for c in pr.files),
    )


def _scored_only(scored: ScoredPR, risks: list[Risk]) -> PREvidence:
    """A PR of the digest whose collected data is not at hand: its title, paths and risks."""
    evidence = [e.snippet for r in risks for e in r.evidence]
    said = "\n".join([scored.title, *evidence, *scored.modules]).lower()
    actions = text_actions(scored.title.lower())
    if scored.change_type == "revert":
        actions.add("revert")
    return PREvidence(
        number=scored.number,
        text=said,
        headline=" ".join([scored.title, *scored.modules]).lower(),
        paths="\n".join(scored.paths).lower(),
        actions=frozenset(actions),
        said_actions=frozenset(actions),
        risks=frozenset(r.kind.value for r in risks),
        breaking=scored.breaking,
        author=" ".join(filter(None, [known_login(scored.author), scored.author_name])).lower(),
    )


@dataclass(frozen=True)
class Relation:
    later: int
    earlier: int
    rule: str  # revert | fix_same_code | fix_reference (risks) | supersedes (the digest's)


@dataclass
class PeriodEvidence:
    """The week's evidence index: relations, earlier counts, and each PR's evidence on demand."""

    scored: dict[int, ScoredPR] = field(default_factory=dict)
    collected: dict[int, PullRequest] = field(default_factory=dict)
    risks: dict[int, list[Risk]] = field(default_factory=dict)
    relations: tuple[Relation, ...] = ()
    # kind → bucket key → (count this week, count the week before); empty: no earlier week
    previous: dict[str, dict[str, tuple[int, int]]] = field(default_factory=dict)
    previous_period: str | None = None
    # the repository's names: a link to one of its PRs is read as `#N` (as the model is told)
    repos: tuple[str, ...] = ()
    _cache: dict[int, PREvidence] = field(default_factory=dict, repr=False)

    def pr(self, number: int) -> PREvidence | None:
        if number not in self._cache:
            scored = self.scored.get(number)
            if scored is None:
                return None
            risks = self.risks.get(number, [])
            pr = self.collected.get(number)
            self._cache[number] = (
                _collected(number, scored, pr, risks, self.repos)
                if pr
                else _scored_only(scored, risks)
            )
        return self._cache[number]

    def related(self, later: int, earlier: int) -> set[str]:
        """The rules by which `later` relates to `earlier` (revert, fix_same_code, …)."""
        return {r.rule for r in self.relations if (r.later, r.earlier) == (later, earlier)}

    def followed_up(self, number: int) -> bool:
        """Whether a later PR of the week reverts or fixes `number`."""
        return any(r.earlier == number for r in self.relations)


def _relations(digest: Digest) -> tuple[Relation, ...]:
    """The follow-up risks' relations, and the PRs of the week that rewrite lines another
    added (`supersedes`)."""
    out = []
    for risk in leaf_risks(digest.risks):
        later, earlier = risk.params.get("pr"), risk.params.get("earlier")
        if risk.kind == RiskKind.FOLLOWUP and isinstance(later, int) and isinstance(earlier, int):
            out.append(Relation(later, earlier, risk.rule))
    supersedes = RelationKind.SUPERSEDES
    out += [Relation(r.pr, r.other, r.kind.value) for r in digest.relations if r.kind == supersedes]
    return tuple(dict.fromkeys(out))


def _previous(digest: Digest) -> dict[str, dict[str, tuple[int, int]]]:
    trends = digest.trends
    if trends.previous_period is None:
        return {}
    kinds = {
        "modules": trends.modules,
        "categories": trends.categories,
        "types": trends.types,
        "labels": trends.labels,
    }
    return {
        kind: {b.key: (b.count, b.previous) for b in buckets if b.previous is not None}
        for kind, buckets in kinds.items()
    }


def build_evidence(digest: Digest, prs: Sequence[PullRequest]) -> PeriodEvidence:
    """The evidence index of `digest`'s week (`prs`: the collected PRs, bodies and patches)."""
    own: dict[int, list[Risk]] = {}
    for risk in leaf_risks(digest.risks):
        for number in dict.fromkeys(risk.prs):
            own.setdefault(number, []).append(risk)
    return PeriodEvidence(
        scored={p.number: p for p in digest.prs},
        collected={p.number: p for p in prs},
        risks=own,
        relations=_relations(digest),
        previous=_previous(digest),
        previous_period=digest.trends.previous_period,
        repos=(digest.repo, *digest.moved_from),
    )
