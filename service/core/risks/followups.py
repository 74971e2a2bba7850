"""Reverts and follow-up fixes of PRs merged this week or the week before (evidence: both PRs).

Rules and severities (``prs`` is always ``[later, earlier]``):
- ``revert`` (medium): ``Revert "<title>"`` whose quoted title is an earlier PR's title (or,
  failing that, whose body names the earlier PR as ``#N``). A revert with no match in the two
  weeks says nothing about this week and is not reported.
- ``fix_reference`` (low): a fix (title type ``fix``) whose title or body names ``#N`` of an
  earlier-merged PR of the two weeks.
- ``fix_same_code`` (low): a fix merged within 4 days that rewrites or deletes lines an earlier
  non-revert PR added (two or more non-trivial lines, same file). Touching the same popular file
  alone is not enough: in verl that links unrelated PRs all week.
A PR gets at most one of these per earlier PR, in the order above.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta

from service.core.models import Evidence, PullRequest, Risk, RiskKind, Severity
from service.core.risks.base import Context, RuleSet, evidence, make_risk, parse_patch
from service.core.titles import parse_title

FIX_WINDOW = timedelta(days=4)
SECONDS_PER_HOUR = 3600
MIN_SHARED_LINES = 2
MIN_LINE_CHARS = 12
_PR_REFERENCE = re.compile(r"(?<![\w/&])#(\d+)\b")
_TRIVIAL = ("#", "//", '"""', "import ", "from ", "return", "else", "pass", "}", ")", "]")


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
    return make_risk(
        RiskKind.FOLLOWUP,
        rule,
        severity,
        [later.number, earlier.number],
        [evidence(None, None, later.title), evidence(None, None, earlier.title), *found],
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


def _meaningful(text: str) -> str | None:
    stripped = text.strip()
    if len(stripped) < MIN_LINE_CHARS or stripped.startswith(_TRIVIAL):
        return None
    return stripped


def shared_lines(later: PullRequest, earlier: PullRequest) -> list[Evidence]:
    """Lines `earlier` added that `later` removes or rewrites, per file (location: new file)."""
    theirs = {c.path: c for c in earlier.files}
    found = []
    for change in later.files:
        if change.path not in theirs:
            continue
        added = {_meaningful(line.text) for line in parse_patch(theirs[change.path].patch).added}
        added.discard(None)
        for line in parse_patch(change.patch).removed:
            if _meaningful(line.text) in added:
                found.append(evidence(change.path, line.at, line.text))
    return found


def fix_same_code(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """A fix within days that reworks code an earlier PR just added."""
    if not _is_fix(pr):
        return
    named = _referenced(pr)
    paths = {c.path for c in pr.files}
    for earlier in _candidates(pr, context):
        # cheap tests first: this runs for every (fix, earlier PR) pair of two weeks
        if pr.merged_at - earlier.merged_at > FIX_WINDOW or earlier.number in named:
            continue
        if paths.isdisjoint(c.path for c in earlier.files):
            continue
        if parse_title(earlier.title).is_revert:
            continue
        found = shared_lines(pr, earlier)
        if len(found) >= MIN_SHARED_LINES:
            yield _pair("fix_same_code", Severity.LOW, pr, earlier, found)


DETECTOR = RuleSet(RiskKind.FOLLOWUP, (reverts, fix_references, fix_same_code))
