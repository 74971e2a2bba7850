"""The eleven risk detectors and `detect_risks`, their one entry point.

Each family module documents its rules and severities. Only what a PR adds counts, except for
the breaking and migration detectors, which are about what it removes. A rule that fires on more
than three PRs comes back as one roll-up risk (`rollup`). Wording lives in the catalogs
`templates/strings/{zh,en}/risks.toml`, keyed by kind and rule.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from service.core.models import PullRequest, Risk
from service.core.profile import RepoProfile
from service.core.risks import rollup
from service.core.risks.base import Context, Detector, sort_risks

__all__ = [
    "DETECTORS",
    "Detector",
    "detect_risks",
    "detectors",
    "message_keys",
    "message_params",
    "ranked",
    "removal_targets",
    "risks_by_pr",
]


@functools.cache
def detectors() -> tuple[Detector, ...]:
    """The eleven detectors, in the order they run. Their modules (and the patterns they compile)
    are imported here, on first use: rendering a stored digest needs none of them (~0.05 s)."""
    from service.core.risks import (
        abs_paths,
        breaking,
        commands,
        dangling,
        followups,
        migration,
        precision,
        review,
        secrets,
        shell_vars,
        tests_missing,
    )

    return (
        tests_missing.DETECTOR,
        breaking.DETECTOR,
        migration.DETECTOR,
        commands.DETECTOR,
        abs_paths.DETECTOR,
        shell_vars.DETECTOR,
        followups.DETECTOR,
        precision.DETECTOR,
        review.DETECTOR,
        secrets.DETECTOR,
        dangling.DETECTOR,
    )


def __getattr__(name: str) -> Any:
    # DETECTORS and removal_targets as before, their modules imported when first asked for
    if name == "DETECTORS":
        return detectors()
    if name == "removal_targets":
        from service.core.risks.migration import removal_targets

        return removal_targets
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def detect_risks(
    prs: Sequence[PullRequest],
    profile: RepoProfile,
    *,
    earlier: Sequence[PullRequest] = (),
    references: dict[str, list[str]] | None = None,
) -> list[Risk]:
    """Every risk of the week's merged PRs, high severity first, then by PR number; a rule that
    fires on more than three PRs is one roll-up risk holding each PR's risk in `members`.

    `earlier` are the previous week's PRs (reverts and follow-ups reach back to them);
    `references` maps each removed path of a migration to the files that still name it
    (None: not searched, so migration risks say "unverified").
    """
    context = risk_context(prs, profile, earlier=earlier, references=references)
    return ranked([risk for _, risks in risks_by_pr(prs, context) for risk in risks])


def risks_by_pr(
    prs: Sequence[PullRequest], context: Context
) -> Iterator[tuple[PullRequest, list[Risk]]]:
    """Each PR of `prs` with the risks every detector finds on it, PR after PR. While the caller
    holds a PR, the patches parsed for it stay in `context` (its `parsed` hands them over
    again); they are released when the next PR is asked for, so a big week's parsed patches
    are never all held at once."""
    checks = [detector.checker(prs, context) for detector in detectors()]
    context.release()
    for pr in prs:
        yield pr, [risk for check in checks for risk in check(pr)]
        context.release()


def ranked(found: Iterable[Risk]) -> list[Risk]:
    """The risks `risks_by_pr` found, as `detect_risks` returns them: high severity first, then
    by PR number (each detector's risks keep their order: a detector has one kind), rolled up."""
    return sort_risks(rollup.roll_up(sort_risks(found)))


def risk_context(
    prs: Sequence[PullRequest],
    profile: RepoProfile,
    *,
    earlier: Sequence[PullRequest] = (),
    references: dict[str, list[str]] | None = None,
) -> Context:
    """What the detectors look at for the week, with each patch parsed once when asked."""
    return Context(profile=profile, week=tuple(prs), earlier=tuple(earlier), references=references)


ROLLUP_FIELDS = {"summary": "rollup", "recommendation": "rollup_recommendation"}


def message_keys(risk: Risk, field: str) -> tuple[str, str]:
    """Catalog keys for one sentence of a risk, most specific first: the renderer uses the first
    key the catalog has (`risk.<kind>.<rule>.<field>`, then `risk.<kind>.<field>`).

    A roll-up's summary is `rollup` (`risk.<kind>.<rule>.rollup`, then `risk.<kind>.rollup`)
    and its recommendation `risk.<kind>.<rule>.rollup_recommendation`, else the kind's
    recommendation (which names no single PR)."""
    kind, rule = f"risk.{risk.kind}", f"risk.{risk.kind}.{risk.rule}"
    if not risk.members or field not in ROLLUP_FIELDS:
        return (f"{rule}.{field}", f"{kind}.{field}")
    if field == "summary":
        return (f"{rule}.rollup", f"{kind}.rollup")
    return (f"{rule}.rollup_recommendation", f"{kind}.{field}")


def message_params(risk: Risk) -> dict[str, str | int | float]:
    """The values a catalog sentence may use: the risk's params plus `pr` and `prs`."""
    listed = ", ".join(f"#{number}" for number in risk.prs)
    first = risk.prs[0] if risk.prs else 0
    return {"pr": first, "prs": listed, **risk.params}
