"""Reverts and follow-up fixes of PRs merged this week or the week before (evidence: both PRs).

Rules and severities (``prs`` is always ``[later, earlier]``):
- ``revert`` (medium): ``Revert "<title>"`` whose quoted title is an earlier PR's title (or,
  failing that, whose body names the earlier PR as ``#N``). A revert with no match in the two
  weeks says nothing about this week and is not reported.
- ``fix_reference`` (low): a fix (title type ``fix``) whose title or body names ``#N`` of an
  earlier-merged PR of the two weeks.
- ``fix_same_code`` (low): a fix merged within 4 days that rewrites or deletes lines an earlier
  non-revert PR added (two or more lines of code, same file: not docs, comments, blank or
  punctuation-only lines such as Markdown table rules). Touching the same popular file alone is
  not enough: in verl that links unrelated PRs all week. Evidence: the fix's removed lines, by
  their number in the old file.
A PR gets at most one of these per earlier PR, in the order above; when one fix follows several
earlier PRs, the strongest link comes first (a revert, a named PR, then the most shared lines).
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta

from service.core.models import Evidence, FileChange, PullRequest, Risk, RiskKind, Severity
from service.core.risks.base import (
    Check,
    Context,
    Line,
    detect_each,
    evidence,
    line_evidence,
    make_risk,
)
from service.core.titles import parse_title

FIX_WINDOW = timedelta(days=4)
SECONDS_PER_HOUR = 3600
MIN_SHARED_LINES = 2
MIN_LINE_CHARS = 12
_PR_REFERENCE = re.compile(r"#(?<![\w/&]#)(\d+)\b")  # the `#` first: searched for alone
_TRIVIAL = ("#", "//", '"""', "import ", "from ", "return", "else", "pass", "}", ")", "]")
_WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")


class History:
    """The PRs of this and the previous week in merge order, for one detector run over `prs`:
    a PR's candidates (the PRs merged before it) are a prefix of that order, and the code lines
    PRs added are indexed by path and text, so a fix finds the PRs whose lines it reworks
    without comparing itself with every one of them."""

    def __init__(self, context: Context, prs: Sequence[PullRequest]) -> None:
        self.context = context
        pool = {p.number: p for p in (*context.earlier, *context.week)}
        self.merged = sorted(pool.values(), key=lambda p: p.merged_at)
        self.times = [p.merged_at for p in self.merged]
        self.position = {p.number: index for index, p in enumerate(self.merged)}
        self.fixes = [pr for pr in prs if _is_fix(pr)]

    def merged_before(self, pr: PullRequest) -> int:
        """How many PRs of the order merged no later than `pr` (its candidates and itself)."""
        return bisect_right(self.times, pr.merged_at)

    def candidates(self, pr: PullRequest) -> list[PullRequest]:
        """Earlier-merged PRs of this and the previous week, in merge order."""
        return [p for p in self.merged[: self.merged_before(pr)] if p.number != pr.number]

    def is_candidate(self, position: int, pr: PullRequest) -> bool:
        return position < self.merged_before(pr) and self.merged[position].number != pr.number

    @functools.cached_property
    def reworked_code(self) -> dict[str, set[str]]:
        """Path → the lines of code the fixes remove or rewrite there."""
        found: dict[str, set[str]] = {}
        for fix in self.fixes:
            for change in fix.files:
                if not any(_code_in(text) for text in self.context.glance_changed(change)[0]):
                    continue  # nothing removed that could be code: no need to parse
                codes = {_meaningful(line) for line in self.context.glance(change).removed}
                found.setdefault(change.path, set()).update(c for c in codes if c)
        return found

    @functools.cached_property
    def added_code(self) -> dict[tuple[str, str], list[int]]:
        """(path, line of code) → positions of the PRs whose patch of that path (not a doc)
        adds the line, in merge order. Only what a fix can ask for: the lines the fixes rework,
        added by PRs merged in the window before one of them; a patch is parsed only when one
        of its added lines has the text of such a line."""
        first = min((fix.merged_at for fix in self.fixes), default=None)
        last = max((fix.merged_at for fix in self.fixes), default=None)
        index: dict[tuple[str, str], list[int]] = {}
        for position, pr in enumerate(self.merged):
            if first is None or last is None or pr.merged_at > last:
                break
            if first - pr.merged_at > FIX_WINDOW:
                continue
            theirs = {c.path: c for c in pr.files if not self.context.profile.is_doc(c.path)}
            for path, change in theirs.items():
                for code in self._added(change, self.reworked_code.get(path, set())):
                    index.setdefault((path, code), []).append(position)
        return index

    def _added(self, change: FileChange, wanted: set[str]) -> set[str]:
        """The lines of code among `wanted` that the change adds."""
        if not wanted or not _adds_any(change.patch or "", wanted):
            return set()
        codes = {_meaningful(line) for line in self.context.glance(change).added}
        return {code for code in codes if code in wanted}


def _adds_any(patch: str, wanted: set[str]) -> bool:
    """Whether the patch adds a line whose text (stripped) is in `wanted`: read from the patch
    as it goes, not kept (most of a big week's patches are asked, once each)."""
    return any(raw[1:].strip() in wanted for raw in patch.splitlines() if raw[:1] == "+")


