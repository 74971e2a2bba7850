"""Detector protocol and the diff reading every detector shares: numbered lines of a patch.

Only what a PR adds is its risk, so the scanners here yield added lines (``+`` in the unified
diff) with their line number in the NEW file, computed from the ``@@ -a,b +c,d @@`` hunk headers.
Removal detectors (breaking, precision, follow-ups) read removed lines through the same parser,
numbered in the OLD file. Evidence cites a line by that number and says its side
(`line_evidence`), so `path:line` always points at the quoted text, never at a hunk's start.

The detectors reach a patch through `Context.parsed`, which parses each patch once per PR's
turn: every detector's rules run on one PR, then on the next (`risks.risks_by_pr`), and the PR's
parsed patches are released between turns, so a big week's parsed lines are never all held.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple, Protocol

from service.core.models import (
    Evidence,
    EvidenceSide,
    FileChange,
    FileStatus,
    PullRequest,
    Risk,
    RiskKind,
    Severity,
)
from service.core.profile import RepoProfile
from service.core.ranking import SEVERITY_RANK

if TYPE_CHECKING:
    from service.core.risks.config_changes import SettingChange

SNIPPET_MAX = 200
MAX_EVIDENCE = 5
_TRIPLE_QUOTE = re.compile(r'"""|\'\'\'')
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")
_ELLIPSIS = "…"
_NOT_SCOPES = ("#", ")", "]", "}", '"""')


class Line(NamedTuple):  # not a dataclass: a big week makes ~300,000, and a tuple is 3x cheaper
    """One line of a patch: `number` is in the new file (added/context) or old file (removed),
    as `side` says.

    For a removed line, `at` is the new-file line where the removal sits. `scope` is the
    enclosing top-level statement on the line's side (e.g. ``class Config:``), from the hunk
    header's context or the last unindented line before it. `in_string` is true for a line
    inside (or opening) a triple-quoted string on its side of the diff: a docstring, not code.
    A scanner that cleans `text` (quotes, comments) keeps the patch's own text in `raw`."""

    number: int
    text: str
    at: int | None = None
    scope: str = ""
    side: EvidenceSide = EvidenceSide.ADDED
    in_string: bool = False
    hunk: int = 0
    raw: str | None = None

    @property
    def patch_text(self) -> str:
        """The line as the patch shows it (what evidence quotes)."""
        return self.text if self.raw is None else self.raw

    def cleaned(self, text: str) -> Line:
        """The line with `text` read in place of its own, which evidence still quotes (`raw`)."""
        number, _, at, scope, side, in_string, hunk, _ = self
        return _line((number, text, at, scope, side, in_string, hunk, self.patch_text))


@dataclass(frozen=True)
class ParsedPatch:
    added: tuple[Line, ...] = ()
    removed: tuple[Line, ...] = ()
    context: tuple[Line, ...] = ()

    @functools.cached_property
    def visible(self) -> tuple[Line, ...]:
        """Every line of the new file the patch shows (added and context), in file order."""
        return tuple(sorted((*self.added, *self.context), key=lambda line: line.number))


NO_PATCH = ParsedPatch()
# the text of a patch's removed lines and of its added lines
ChangedTexts = tuple[tuple[str, ...], tuple[str, ...]]


