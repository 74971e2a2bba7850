"""Merged with open concerns: review and check state at merge time, when GitHub told us.

Rules and severities (each stays silent when its data is unknown, i.e. None as in git history):
- ``changes_requested`` (high): an author's last review requested changes and was not dismissed;
  the evidence quotes what the reviewer wrote (its first line), else names the reviewer.
- ``failing_checks`` (high): the checks failed or errored; the evidence quotes each failing check.
- ``no_approval`` (medium): reviews are known and none of them approves.
- ``unresolved_threads`` (medium): review threads were still open; the first comment is quoted.
- ``pending_checks`` (low): checks had not finished.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from service.core.discussion import one_line
from service.core.models import (
    CheckState,
    Evidence,
    PullRequest,
    Review,
    ReviewState,
    Risk,
    RiskKind,
    Severity,
)
from service.core.risks.base import Context, RuleSet, evidence, make_risk

FAILED = frozenset({CheckState.FAILURE, CheckState.ERROR})
WAITING = frozenset({CheckState.PENDING, CheckState.EXPECTED})
# check-run conclusions and status-context states, as GitHub spells them
FAILED_WORDS = frozenset(
    {"FAILURE", "ERROR", "FAILED", "TIMED_OUT", "CANCELLED", "ACTION_REQUIRED", "STARTUP_FAILURE"}
)
WAITING_WORDS = frozenset({"PENDING", "EXPECTED", "QUEUED", "IN_PROGRESS", "WAITING", "REQUESTED"})
APPROVED_DECISION = "APPROVED"  # GraphQL PullRequest.reviewDecision
_COUNTING = (ReviewState.APPROVED, ReviewState.CHANGES_REQUESTED, ReviewState.DISMISSED)


def _risk(
    pr: PullRequest, rule: str, severity: Severity, found: Sequence[Evidence], **params: str | int
) -> Risk:
    return make_risk(RiskKind.OPEN_CONCERNS, rule, severity, [pr.number], found, **params)


def last_review_by_author(reviews: list[Review]) -> dict[str, Review]:
    """Each reviewer's latest approving, change-requesting or dismissed review (comments don't
    change a standing verdict)."""
    latest: dict[str, Review] = {}
    for review in reviews:
        if review.state in _COUNTING:
            latest[review.author or ""] = review
    return latest


def changes_requested(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """A reviewer's request for changes still stood at merge."""
    if pr.reviews is None:
        return
    verdicts = last_review_by_author(pr.reviews).items()
    requests = [(a, r) for a, r in verdicts if r.state == ReviewState.CHANGES_REQUESTED]
    standing = [author for author, _ in requests]
    if standing:
        # the reviewer's own words when the review said something (one line), else the name
        found = [
            evidence(None, None, f"{author}: {one_line(r.body)}" if one_line(r.body) else author)
            for author, r in requests
        ]
        yield _risk(
            pr,
            "changes_requested",
            Severity.HIGH,
            found,
            reviewers=", ".join(standing),
            count=len(standing),
        )


def no_approval(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """Reviews are known and none approves (a standing change request already says more).
    GitHub's own review decision APPROVED overrides a review list that may be cut short."""
    if pr.reviews is None or pr.review_decision == APPROVED_DECISION:
        return
    if any(r.state == ReviewState.APPROVED for r in pr.reviews):
        return
    verdicts = last_review_by_author(pr.reviews).values()
    if any(r.state == ReviewState.CHANGES_REQUESTED for r in verdicts):
        return
    yield _risk(pr, "no_approval", Severity.MEDIUM, [], reviews=len(pr.reviews))


def unresolved_threads(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """Review threads were still unresolved at merge."""
    threads = pr.unresolved_threads
    count = max(len(threads), pr.review_threads_unresolved or 0)
    if count == 0:
        return
    found = [evidence(t.path, t.line, t.body) for t in threads]
    first = found[0].snippet if found else ""
    yield _risk(pr, "unresolved_threads", Severity.MEDIUM, found, count=count, first=first)


def _check_failed(state: str) -> bool:
    return state.upper() in FAILED_WORDS


def failing_checks(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """Checks had failed at merge."""
    failed = [c for c in pr.failing_checks if _check_failed(c.state)]
    if not failed and pr.check_state not in FAILED:
        return
    found = [evidence(None, None, f"{c.name}: {c.state}") for c in failed]
    names = ", ".join(c.name for c in failed)
    yield _risk(pr, "failing_checks", Severity.HIGH, found, checks=names, count=len(failed))


def pending_checks(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """Checks were still running at merge (and none had failed)."""
    if pr.check_state in FAILED or any(_check_failed(c.state) for c in pr.failing_checks):
        return
    waiting = [c for c in pr.failing_checks if c.state.upper() in WAITING_WORDS]
    if not waiting and pr.check_state not in WAITING:
        return
    found = [evidence(None, None, f"{c.name}: {c.state}") for c in waiting]
    names = ", ".join(c.name for c in waiting)
    yield _risk(pr, "pending_checks", Severity.LOW, found, checks=names, count=len(waiting))


DETECTOR = RuleSet(
    RiskKind.OPEN_CONCERNS,
    (changes_requested, failing_checks, no_approval, unresolved_threads, pending_checks),
)
