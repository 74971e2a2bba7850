"""Merged with open concerns: reviews, unresolved threads, checks (synthetic GitHub data)."""

from __future__ import annotations

from typing import Any

from service.core.models import (
    Check,
    CheckState,
    CollectedPeriod,
    Review,
    ReviewState,
    ReviewThread,
    Risk,
    Severity,
)
from service.core.profile import RepoProfile
from service.core.risks import review
from service.core.risks.base import Context
from service.core.unknown import unknown_facts
from tests.core.risks.helpers import LABELS, make_pr, week_context


def detect(profile: RepoProfile, **fields: Any) -> list[Risk]:
    pr = make_pr(400, "[trainer] feat: x", [], **fields)
    return review.DETECTOR.detect([pr], Context(profile=profile))


def approved(author: str = "maintainer") -> Review:
    return Review(state=ReviewState.APPROVED, author=author)


def test_git_history_weeks_know_nothing_and_report_nothing(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    for label in LABELS:
        assert all(pr.reviews is None and pr.check_state is None for pr in weeks[label].prs)
        context = week_context(weeks, label, verl_profile)
        assert review.DETECTOR.detect(weeks[label].prs, context) == []


def test_approved_and_green_is_fine(verl_profile: RepoProfile) -> None:
    assert detect(verl_profile, reviews=[approved()], check_state=CheckState.SUCCESS) == []


def test_no_approving_review(verl_profile: RepoProfile) -> None:
    reviews = [Review(state=ReviewState.COMMENTED, author="a")]
    (risk,) = detect(verl_profile, reviews=reviews)
    assert (risk.rule, risk.severity, risk.params["reviews"]) == ("no_approval", Severity.MEDIUM, 1)
    (risk,) = detect(verl_profile, reviews=[])
    assert risk.rule == "no_approval"
    assert detect(verl_profile, reviews=reviews, review_decision="APPROVED") == []


def test_standing_change_request_is_high(verl_profile: RepoProfile) -> None:
    reviews = [
        approved("a"),
        Review(state=ReviewState.CHANGES_REQUESTED, author="b"),
        Review(state=ReviewState.COMMENTED, author="b"),
    ]
    (risk,) = detect(verl_profile, reviews=reviews)
    assert (risk.rule, risk.severity, risk.params["reviewers"]) == (
        "changes_requested",
        Severity.HIGH,
        "b",
    )


def test_change_request_later_approved_or_dismissed_is_settled(verl_profile: RepoProfile) -> None:
    for settled in (ReviewState.APPROVED, ReviewState.DISMISSED):
        reviews = [
            Review(state=ReviewState.CHANGES_REQUESTED, author="b"),
            Review(state=settled, author="b"),
            approved("a"),
        ]
        assert detect(verl_profile, reviews=reviews) == []


def test_unresolved_thread_is_quoted(verl_profile: RepoProfile) -> None:
    thread = ReviewThread(
        path="verl/trainer/main_ppo.py",
        line=88,
        author="r",
        body="This breaks resume from checkpoint, please keep the old key.",
    )
    (risk,) = detect(
        verl_profile, reviews=[approved()], unresolved_threads=[thread], review_threads_unresolved=2
    )
    assert (risk.rule, risk.params["count"]) == ("unresolved_threads", 2)
    assert risk.params["first"] == thread.body
    assert (risk.evidence[0].path, risk.evidence[0].line) == ("verl/trainer/main_ppo.py", 88)


def test_failing_check_is_quoted(verl_profile: RepoProfile) -> None:
    checks = [
        Check(name="e2e_ppo_trainer_megatron", state="FAILURE"),
        Check(name="doc_build", state="PENDING"),
    ]
    (risk,) = detect(
        verl_profile, reviews=[approved()], check_state=CheckState.FAILURE, failing_checks=checks
    )
    assert (risk.rule, risk.severity, risk.params["checks"]) == (
        "failing_checks",
        Severity.HIGH,
        "e2e_ppo_trainer_megatron",
    )
    assert risk.evidence[0].snippet == "e2e_ppo_trainer_megatron: FAILURE"


def test_pending_checks_are_low(verl_profile: RepoProfile) -> None:
    (risk,) = detect(
        verl_profile,
        reviews=[approved()],
        check_state=CheckState.PENDING,
        failing_checks=[Check(name="gpu_unit_tests", state="IN_PROGRESS")],
    )
    assert (risk.rule, risk.severity, risk.params["checks"]) == (
        "pending_checks",
        Severity.LOW,
        "gpu_unit_tests",
    )


# --- what GitHub did not tell: said once for the week, never one alarm per PR -------------


def test_recorded_weeks_did_not_give_reviews_checks_labels_or_associations(
    weeks: dict[str, CollectedPeriod],
) -> None:
    for label in LABELS:
        assert unknown_facts(weeks[label].prs) == ["reviews", "checks", "labels", "first_time"]


def test_graphql_data_is_known_even_without_any_check() -> None:
    # GraphQL gives reviews for every PR; a PR without a status rollup ran no check: known
    told = {"reviews": [approved()], "labels": [], "author_association": "MEMBER"}
    prs = [make_pr(1, "a", [], **told), make_pr(2, "b", [], check_state=CheckState.SUCCESS, **told)]
    assert unknown_facts(prs) == []
    partly = [*prs, make_pr(3, "c", [])]  # one PR fetched without its details
    assert unknown_facts(partly) == ["reviews", "checks", "labels", "first_time"]
    assert unknown_facts([]) == []


def test_failing_checks_and_standing_requests_are_high_with_their_own_rules(
    verl_profile: RepoProfile,
) -> None:
    reviews = [Review(state=ReviewState.CHANGES_REQUESTED, author="b")]
    failing = [Check(name="e2e", state="FAILURE")]
    risks = detect(verl_profile, reviews=reviews, failing_checks=failing)
    assert [(r.rule, r.severity) for r in risks] == [
        ("changes_requested", Severity.HIGH),
        ("failing_checks", Severity.HIGH),
    ]