@dataclass(frozen=True)
class Context:
    """What a rule may look at besides the PR itself, and the patches parsed for the PR being
    looked at (each once, until `release`)."""

    profile: RepoProfile
    week: tuple[PullRequest, ...] = ()
    earlier: tuple[PullRequest, ...] = ()
    references: dict[str, list[str]] | None = None
    patches: dict[str, ParsedPatch] = field(default_factory=dict, compare=False, repr=False)
    texts: dict[str, ChangedTexts] = field(default_factory=dict, compare=False, repr=False)
    carried_texts: dict[int, frozenset[str]] = field(
        default_factory=dict, compare=False, repr=False
    )
    # the PR's setting changes (config_changes.of_pr): breaking's and the points' alike
    settings: dict[int, list[SettingChange]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def parsed(self, change: FileChange) -> ParsedPatch:
        """The change's patch parsed: the first time it is asked for, then from `patches`."""
        if not change.patch:
            return NO_PATCH
        found = self.patches.get(change.patch)
        if found is None:
            found = self.patches[change.patch] = parse_patch(change.patch)
            if change.patch in self.texts:  # its lines' texts kept once, not twice
                self.texts[change.patch] = self._texts(change.patch)
        return found

    def release(self) -> None:
        """Forget every patch parsed or read so far: the detectors run PR by PR
        (`risks.risks_by_pr`), and a PR's parsed patches are let go once its turn is over."""
        self.patches.clear()
        self.texts.clear()
        self.carried_texts.clear()
        self.settings.clear()

    def changed(self, change: FileChange) -> ChangedTexts:
        """The text of the change's removed and added lines, without parsing the patch (for
        scans of every line of a PR): the first time it is asked for, then from `texts`."""
        if not change.patch:
            return (), ()
        found = self.texts.get(change.patch)
        if found is None:
            found = self.texts[change.patch] = self._texts(change.patch)
        return found

    def glance(self, change: FileChange) -> ParsedPatch:
        """The change's patch parsed, kept only if it already was: for a week-wide index that
        reads many PRs' patches once (the follow-ups' history), not their turn's."""
        found = self.patches.get(change.patch) if change.patch else NO_PATCH
        return found if found is not None else parse_patch(change.patch)

    def glance_changed(self, change: FileChange) -> ChangedTexts:
        """`changed` without keeping what it reads (see `glance`)."""
        found = self.texts.get(change.patch) if change.patch else ((), ())
        return found if found is not None else self._texts(change.patch or "")

    def _texts(self, patch: str) -> ChangedTexts:
        """From the parsed patch when there is one (its lines' texts, the same strings: not a
        second copy of every changed line), else read from the patch."""
        parsed = self.patches.get(patch)
        if parsed is not None:
            return tuple(x.text for x in parsed.removed), tuple(x.text for x in parsed.added)
        removed, added = changed_texts(patch)
        return tuple(removed), tuple(added)

    def carried(self, pr: PullRequest) -> frozenset[str]:
        """The text (stripped) of every line the PR removes, in any of its files: an added line
        with the same text was already in the repository (a file rewritten, a block moved)."""
        found = self.carried_texts.get(pr.number)
        if found is None:
            texts = (text.strip() for change in pr.files for text in self.changed(change)[0])
            found = self.carried_texts[pr.number] = frozenset(t for t in texts if t)
        return found

    def new_lines(self, pr: PullRequest, change: FileChange) -> tuple[Line, ...]:
        """The lines the PR really adds to the file: its added lines, less those it removes
        elsewhere too (what a rewrite or a move carries over), and none of a renamed file whose
        patch shows the whole file (it cannot tell which lines changed)."""
        parsed = self.parsed(change)
        if shows_whole_file(change, parsed):
            return ()
        carried = self.carried(pr)
        if not carried:
            return parsed.added
        return tuple(line for line in parsed.added if line.text.strip() not in carried)


def shows_whole_file(change: FileChange, parsed: ParsedPatch) -> bool:
    """A renamed file whose patch adds more lines than the file gained: the patch is the whole
    file (what some recordings and tools give for a rename), not its changes."""
    return change.status == FileStatus.RENAMED and len(parsed.added) > change.additions


Rule = Callable[[PullRequest, Context], Iterable[Risk]]
# a detector's rules for one PR of the week, with what they share over the week worked out
Check = Callable[[PullRequest], list[Risk]]


class Detector(Protocol):
    """A detector family: one risk kind, several rules."""

    @property
    def kind(self) -> RiskKind: ...

    def detect(self, prs: Sequence[PullRequest], context: Context) -> list[Risk]: ...

    def checker(self, prs: Sequence[PullRequest], context: Context) -> Check:
        """The rules for one PR at a time (`detect` is them over `prs`, in order)."""
        ...


def detect_each(check: Check, prs: Sequence[PullRequest]) -> list[Risk]:
    """A checker's risks over `prs`, PR after PR."""
    return [risk for pr in prs for risk in check(pr)]


@dataclass(frozen=True)
class RuleSet:
    """A Detector that applies each of its rules to each PR of the week."""

    kind: RiskKind
    rules: tuple[Rule, ...] = field(default_factory=tuple)

    def detect(self, prs: Sequence[PullRequest], context: Context) -> list[Risk]:
        return detect_each(self.checker(prs, context), prs)

    def checker(self, prs: Sequence[PullRequest], context: Context) -> Check:
        rules = self.rules
        return lambda pr: [risk for rule in rules for risk in rule(pr, context)]


_ADDED, _REMOVED, _CONTEXT = EvidenceSide.ADDED, EvidenceSide.REMOVED, EvidenceSide.CONTEXT


# a Line from all its fields in order: what Line(...) makes, without the Python-level __new__
# a NamedTuple's defaults cost (parse_patch makes ~300,000 in a big week)
_line = functools.partial(tuple.__new__, Line)
# the same for other readers of a patch: `line_of((number, text, at, scope, side, in_string,
# hunk, raw))` is `Line(number, text, at, scope, side, in_string, hunk, raw)`
line_of = _line


def parse_patch(patch: str | None) -> ParsedPatch:
    """Split a unified-diff patch into added, removed and context lines with their numbers
    (detectors ask `Context.parsed`, which parses each patch of a build once)."""
    if not patch:
        return NO_PATCH
    added: list[Line] = []
    removed: list[Line] = []
    context: list[Line] = []
    old = new = hunk = 0
    scope = new_scope = ""
    strings = _Strings()
    for raw in patch.splitlines():
        sign, text = raw[:1], raw[1:]
        header = _HUNK.match(raw) if sign == "@" else None
        if header:
            old, new, scope = int(header.group(1)), int(header.group(3)), header.group(5).strip()
            new_scope = scope
            hunk += 1
            strings = _Strings()
            continue
        # most lines are indented: they open no scope, and cost no call to find out
        opened = _opened_scope(text) if text and not text[0].isspace() else None
        # most lines hold no triple quote: inside a string as the line before, no call either
        quoted = '"""' in text or "'''" in text
        if sign == "+":
            inside = strings.step(text, old_side=False) if quoted else strings.new
            added.append(_line((new, text, None, new_scope, _ADDED, inside, hunk, None)))
            new += 1
            new_scope = opened or new_scope
        elif sign == "-":
            inside = strings.step(text, new_side=False) if quoted else strings.old
            removed.append(_line((old, text, new, scope, _REMOVED, inside, hunk, None)))
            old += 1
            scope = opened or scope
        elif sign != "\\":  # "\ No newline at end of file"
            inside = strings.step(text) if quoted else strings.new
            context.append(_line((new, text, None, new_scope, _CONTEXT, inside, hunk, None)))
            old += 1
            new += 1
            scope = opened or scope
            new_scope = opened or new_scope
    return ParsedPatch(tuple(added), tuple(removed), tuple(context))


# what `str.splitlines` ends a line at besides "\n" ("\r\n" included: "\r" is in it)
_OTHER_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
# a line's text after its "+" or "-", found from the "\n" before it (`.` stops at the next)
_ADDED_LINE = re.compile("\n\\+(.*)")
_REMOVED_LINE = re.compile("\n-(.*)")


def removed_texts(patch: str | None) -> list[str]:
    """`changed_texts(patch)[0]` alone: the text of the removed lines (one scan, not two)."""
    if not patch:
        return []
    if not any(b in patch for b in _OTHER_BREAKS):
        return _REMOVED_LINE.findall("\n" + patch)
    return changed_texts(patch)[0]


def added_texts(patch: str | None) -> list[str]:
    """`changed_texts(patch)[1]` alone: the text of the added lines (one scan, not two)."""
    if not patch:
        return []
    if not any(b in patch for b in _OTHER_BREAKS):
        return _ADDED_LINE.findall("\n" + patch)
    return changed_texts(patch)[1]


def changed_texts(patch: str | None) -> tuple[list[str], list[str]]:
    """The text of the removed and of the added lines of a patch, as `parse_patch` reads them,
    without the rest of what it works out (detectors ask `Context.changed`)."""
    if not patch:
        return [], []
    if not any(b in patch for b in _OTHER_BREAKS):  # lines end at "\n" alone: scans in C
        lines = "\n" + patch
        return _REMOVED_LINE.findall(lines), _ADDED_LINE.findall(lines)
    removed: list[str] = []
    added: list[str] = []
    for raw in patch.splitlines():
        if raw.startswith("+"):
            added.append(raw[1:])
        elif raw.startswith("-"):
            removed.append(raw[1:])
    return removed, added


class _Strings:
    """Whether each side of a hunk is inside a triple-quoted string. A hunk that starts inside
    one is not known to: its lines count as code until a quote opens."""

    def __init__(self) -> None:
        self.old = self.new = False

    def step(self, text: str, *, old_side: bool = True, new_side: bool = True) -> bool:
        """Whether `text` is string content (inside, or opening a string), then move on."""
        before = self.new if new_side else self.old
        if '"""' not in text and "'''" not in text:  # most lines: no quote, nothing changes
            return before
        quotes = len(_TRIPLE_QUOTE.findall(text))
        inside = before or (quotes > 0 and text.lstrip().startswith(('"""', "'''", 'r"""')))
        if quotes % 2:
            if old_side:
                self.old = not self.old
            if new_side:
                self.new = not self.new
        return inside


def _opened_scope(text: str) -> str | None:
    """An unindented, non-blank, non-comment line opens a new top-level scope: its text."""
    if text and not text[0].isspace() and not text.startswith(_NOT_SCOPES):
        return text.strip()
    return None


def full_new_content(change: FileChange, context: Context) -> str | None:
    """The whole new file when the patch shows all of it (a file the PR adds), else None."""
    if change.status != FileStatus.ADDED or not change.patch:
        return None
    lines = context.parsed(change).added
    if not lines or lines[0].number != 1:
        return None
    return "\n".join(line.text for line in lines) + "\n"


def iter_added(
    pr: PullRequest,
    context: Context,
    wanted: Callable[[str], bool],
    hint: Callable[[str], object] | None = None,
) -> Iterator[tuple[FileChange, Line]]:
    """Lines the PR adds (`Context.new_lines`: not those it carries over from what it removes)
    to its files whose path `wanted` accepts. With a `hint` (true of every line a scanner
    reports: e.g. a regex's `search`), a file whose patch as a whole fails it is skipped: one
    test of the patch instead of one per line."""
    for change in pr.files:
        if change.status == FileStatus.REMOVED or not wanted(change.path):
            continue
        if hint is not None and not hint(change.patch or ""):
            continue
        for line in context.new_lines(pr, change):
            yield change, line


def snippet(text: str) -> str:
    """One line of evidence text, stripped, at most SNIPPET_MAX characters."""
    text = " ".join(text.split())
    if len(text) <= SNIPPET_MAX:
        return text
    return text[: SNIPPET_MAX - 1] + _ELLIPSIS


def evidence(path: str | None, line: int | None, text: str, pr: int | None = None) -> Evidence:
    """Evidence that is not a line of the diff: a title, a file as a whole, a review."""
    return Evidence(path=path, line=line, snippet=snippet(text), pr=pr)


def line_evidence(
    path: str, line: Line, pr: int | None = None, *, shown: str | None = None
) -> Evidence:
    """A line of the diff, cited by its number on its own side (old file for a removed line);
    `shown` replaces its text when the line must not be quoted as is (a masked secret)."""
    text = line.patch_text if shown is None else shown
    return Evidence(path=path, line=line.number, snippet=snippet(text), side=line.side, pr=pr)


def make_risk(
    kind: RiskKind,
    rule: str,
    severity: Severity,
    prs: list[int],
    proof: Sequence[Evidence],
    **params: str | int | float,
) -> Risk:
    """A Risk with at most MAX_EVIDENCE pieces of evidence; evidence that does not name its PR
    belongs to the risk's first PR."""
    owner = prs[0] if prs else None
    return Risk(
        kind=kind,
        rule=rule,
        severity=severity,
        prs=prs,
        evidence=[
            found if found.pr is not None else found.model_copy(update={"pr": owner})
            for found in proof[:MAX_EVIDENCE]
        ],
        params=dict(params),
    )


def sort_risks(risks: Iterable[Risk]) -> list[Risk]:
    """High severity first, then by PR number, then kind. Stable: the rules of one kind keep
    the order their detector gives them (its rule order, strongest link first)."""
    return sorted(
        risks,
        key=lambda r: (SEVERITY_RANK[r.severity], r.prs[0] if r.prs else 0, r.kind),
    )


def grade(value: int, thresholds: tuple[tuple[int, Severity], ...]) -> Severity | None:
    """The severity of the first (lower bound, severity) pair whose bound `value` reaches."""
    for bound, severity in thresholds:
        if value >= bound:
            return severity
    return None