def _normal(title: str) -> str:
    return " ".join(title.lower().split())


def _is_fix(pr: PullRequest) -> bool:
    parsed = parse_title(pr.title)
    return parsed.change_type == "fix" and not parsed.is_revert


def _referenced(pr: PullRequest) -> set[int]:
    return {int(n) for n in _PR_REFERENCE.findall(f"{pr.title}\n{pr.body}")}


def _pair(
    rule: str, severity: Severity, later: PullRequest, earlier: PullRequest, found: list[Evidence]
) -> Risk:
    titles = [evidence(None, None, later.title, later.number)]
    titles.append(evidence(None, None, earlier.title, earlier.number))
    return make_risk(
        RiskKind.FOLLOWUP,
        rule,
        severity,
        [later.number, earlier.number],
        [*titles, *found],
        pr=later.number,
        earlier=earlier.number,
        earlier_title=evidence(None, None, earlier.title).snippet,
        hours=int((later.merged_at - earlier.merged_at).total_seconds() // SECONDS_PER_HOUR),
    )


def reverted_pr(pr: PullRequest, history: History) -> PullRequest | None:
    """The earlier PR a revert takes back, by quoted title first, then by `#N`."""
    parsed = parse_title(pr.title)
    if not parsed.is_revert:
        return None
    candidates = history.candidates(pr)
    wanted = _normal(parsed.reverted_title or "")
    by_title = [p for p in candidates if wanted and _normal(p.title) == wanted]
    if by_title:
        return by_title[-1]
    numbers = _referenced(pr) | ({parsed.referenced_pr} if parsed.referenced_pr else set())
    by_number = [p for p in candidates if p.number in numbers]
    return by_number[-1] if len(by_number) == 1 else None


def reverts(pr: PullRequest, history: History) -> Iterator[Risk]:
    """A revert of a PR merged this week or last."""
    earlier = reverted_pr(pr, history)
    if earlier is not None:
        yield _pair("revert", Severity.MEDIUM, pr, earlier, [])


def fix_references(pr: PullRequest, history: History) -> Iterator[Risk]:
    """A fix that names an earlier PR of the two weeks (in merge order)."""
    if not _is_fix(pr):
        return
    named = (history.position.get(number) for number in _referenced(pr))
    for position in sorted(p for p in named if p is not None and history.is_candidate(p, pr)):
        yield _pair("fix_reference", Severity.LOW, pr, history.merged[position], [])


def _meaningful(line: Line) -> str | None:
    """The line's code, when it is a line of code that says something (not a comment, a
    docstring, an import or a bare closing bracket; not blank or punctuation only)."""
    return None if line.in_string else _code_in(line.text)


def _code_in(text: str) -> str | None:
    """The text stripped, when it reads as a line of code that says something (whether it
    sits in a docstring is for the parsed line to tell)."""
    stripped = text.strip()
    if len(stripped) < MIN_LINE_CHARS or stripped.startswith(_TRIVIAL):
        return None
    return stripped if _WORDS.search(stripped) else None


def reworked_lines(pr: PullRequest, history: History) -> dict[int, list[tuple[str, Line]]]:
    """Position of each PR of the history → the lines of code it added that `pr` removes or
    rewrites, per file (the removed line of `pr`'s patch, by its old-file number). Docs are
    prose, not code."""
    found: dict[int, list[tuple[str, Line]]] = {}
    for change in pr.files:
        for line in history.context.parsed(change).removed:
            code = _meaningful(line)
            for position in history.added_code.get((change.path, code), ()) if code else ():
                found.setdefault(position, []).append((change.path, line))
    return found


def fix_same_code(pr: PullRequest, history: History) -> Iterator[Risk]:
    """A fix within days that reworks code an earlier PR just added; the earlier PR it shares
    the most lines with first."""
    if not _is_fix(pr):
        return
    named = _referenced(pr)
    links: list[tuple[int, Risk]] = []
    for position, lines in sorted(reworked_lines(pr, history).items(), reverse=True):
        earlier = history.merged[position]
        if not history.is_candidate(position, pr) or earlier.number in named:
            continue
        if pr.merged_at - earlier.merged_at > FIX_WINDOW or parse_title(earlier.title).is_revert:
            continue
        if len(lines) >= MIN_SHARED_LINES:
            found = [line_evidence(path, line, pr.number) for path, line in lines]
            links.append((len(found), _pair("fix_same_code", Severity.LOW, pr, earlier, found)))
    # stable: among equally strong links the most recent earlier PR stays first
    yield from (risk for _, risk in sorted(links, key=lambda link: -link[0]))


FollowupRule = Callable[[PullRequest, History], Iterator[Risk]]


@dataclass(frozen=True)
class Followups:
    """The follow-up rules over one week, with the two weeks' history built once."""

    kind: RiskKind = RiskKind.FOLLOWUP
    rules: tuple[FollowupRule, ...] = (reverts, fix_references, fix_same_code)

    def detect(self, prs: Sequence[PullRequest], context: Context) -> list[Risk]:
        return detect_each(self.checker(prs, context), prs)

    def checker(self, prs: Sequence[PullRequest], context: Context) -> Check:
        history, rules = History(context, prs), self.rules
        return lambda pr: [risk for rule in rules for risk in rule(pr, history)]


DETECTOR = Followups()
