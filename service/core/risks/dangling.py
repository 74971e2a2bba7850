"""Work of the week that points at a file the week deleted (evidence: both PRs).

A path is gone when, at the end of the week, the last PR that touched it deleted it or renamed
it away (a PR that adds it back later brings it back). Rules and severities:
- ``edits_deleted_file`` (medium): a PR deletes files that earlier PRs of the week changed
  (``prs``: the deleting PR, then the editors). Those changes are gone with the files: were
  they carried over to where that code lives now? A revert deleting what the PR it reverts
  added is not counted (it does so on purpose).
- ``links_deleted_file`` (low): a doc (README, Markdown, reStructuredText) gains a link to, or
  a mention of, a gone path: readers meet a 404 (``prs``: the linking PR, then the deleting PR
  unless it is the same). Links pinned to a commit (``/blob/<sha>/``)
  still work and are not counted; nor are lines the PR carries over from what it removes, nor
  paths of a large removal (its migration risk asks for every reference to them to go).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from service.core.models import FileChange, FileStatus, PullRequest, Risk, RiskKind, Severity
from service.core.risks.base import (
    Check,
    Context,
    Line,
    detect_each,
    evidence,
    line_evidence,
    make_risk,
)
from service.core.risks.migration import is_large_removal
from service.core.titles import parse_title

_PATHLIKE = re.compile(r"[\w./\-]+")
# what `_PATHLIKE` leaves of a GitHub link (the scheme's colon splits it off)
_GITHUB = re.compile(r"^//github\.com/[\w.-]+/[\w.-]+/(?:blob|tree|raw)/([\w.\-]+)/(.+)$")
_MARKDOWN_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)")
_PINNED = re.compile(r"^[0-9a-f]{7,40}$")


@dataclass(frozen=True)
class Gone:
    """A path gone at the end of the week, and the PR that took it away."""

    path: str
    by: PullRequest


def gone_paths(week: Sequence[PullRequest]) -> dict[str, Gone]:
    """Paths deleted or renamed away by the week's PRs and not brought back after."""
    state: dict[str, Gone | None] = {}
    for pr in sorted(week, key=lambda p: p.merged_at):
        for change in pr.files:
            if change.status == FileStatus.REMOVED:
                state[change.path] = Gone(change.path, pr)
            else:
                state[change.path] = None
            if change.status == FileStatus.RENAMED and change.previous_path:
                state[change.previous_path] = Gone(change.previous_path, pr)
    return {path: gone for path, gone in state.items() if gone is not None}


def _reverts(pr: PullRequest, other: PullRequest) -> bool:
    parsed = parse_title(pr.title)
    if not parsed.is_revert:
        return False
    wanted = " ".join((parsed.reverted_title or "").lower().split())
    return wanted == " ".join(other.title.lower().split()) or f"#{other.number}" in pr.body


# path → the week's PRs that modify it, and their change of it (in the week's order)
Edits = dict[str, list[tuple[PullRequest, FileChange]]]


def week_edits(week: Sequence[PullRequest], gone: dict[str, Gone]) -> Edits:
    """The week's modifications of the paths gone at its end."""
    found: Edits = {}
    for other in week:
        for edit in other.files:
            if edit.status == FileStatus.MODIFIED and edit.path in gone:
                found.setdefault(edit.path, []).append((other, edit))
    return found


def edits_deleted_files(
    pr: PullRequest, context: Context, gone: dict[str, Gone], edited: Edits
) -> Iterator[Risk]:
    """Files the PR deletes that earlier PRs of the week changed: one risk for the deleting PR,
    with each earlier change as evidence (the editing PRs follow it in `prs`). `edited`: the
    week's `week_edits`."""
    edits: list[tuple[PullRequest, str, Line | None]] = []
    for change in pr.files:
        found = gone.get(change.path)
        if change.status != FileStatus.REMOVED or found is None or found.by is not pr:
            continue
        for other, edit in edited.get(change.path, ()):
            if other is pr or other.merged_at >= pr.merged_at or _reverts(pr, other):
                continue
            lines = context.new_lines(other, edit)
            edits.append((other, edit.path, lines[0] if lines else None))
    if not edits:
        return
    editors = list(dict.fromkeys(other.number for other, _, _ in edits))
    proofs = [
        line_evidence(path, line, other.number)
        if line
        else evidence(path, None, path, other.number)
        for other, path, line in edits
    ]
    yield make_risk(
        RiskKind.DANGLING,
        "edits_deleted_file",
        Severity.MEDIUM,
        [pr.number, *editors],
        proofs,
        path=edits[0][1],
        count=len({path for _, path, _ in edits}),
        editors=", ".join(f"#{number}" for number in editors),
    )


def named_paths(text: str, doc: str) -> set[str]:
    """Repository paths a line of a doc names: GitHub links to a branch (not to a commit),
    relative links (from the doc's folder) and bare paths. Markdown's `\\_` reads as `_`."""
    text = text.replace("\\_", "_")
    found: set[str] = set()
    for target in _MARKDOWN_LINK.findall(text):
        if "://" not in target and not target.startswith(("#", "mailto:")):
            base = posixpath.dirname(doc)
            found.add(posixpath.normpath(posixpath.join(base, target.split("#")[0])))
    for token in _PATHLIKE.findall(text):
        link = _GITHUB.match(token)
        if link:
            if not _PINNED.match(link.group(1)):
                found.add(link.group(2).split("#")[0])
        elif not token.startswith("//"):
            found.add(token.removeprefix("./").lstrip("/"))
    return found


def links_to_deleted_files(
    pr: PullRequest, context: Context, gone: dict[str, Gone], _edited: Edits
) -> Iterator[Risk]:
    """Doc lines the PR adds that name a path gone at the end of the week (one risk per
    deleting PR)."""
    if not gone:
        return
    by_deleter: dict[int, list[tuple[str, Line, str]]] = {}
    deleters: dict[int, PullRequest] = {}
    for change in pr.files:
        if change.status == FileStatus.REMOVED or not context.profile.is_doc(change.path):
            continue
        for line in context.new_lines(pr, change):
            for path in sorted(named_paths(line.text, change.path) & gone.keys()):
                deleter = gone[path].by
                if is_large_removal(deleter):
                    continue  # its migration risk asks for every reference to go
                by_deleter.setdefault(deleter.number, []).append((change.path, line, path))
                deleters[deleter.number] = deleter
    for number, links in by_deleter.items():
        deleter = deleters[number]
        prs = [pr.number] if number == pr.number else [pr.number, number]
        proofs = [line_evidence(path, line) for path, line, _ in links]
        if number != pr.number:
            proofs.append(evidence(None, None, deleter.title, number))
        yield make_risk(
            RiskKind.DANGLING,
            "links_deleted_file",
            Severity.LOW,
            prs,
            proofs,
            path=links[0][0],
            target=links[0][2],
            count=len(links),
            deleting_pr=number,
        )


@dataclass(frozen=True)
class Dangling:
    """Both rules over one week, with the week's gone paths worked out once."""

    kind: RiskKind = RiskKind.DANGLING

    def detect(self, prs: Sequence[PullRequest], context: Context) -> list[Risk]:
        return detect_each(self.checker(prs, context), prs)

    def checker(self, prs: Sequence[PullRequest], context: Context) -> Check:
        gone = gone_paths(context.week or prs)
        if not gone:
            return lambda pr: []
        edited = week_edits(context.week, gone)
        rules = (edits_deleted_files, links_to_deleted_files)
        return lambda pr: [risk for rule in rules for risk in rule(pr, context, gone, edited)]


DETECTOR = Dangling()
