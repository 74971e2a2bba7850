"""Digests for tests, built from the real recorded verl weeks (tests/data/weeks)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from service.core.models import (
    CollectedWeek,
    Digest,
    Evidence,
    PullRequest,
    Risk,
    RiskKind,
    ScoredPR,
    Severity,
    Stats,
    TrendBucket,
    Trends,
)
from tests.conftest import NOW, load_week

WEEK_LABELS = ("2025-W47", "2025-W48", "2026-W03", "2026-W04")


def digest_from_week(collected: CollectedWeek, *, language: str = "en") -> Digest:
    """The real pipeline's digest when core.digest is importable, else one built by hand."""
    try:
        from service.core.digest import build_digest
        from service.core.profile import load_profile
    except ImportError:
        return hand_digest(collected, language=language)
    return build_digest(collected, load_profile(collected.repo), language=language, now=NOW)


def _scored(pr: PullRequest) -> ScoredPR:
    size = pr.additions + pr.deletions
    return ScoredPR(
        number=pr.number,
        title=pr.title,
        url=pr.url,
        author=pr.author,
        merged_at=pr.merged_at,
        gist=(pr.body.strip().splitlines() or [""])[0][:160],
        additions=pr.additions,
        deletions=pr.deletions,
        changed_files=pr.changed_files,
        modules=sorted({f.path.split("/")[0] for f in pr.files})[:3],
        score=round(min(10.0, size / 100), 1),
    )


def hand_digest(collected: CollectedWeek, *, language: str = "en") -> Digest:
    """A digest from a real week's PRs without the core: sizes as scores, removals as risks."""
    prs = [_scored(pr) for pr in collected.prs]
    risks = [
        Risk(
            kind=RiskKind.MIGRATION,
            severity=Severity.HIGH if pr.deletions > 1000 else Severity.MEDIUM,
            prs=[pr.number],
            evidence=[Evidence(path=f.path, snippet=f.path) for f in pr.files[:2]],
            params={"files": pr.changed_files, "deletions": pr.deletions},
        )
        for pr in collected.prs
        if pr.deletions > 300
    ]
    modules: dict[str, list[int]] = {}
    for p in prs:
        for m in p.modules:
            modules.setdefault(m, []).append(p.number)
    return Digest(
        repo=collected.repo,
        week=collected.window.label,
        timezone=collected.window.timezone,
        start=collected.window.start,
        end=collected.window.end,
        language=language,
        generated_at=NOW,
        source=collected.source,
        stats=Stats(
            prs=len(prs),
            additions=sum(p.additions for p in prs),
            deletions=sum(p.deletions for p in prs),
            contributors=len({p.author for p in prs}),
            risks_high=sum(r.severity is Severity.HIGH for r in risks),
            risks_medium=sum(r.severity is Severity.MEDIUM for r in risks),
        ),
        prs=prs,
        risks=risks,
        trends=Trends(
            modules=[TrendBucket(key=k, count=len(v), prs=v) for k, v in modules.items()]
        ),
    )


def real_digest(label: str = "2026-W04", *, language: str = "en") -> Digest:
    return digest_from_week(load_week(label), language=language)


def huge_week(count: int = 2000, *, hostile: bool = False) -> CollectedWeek:
    """A synthetic week of `count` PRs made by repeating the real W04 PRs under new numbers."""
    base = load_week("2026-W04")
    prs: list[PullRequest] = []
    for i in range(count):
        src = base.prs[i % len(base.prs)]
        title = f"<!channel> urgent <@U123> {src.title} " * (40 if hostile else 1)
        prs.append(
            src.model_copy(
                update={
                    "number": 100_000 + i,
                    "title": title if hostile else f"{src.title} ({i})",
                    "url": f"https://github.com/{base.repo}/pull/{100_000 + i}",
                    "merged_at": base.window.start + timedelta(seconds=60 + i),
                }
            )
        )
    return base.model_copy(update={"prs": prs})


def moment(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)
