"""What a PR alone decides of its part of the digest, worked out while the week downloads.

A cold build of a big week waits ~50 ms on GitHub for each PR's files, four at a time, and
used to start the analysis after the last one arrived. Much of that analysis needs the PR
alone: its classification, the detectors that read no other PR (`risks.alone_detectors`), the
scoring's reading of its patches and its gists. `work_of` is that part (the pipeline runs it
in a thread of its own as each PR's files arrive); `build_digest` takes the results
(`PrWork`) and does the week-level rest (follow-ups, dangling files, migrations, relations,
ranking), with the same digest as without them: each PR's work is what `build_digest` would
do for it, and a PR it has no work for (or work made from another object) is analysed as
before.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.core.classify import Classification, classify_pr
from service.core.discussion import discussion
from service.core.gists import files_gist, gist_of
from service.core.models import Discussion, PullRequest, Risk, Statement
from service.core.points import comment_only, pr_facts
from service.core.profile import RepoProfile
from service.core.risks import alone_risks, config_changes
from service.core.risks.base import Context


@dataclass(frozen=True)
class Reading:
    """What the scoring takes from a PR's parsed patches, read while the detectors hold them."""

    facts: list[Statement]
    comment_only: bool


def read_pr(pr: PullRequest, c: Classification, profile: RepoProfile, context: Context) -> Reading:
    """The PR's points and whether it changes comments only, on the patches (and setting
    changes) its detectors worked out."""
    parsed, settings = context.parsed, config_changes.of_pr(pr, context)
    facts = pr_facts(pr, profile, c.change_type, c.modules, parsed, settings)
    return Reading(facts, comment_only(pr, parsed))


@dataclass(frozen=True)
class PrWork:
    """One PR's part of the digest that needs no other PR. `pr` is the very object it was
    worked out on: `build_digest` uses the work only for that object."""

    pr: PullRequest
    classification: Classification
    risks: tuple[list[Risk], ...]  # per detector of `alone_detectors`, in their order
    reading: Reading
    gist: str
    files_gist: Statement | None
    discussion: Discussion | None


def work_of(pr: PullRequest, profile: RepoProfile, context: Context) -> PrWork:
    """`pr`'s work, its patches parsed once in `context` for the detectors and the reading
    (released by the caller after)."""
    c = classify_pr(pr, profile)
    risks = alone_risks(pr, context)
    return PrWork(
        pr=pr,
        classification=c,
        risks=risks,
        reading=read_pr(pr, c, profile, context),
        gist=gist_of(pr),
        files_gist=files_gist(pr),
        discussion=discussion(pr),
    )
