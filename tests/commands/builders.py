"""Digests for tests, built by the real core from the recorded verl weeks (tests/data/weeks)."""

from __future__ import annotations

import functools
from datetime import timedelta

from service.core.digest import build_digest
from service.core.models import CollectedPeriod, Digest, PullRequest, Risk, ScoredPR, Stats
from service.core.profile import load_profile
from tests.conftest import NOW, load_week

WEEK_LABELS = ("2025-W47", "2025-W48", "2026-W03", "2026-W04")
HUGE = 2000
HUGE_BASE = 100_000


def digest_from_week(collected: CollectedPeriod, *, language: str = "en") -> Digest:
    """The real pipeline's digest of a collected week."""
    return build_digest(collected, load_profile(collected.repo), language=language, now=NOW)


@functools.lru_cache(maxsize=16)
def real_digest(label: str = "2026-W04", *, language: str = "en") -> Digest:
    """The digest of a recorded week (cached: treat it as read-only)."""
    return digest_from_week(load_week(label), language=language)


def huge_week(count: int = HUGE, *, hostile: bool = False) -> CollectedPeriod:
    """A synthetic week of `count` PRs made by repeating the real W04 PRs under new numbers."""
    base = load_week("2026-W04")
    prs: list[PullRequest] = []
    for i in range(count):
        src = base.prs[i % len(base.prs)]
        title = f"<!channel> urgent <@U123> {src.title} " * (40 if hostile else 1)
        prs.append(
            src.model_copy(
                update={
                    "number": HUGE_BASE + i,
                    "title": title if hostile else f"{src.title} ({i})",
                    "url": f"https://github.com/{base.repo}/pull/{HUGE_BASE + i}",
                    "merged_at": base.window.start + timedelta(seconds=60 + i),
                }
            )
        )
    return base.model_copy(update={"prs": prs})


def replicate_digest(base: Digest, count: int = HUGE) -> Digest:
    """`base` (a real digest) with its PRs and their risks repeated up to `count` PRs: what the
    core builds for a huge week, without paying for the core's analysis of 2,000 PRs."""
    originals = base.prs
    prs: list[ScoredPR] = []
    risks: list[Risk] = []
    for i in range(count):
        src = originals[i % len(originals)]
        number = HUGE_BASE + i
        url = src.url.rsplit("/", 1)[0] + f"/{number}"
        prs.append(
            src.model_copy(update={"number": number, "url": url, "title": f"{src.title} ({i})"})
        )
        for risk in base.risks:
            if risk.prs and risk.prs[0] == src.number:
                risks.append(risk.model_copy(update={"prs": [number]}))
    stats = Stats(
        **{
            **base.stats.model_dump(),
            "prs": count,
            "risks_high": sum(r.severity == "high" for r in risks),
            "risks_medium": sum(r.severity == "medium" for r in risks),
            "risks_low": sum(r.severity == "low" for r in risks),
        }
    )
    return base.model_copy(update={"prs": prs, "risks": risks, "stats": stats})


@functools.lru_cache(maxsize=4)
def huge_digest(language: str = "en", *, by_hand: bool = False) -> Digest:
    """A 2,000-PR digest: through the real core (slow: tens of seconds) or replicated."""
    if by_hand:
        return replicate_digest(real_digest(language=language))
    if language != "en":
        return huge_digest("en").model_copy(update={"language": language})
    return digest_from_week(huge_week(HUGE), language=language)
