"""Facts GitHub did not give for a week's PRs, so the report can say so once (`Digest.unknown`)
instead of raising one alarm per PR for missing data.

A `None` in a PullRequest means "not told" (git history, REST without a token): reviews, labels
and the author's association. Checks are special: GraphQL leaves `check_state` None for a PR
that ran no check, so a PR's checks are unknown only when its source gave no reviews either
(the sources that give reviews give checks too).
"""

from __future__ import annotations

from collections.abc import Sequence

from service.core.models import PullRequest

REVIEWS = "reviews"
CHECKS = "checks"
LABELS = "labels"
FIRST_TIME = "first_time"


def _checks_unknown(pr: PullRequest) -> bool:
    return pr.reviews is None and pr.check_state is None and not pr.failing_checks


def unknown_facts(prs: Sequence[PullRequest]) -> list[str]:
    """Which of reviews, checks, labels and first-time contributions GitHub did not give for
    at least one of the PRs, in that order."""
    missing = {
        REVIEWS: any(pr.reviews is None for pr in prs),
        CHECKS: any(_checks_unknown(pr) for pr in prs),
        LABELS: any(pr.labels is None for pr in prs),
        FIRST_TIME: any(pr.author_association is None for pr in prs),
    }
    return [fact for fact, unknown in missing.items() if unknown]
