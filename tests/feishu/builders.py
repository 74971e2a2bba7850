"""Digests for the Feishu tests, built by the real pipeline from the recorded verl weeks."""

from __future__ import annotations

import functools

from service.core.digest import build_digest
from service.core.models import Digest, Risk, ScoredPR
from service.core.profile import load_profile
from tests.conftest import NOW, load_week

WEEK_LABELS = ("2025-W47", "2025-W48", "2026-W03", "2026-W04")
FIRST_NUMBER = 100_000


@functools.lru_cache(maxsize=16)
def real_digest(label: str = "2026-W04", *, language: str = "zh") -> Digest:
    """The digest build_digest makes of a real recorded verl week."""
    week = load_week(label)
    return build_digest(week, load_profile(week.repo), language=language, now=NOW)


def big_digest(
    count: int = 2000, *, language: str = "zh", titles: list[str] | None = None
) -> Digest:
    """A synthetic week of `count` PRs: the real 2026-W04 PRs and risks repeated under new
    numbers (and, with `titles`, those titles put in front of every PR title)."""
    base = real_digest("2026-W04", language=language)
    prs: list[ScoredPR] = []
    risks: list[Risk] = []
    for i in range(count):
        src = base.prs[i % len(base.prs)]
        number = FIRST_NUMBER + i
        title = f"{titles[i % len(titles)]} {src.title}" if titles else f"{src.title} ({i})"
        prs.append(
            src.model_copy(
                update={
                    "number": number,
                    "title": title,
                    "url": f"https://github.com/{base.repo}/pull/{number}",
                }
            )
        )
        risks += [r.model_copy(update={"prs": [number]}) for r in base.risks if src.number in r.prs]
    stats = base.stats.model_copy(update={"prs": count})
    return base.model_copy(update={"prs": prs, "risks": risks, "stats": stats})
