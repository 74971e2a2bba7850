"""Which text each part of a report shows: the model's checked sentences when its section is full
enough, else the deterministic narrative, which stays the source of truth and the fallback.

The model's sentences share the short report's mention limit (core/mentions.py): the top-PR table,
the risk items, the module table and the deterministic sections still shown name their PRs first;
a model sentence that would name a PR once too often is left out, and the PRs a sentence rests on
without naming them are listed only with the mentions left after every sentence shown.

The one place that decides it; templates and card renderers only ask `written(digest)`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from service.core.analyst.claims import pr_refs
from service.core.analyst.verdicts import NOTE_SECTION
from service.core.mentions import MentionLedger, fixed_ledger, is_pr_param
from service.core.models import Analysis, AnalysisItem, Digest, Statement

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


def statement_prs(statement: Statement) -> list[int]:
    """Every PR a deterministic sentence may name: its PR parameters and the PRs it lists."""
    named = list(statement.prs)
    for name, value in statement.params.items():
        if isinstance(value, int) and not isinstance(value, bool) and is_pr_param(name):
            named.append(value)
        elif isinstance(value, list) and not name.endswith("_total"):
            named += [v for v in value if isinstance(v, int)]
    return list(dict.fromkeys(named))


def _deterministic(digest: Digest, section: str) -> list[Statement]:
    narrative = digest.narrative
    if section == "key_changes":
        return [item for group in narrative.key_changes for item in group.items]
    statements: list[Statement] = getattr(narrative, section, [])
    return statements


def shown_ledger(digest: Digest, model_sections: set[str]) -> MentionLedger:
    """The mentions the short report makes whatever the model wrote: the top-PR table, the
    risk items, the module table, and each deterministic section the model does not replace."""
    ledger = fixed_ledger(digest)
    for bucket in digest.narrative.module_table:
        ledger.add(bucket.prs)
    for section in REPORT_ORDER:
        if section not in model_sections:
            for statement in _deterministic(digest, section):
                ledger.add(statement_prs(statement))
    return ledger


def _named(item: AnalysisItem, skip: tuple[int, ...]) -> list[int]:
    return [n for n in pr_refs(item.text) if n not in skip]


def _listed(item: AnalysisItem, ledger: MentionLedger, skip: tuple[int, ...]) -> AnalysisItem:
    """`item` with only the unnamed PRs it rests on that still have a mention left (`skip`: PRs
    it stands beside, e.g. a point's own PR, which the table names)."""
    named = _named(item, skip)
    listed = ledger.take(n for n in item.prs if n not in named and n not in skip)
    kept = [n for n in item.prs if n in named or n in skip or n in listed]
    return item if kept == item.prs else item.model_copy(update={"prs": kept})


def _shown(
    analysis: Analysis, digest: Digest, chosen: dict[str, list[AnalysisItem]]
) -> tuple[AnalysisItem | None, dict[str, list[AnalysisItem]], dict[int, AnalysisItem]]:
    """The headline, the sections in `chosen` and the points, within the mention limit: first
    each sentence in reading order, while the PRs it names have mentions left; then, with what
    is left, the PRs the shown sentences rest on without naming them."""
    ledger = shown_ledger(digest, {s for s, items in chosen.items() if items})
    known = {p.number for p in digest.prs}
    points = [(i.prs[0], i) for i in analysis.pr_points if i.prs and i.prs[0] in known]
    parts: list[tuple[str, AnalysisItem, tuple[int, ...]]] = []
    if analysis.headline is not None:
        parts.append(("headline", analysis.headline, ()))
    parts += [(section, item, ()) for section in REPORT_ORDER for item in chosen[section]]
    parts += [("pr_points", item, (number,)) for number, item in points]
    fitting = []
    for part in parts:
        named = _named(part[1], part[2])
        if all(ledger.left(n) > 0 for n in named):
            ledger.add(named)
            fitting.append(part)
    shown: dict[str, list[AnalysisItem]] = {s: [] for s in (*REPORT_ORDER, "headline")}
    by_pr: dict[int, AnalysisItem] = {}
    for section, item, skip in fitting:
        final = _listed(item, ledger, skip)
        if section == "pr_points":
            by_pr[skip[0]] = final
        else:
            shown[section].append(final)
    headline = shown.pop("headline")
    return (headline[0] if headline else None), shown, by_pr


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
    while True:  # a section the mention limit leaves too thin is the deterministic one
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
