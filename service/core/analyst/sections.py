"""Which text each part of a report shows: the model's checked sentences when its section is full
enough, else the deterministic narrative, which stays the source of truth and the fallback.

Every sentence the checker kept is shown, once: the short report's mention limit
(core/mentions.py) drops repeats of deterministic PR lists, never a kept sentence; and a sentence
is shown as written, naming only the PRs it names (the PRs it rests on are never appended).

The one place that decides it; templates and card renderers only ask `written(digest)`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from service.core.analyst.verdicts import NOTE_SECTION
from service.core.models import Analysis, AnalysisItem, Digest

# fewer kept sentences than this and the section is the deterministic one
MIN_KEPT = {
    "summary": 2,
    "key_changes": 2,
    "trends": 1,
    "recommendations": 1,
    "review_notes": 1,
}
# the order in which a reader meets the model's parts (and they take the mentions left)
REPORT_ORDER = ("summary", "key_changes", "trends", "recommendations", "review_notes")


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


def _said(text: str) -> str:
    """A sentence as compared for repeats: case, spacing and the closing stop ignored."""
    return " ".join(text.split()).rstrip("。.!！").casefold()


def _shown(
    analysis: Analysis, digest: Digest, chosen: dict[str, list[AnalysisItem]]
) -> tuple[AnalysisItem | None, dict[str, list[AnalysisItem]], dict[int, AnalysisItem]]:
    """The headline, the sections in `chosen` and the points: every kept sentence once, in
    reading order (a sentence the report already showed is not shown again). No mention limit
    applies: what the checker kept is content, and each sentence names only the PRs it names."""
    known = {p.number for p in digest.prs}
    seen: set[str] = set()

    def first_time(item: AnalysisItem) -> bool:
        said = _said(item.text)
        if said in seen:
            return False
        seen.add(said)
        return True

    headline = analysis.headline if analysis.headline and first_time(analysis.headline) else None
    shown = {s: [i for i in chosen[s] if first_time(i)] for s in REPORT_ORDER}
    by_pr: dict[int, AnalysisItem] = {}
    for item in analysis.pr_points:
        if item.prs and item.prs[0] in known and item.prs[0] not in by_pr and first_time(item):
            by_pr[item.prs[0]] = item
    return headline, shown, by_pr


def written(digest: Digest, language: str | None = None) -> Written | None:
    """What the model wrote for `digest` that a renderer shows, or None when nothing is (also
    when the model wrote nothing in the card's or report's `language`)."""
    analysis = digest.analysis_for(language) if language else digest.analysis
    if analysis is None:
        return None
    dropped = Counter(d.section for d in analysis.dropped)
    # the model wrote about the whole week: a filtered digest keeps only its PRs' points
    week = not digest.filter
    chosen = {s: section_items(analysis, s, dropped) if week else [] for s in REPORT_ORDER}
    while True:  # a section its repeats leave too thin is the deterministic one
        headline, shown, points = _shown(analysis, digest, chosen)
        thin = [s for s in REPORT_ORDER if chosen[s] and len(shown[s]) < MIN_KEPT[s]]
        if not thin:
            break
        chosen.update({s: [] for s in thin})
    view = Written(
        model=analysis.model,
        headline=headline if week else None,
        summary=shown["summary"],
        key_changes=shown["key_changes"],
        trends=shown["trends"],
        recommendations=shown["recommendations"],
        review_notes=shown["review_notes"],
        points=points,
    )
    count = int(view.headline is not None) + sum(len(v) for v in shown.values()) + len(points)
    if not count:
        return None
    # the verifier's note (sentences kept unverified) is in the audit list, not a dropped one
    refused = sum(d.section != NOTE_SECTION for d in analysis.dropped)
    return replace(view, kept=count, dropped=refused)
