"""Which text each part of a report shows: the model's checked sentences when its section is full
enough, else the deterministic narrative, which stays the source of truth and the fallback.

The one place that decides it; templates and card renderers only ask `written(digest)`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from service.core.models import Analysis, AnalysisItem, Digest

# fewer kept sentences than this and the section is the deterministic one
MIN_KEPT = {
    "summary": 2,
    "key_changes": 2,
    "trends": 1,
    "recommendations": 1,
    "review_notes": 1,
}


@dataclass(frozen=True)
class Written:
    """The model-written parts a renderer shows: each list is empty when that section falls
    back to the deterministic text; `points` maps a PR to its checked 要点."""

    model: str
    headline: AnalysisItem | None
    summary: list[AnalysisItem]
    key_changes: list[AnalysisItem]
    trends: list[AnalysisItem]
    recommendations: list[AnalysisItem]
    review_notes: list[AnalysisItem]
    points: dict[int, AnalysisItem] = field(default_factory=dict)
    kept: int = 0
    dropped: int = 0

    @property
    def sections(self) -> list[str]:
        """The sections the model wrote, in report order (for the "written by" note)."""
        names = ["summary", "key_changes", "trends", "recommendations", "review_notes"]
        shown = [n for n in names if getattr(self, n)]
        if self.headline is not None and "summary" not in shown:
            shown.insert(0, "summary")
        if self.points:
            shown.append("pr_points")
        return shown

    def point(self, number: int) -> AnalysisItem | None:
        return self.points.get(number)


def section_items(analysis: Analysis, section: str, dropped: Counter[str]) -> list[AnalysisItem]:
    """The kept items of `section`, or [] when it is too thin: fewer than MIN_KEPT kept, or more
    of its sentences dropped than kept (a section the model mostly made up is not trusted)."""
    items: list[AnalysisItem] = getattr(analysis, section)
    if len(items) < MIN_KEPT.get(section, 1) or dropped[section] > len(items):
        return []
    return items


def written(digest: Digest, language: str | None = None) -> Written | None:
    """What the model wrote for `digest` that a renderer shows, or None when nothing is (also
    when the model wrote nothing in the card's or report's `language`)."""
    analysis = digest.analysis_for(language) if language else digest.analysis
    if analysis is None:
        return None
    dropped = Counter(d.section for d in analysis.dropped)
    known = {p.number for p in digest.prs}
    points = {item.prs[0]: item for item in analysis.pr_points if item.prs and item.prs[0] in known}
    # the model wrote about the whole week: a filtered digest keeps only its PRs' points
    week = not digest.filter

    def items(section: str) -> list[AnalysisItem]:
        return section_items(analysis, section, dropped) if week else []

    view = Written(
        model=analysis.model,
        headline=analysis.headline if week else None,
        summary=items("summary"),
        key_changes=items("key_changes"),
        trends=items("trends"),
        recommendations=items("recommendations"),
        review_notes=items("review_notes"),
        points=points,
    )
    shown = (
        int(view.headline is not None)
        + sum(len(getattr(view, n)) for n in MIN_KEPT)
        + len(view.points)
    )
    if not shown:
        return None
    return replace(view, kept=shown, dropped=len(analysis.dropped))
