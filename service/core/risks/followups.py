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

import re
from collections.abc import Iterator
from datetime import timedelta

from service.core.models import Evidence, PullRequest, Risk, RiskKind, Severity
from service.core.risks.base import (
    Context,
    Line,
    RuleSet,
    evidence,
    line_evidence,
    make_risk,
    parse_patch,
)
from service.core.titles import parse_title

FIX_WINDOW = timedelta(days=4)
SECONDS_PER_HOUR = 3600
MIN_SHARED_LINES = 2
MIN_LINE_CHARS = 12
_PR_REFERENCE = re.compile(r"(?<![\w/&])#(\d+)\b")
_TRIVIAL = ("#", "//", '"""', "import ", "from ", "return", "else", "pass", "}", ")", "]")
_WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")


def _candidates(pr: PullRequest, context: Context) -> list[PullRequest]:
    """Earlier-merged PRs of this and the previous week."""
    pool = {p.number: p for p in (*context.earlier, *context.week)}
    return sorted(
        (p for p in pool.values() if p.number != pr.number and p.merged_at <= pr.merged_at),
        key=lambda p: p.merged_at,
    )


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


def reverted_pr(pr: PullRequest, context: Context) -> PullRequest | None:
    """The earlier PR a revert takes back, by quoted title first, then by `#N`."""
    parsed = parse_title(pr.title)
    if not parsed.is_revert:
        return None
    candidates = _candidates(pr, context)
    wanted = _normal(parsed.reverted_title or "")
    by_title = [p for p in candidates if wanted and _normal(p.title) == wanted]
    if by_title:
        return by_title[-1]
    numbers = _referenced(pr) | ({parsed.referenced_pr} if parsed.referenced_pr else set())
    by_number = [p for p in candidates if p.number in numbers]
    return by_number[-1] if len(by_number) == 1 else None


def reverts(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """A revert of a PR merged this week or last."""
    earlier = reverted_pr(pr, context)
    if earlier is not None:
        yield _pair("revert", Severity.MEDIUM, pr, earlier, [])


def fix_references(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """A fix that names an earlier PR of the two weeks."""
    if not _is_fix(pr):
        return
    numbers = _referenced(pr)
    for earlier in _candidates(pr, context):
        if earlier.number in numbers:
            yield _pair("fix_reference", Severity.LOW, pr, earlier, [])


def _meaningful(line: Line) -> str | None:
    """The line's code, when it is a line of code that says something (not a comment, a
    docstring, an import or a bare closing bracket; not blank or punctuation only)."""
    stripped = line.text.strip()
    if len(stripped) < MIN_LINE_CHARS or stripped.startswith(_TRIVIAL) or line.in_string:
        return None
    return stripped if _WORDS.search(stripped) else None


def shared_lines(later: PullRequest, earlier: PullRequest, context: Context) -> list[Evidence]:
    """Lines of code `earlier` added that `later` removes or rewrites, per file (evidence: the
    removed line in `later`'s patch, by its old-file number). Docs are prose, not code."""
    theirs = {c.path: c for c in earlier.files if not context.profile.is_doc(c.path)}
    found = []
    for change in later.files:
        if change.path not in theirs:
            continue
        added = {_meaningful(line) for line in parse_patch(theirs[change.path].patch).added}
        added.discard(None)
        for line in parse_patch(change.patch).removed:
            if _meaningful(line) in added:
                found.append(line_evidence(change.path, line, later.number))
    return found


def fix_same_code(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """A fix within days that reworks code an earlier PR just added; the earlier PR it shares
    the most lines with first."""
    if not _is_fix(pr):
        return
    named = _referenced(pr)
    paths = {c.path for c in pr.files}
    links: list[tuple[int, Risk]] = []
    for earlier in reversed(_candidates(pr, context)):
        # cheap tests first: this runs for every (fix, earlier PR) pair of two weeks
        if pr.merged_at - earlier.merged_at > FIX_WINDOW or earlier.number in named:
            continue
        if paths.isdisjoint(c.path for c in earlier.files):
            continue
        if parse_title(earlier.title).is_revert:
            continue
        found = shared_lines(pr, earlier, context)
        if len(found) >= MIN_SHARED_LINES:
            links.append((len(found), _pair("fix_same_code", Severity.LOW, pr, earlier, found)))
    # stable: among equally strong links the most recent earlier PR stays first
    yield from (risk for _, risk in sorted(links, key=lambda link: -link[0]))


DETECTOR = RuleSet(RiskKind.FOLLOWUP, (reverts, fix_references, fix_same_code))
