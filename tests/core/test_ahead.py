"""build_digest given the work of PRs done while the week downloaded (core.ahead): the same
digest whatever PRs have work, in whatever order it was done, and work made from another
object than the week's own PR is not used."""

from __future__ import annotations

import random

import pytest

from service.core.ahead import PrWork, work_of
from service.core.digest import build_digest
from service.core.models import CollectedPeriod, PullRequest
from service.core.profile import RepoProfile
from service.core.risks import risk_context
from tests.conftest import NOW, load_week

WEEKS = ("2025-W47", "2025-W48", "2026-W03", "2026-W04")


def _worked(prs: list[PullRequest], profile: RepoProfile) -> dict[int, PrWork]:
    """Each PR's work in the order given, one context released after each PR (as the
    pipeline's thread does)."""
    context = risk_context((), profile)
    work: dict[int, PrWork] = {}
    for pr in prs:
        work[pr.number] = work_of(pr, profile, context)
        context.release()
    return work


def _json(week: CollectedPeriod, profile: RepoProfile, **kwargs: object) -> str:
    return build_digest(week, profile, language="zh", now=NOW, **kwargs).model_dump_json()  # type: ignore[arg-type]


@pytest.mark.parametrize("label", WEEKS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_same_digest_whatever_order_and_share_of_prs_worked_ahead(
    verl_profile: RepoProfile, label: str, seed: int
) -> None:
    week = load_week(label)
    plain = _json(week, verl_profile)
    rng = random.Random(seed)
    order = list(week.prs)
    rng.shuffle(order)
    some = order[: rng.randint(0, len(order))]
    assert _json(week, verl_profile, ahead=_worked(order, verl_profile)) == plain
    assert _json(week, verl_profile, ahead=_worked(some, verl_profile)) == plain


def test_work_of_another_object_is_not_used(verl_profile: RepoProfile) -> None:
    week = load_week("2025-W48")
    plain = _json(week, verl_profile)
    # copies that say something else (a breaking title, no files): their work must not count
    other = [
        pr.model_copy(update={"title": f"[BREAKING] {pr.title}", "files": []}) for pr in week.prs
    ]
    assert _json(week, verl_profile, ahead=_worked(other, verl_profile)) == plain
