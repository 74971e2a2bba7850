"""Weeks generated from the recorded verl PRs, for the risk golden files and benchmarks: copies
spread over a week, and shuffled fortnights (random merge times, some patches of their own, some
PRs twice), which give the follow-up and precision detectors many pairs to weigh."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from service.core.models import CollectedPeriod, PullRequest
from service.core.risks import removal_targets

START = datetime(2026, 1, 18, 16, 0, tzinfo=UTC)  # 2026-W04 in Asia/Shanghai
WEEK = timedelta(days=7)
FORTNIGHT_PRS = 300
OWN_PATCHES = 0.3  # the share of a fortnight's patches that get a line of their own


def recorded_prs(weeks: dict[str, CollectedPeriod]) -> list[PullRequest]:
    """Every recorded PR, the weeks in order."""
    return [pr for label in sorted(weeks) for pr in weeks[label].prs]


def copies(
    real: list[PullRequest], count: int, start: datetime, *, first: int, distinct: bool
) -> list[PullRequest]:
    """`count` renumbered copies of the recorded PRs, merges spread over the week from `start`;
    with `distinct`, each patch ends with a context line naming its copy, so no two PRs carry
    the same patch (benchmarks/collect.py makes the same week for the fake GitHub)."""
    step = WEEK / count
    made = []
    for i in range(count):
        pr = real[i % len(real)]
        number = first + i
        files = [
            f.model_copy(update={"patch": f"{f.patch}\n # copy {number}"})
            if distinct and f.patch
            else f
            for f in pr.files
        ]
        update = {"number": number, "merged_at": start + step * i + timedelta(seconds=1)}
        made.append(pr.model_copy(update={**update, "files": files}))
    return made


def fortnight(real: list[PullRequest], seed: int) -> tuple[list[PullRequest], list[PullRequest]]:
    """(week, earlier): FORTNIGHT_PRS recorded PRs drawn at random (some twice; three in ten
    patches get a line of their own) merged at random times over two weeks, in random order."""
    rng = random.Random(seed)
    prs = []
    for i in range(FORTNIGHT_PRS):
        pr = rng.choice(real)
        number = 200_000 + seed * 1_000 + i
        files = [
            f.model_copy(update={"patch": f"{f.patch}\n x{number}"})
            if f.patch and rng.random() < OWN_PATCHES
            else f
            for f in pr.files
        ]
        merged = START - WEEK + timedelta(seconds=rng.randrange(int(2 * WEEK.total_seconds())))
        prs.append(pr.model_copy(update={"number": number, "merged_at": merged, "files": files}))
    rng.shuffle(prs)
    return [p for p in prs if p.merged_at >= START], [p for p in prs if p.merged_at < START]


def searched(prs: list[PullRequest]) -> dict[str, list[str]]:
    """Code-search answers for the PRs' removal targets: every other one still named somewhere."""
    targets = sorted({target for pr in prs for target in removal_targets(pr)})
    return {t: [f"docs/uses-{n}.md"] if n % 2 else [] for n, t in enumerate(targets)}
