"""The figure rule: every figure a sentence states is one the facts hold — a PR's own figures
for a sentence about PRs, a trend bucket's counts for a sentence about a trend, the week's for
a sentence about the week; a multiplier or percentage as the PR states it (or, "tripled since
last week", as the earlier week's counts make it); a rounded figure ("约 5,600", "超过 5000",
"nearly 600") close to one of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from service.core.analyst import claims, counted_figures, repo_counts, sentence_claims
from service.core.analyst.counts import author_parts
from service.core.analyst.evidence import PREvidence
from service.core.analyst.glossary import glossary
from service.core.analyst.verify_lines import names_of

if TYPE_CHECKING:  # the checker imports this module
    from service.core.analyst.checker import Checker, Claim

APPROX = 0.05  # "约 5600 行" for 5614: within 5%
OVER = 1.25  # "超过 5000 行" for 5614: above it, within a quarter
UNDER = 0.8  # "近 600 行" for 563: below it, within a fifth


def _approx_ok(figure: claims.Figure, ints: Sequence[int]) -> bool:
    """A rounded figure ("约 5,600", "超过 5000", "nearly 600") close to one of `ints`."""
    if figure.scaled is not None:
        value = figure.scaled[0]
    else:
        numeric = [float(v) for v in figure.values if v.replace(".", "", 1).isdigit()]
        if not numeric:
            return False
        value = numeric[0]
    if figure.approx == "over":
        return any(value < v <= value * OVER for v in ints)
    if figure.approx == "under":
        return any(value * UNDER <= v < value for v in ints)
    return any(abs(v - value) <= APPROX * v for v in ints)


def _figure_ok(figure: claims.Figure, known: set[str], ints: Sequence[int]) -> bool:
    if figure.values & known:
        return True
    if figure.approx and figure.kind == "plain" and _approx_ok(figure, ints):
        return True
    if figure.scaled is None:
        return False
    value, tolerance = figure.scaled
    return any(abs(v - value) <= tolerance for v in ints)


def _figure_scope(claim: Claim, checker: Checker) -> tuple[list[int], set[str] | None]:
    """The week's integers a figure of `claim` may be, and the PR counts it may state (None:
    any count of the week): a sentence about a trend bucket states that bucket's counts; one
    about PRs states their figures (and the week's only when it speaks of the week)."""
    if not claim.prs:
        named = checker.named_counts(claim.text)
        before = checker.facts.earlier
        said = glossary().word("previous_week").search(claim.text)
        if before and (said or before.period in claim.text):
            earlier = list(before.totals.values())  # "从上周的 34 个降到 22 个"
            if not named:
                return checker.week_ints + earlier, checker.pr_counts | {str(before.totals["prs"])}
            named += earlier
        if named:
            allowed = named + checker.total_ints + checker.date_ints
            return allowed, {str(v) for v in named + checker.total_ints}
        return checker.week_ints, None
    if glossary().word("week_scope").search(claim.text):
        return checker.week_ints, None
    # "recipe fell to 7 PRs from 10", "7 medium risks": the counts of what it names
    named = checker.named_counts(claim.text) + [int(v) for v in checker.named_totals(claim.text)]
    return checker.date_ints + named, None


RATIO_TOLERANCE = 0.1
# the word after a figure: its unit ("379.444 milliseconds", "1.5 秒")
_UNIT_AFTER = re.compile(r"\s*([A-Za-z]{2,}|[\u4e00-\u9fff]{1,2})")


def _said_with_unit(figure: str, text: str, cited: Sequence[PREvidence]) -> bool:
    """A decimal figure the cited PRs' whole text (past the excerpt the model saw) states with
    the same unit word after it ("379.444 milliseconds"): a measurement as the author wrote it,
    not a figure of a table row, which has no unit beside it."""
    if "." not in figure:
        return False
    at = text.find(figure)
    unit = _UNIT_AFTER.match(text, at + len(figure)) if at >= 0 else None
    if unit is None:
        return False
    said = re.compile(
        rf"(?<![\w.]){re.escape(figure)}\s*{re.escape(unit.group(1).lower())}", re.IGNORECASE
    )
    return any(said.search(e.text) for e in cited)


def _ratio_ok(figure: claims.Figure, text: str, checker: Checker) -> bool:
    """ "Tripled since last week": the ratio of a named bucket's count to its earlier count."""
    if figure.kind != "multiplier":
        return False
    ratios = sentence_claims.comparison_ratios(text, checker.evidence)
    return any(abs(float(v) - r) <= RATIO_TOLERANCE for v in figure.values for r in ratios)


def _by_repo(figure: claims.Figure, text: str, checker: Checker) -> bool:
    """ "verl 34 个", "17 in verl-omni": the count of a family repository's PRs."""
    return repo_counts.repo_count(figure, text, checker.facts.repos, checker.evidence)


def _unfound(figure: claims.Figure, text: str, checker: Checker) -> str:
    """The reason against a figure no fact holds: a count of contributors other than the
    checker's contradicts the week; any other figure was not found."""
    denied = counted_figures.denied_total(figure, text, checker.facts.totals)
    return denied or f"figure: {figure.text}"


def figure_reasons(claim: Claim, checker: Checker) -> list[str]:
    week_ints, named_counts = _figure_scope(claim, checker)
    ints = list(week_ints)
    known = {str(v) for v in week_ints} | {str(len(claim.prs))} | {str(n) for n in claim.prs}
    for pr in claim.facts:
        known |= checker.numbers(pr)
        ints += checker.ints(pr)
    counts = (checker.pr_counts if named_counts is None else named_counts) | {str(len(claim.prs))}
    reasons = []

    def cited() -> list[PREvidence]:
        return [e for e in (checker.evidence.pr(n) for n in claim.prs) if e is not None]

    def names() -> list[str]:
        return names_of(claim.text)

    parts = author_parts(claim.text, checker.evidence)
    parts |= checker.file_lines(claim.text, claim.prs)  # a named file's added lines
    for figure in claims.figures(claim.text):
        if figure.text in parts:
            ok = True  # an author's count (author_count_reasons checks it), a file's lines
        elif figure.kind == "prs":
            ok = bool(figure.values & counts) or _by_repo(figure, claim.text, checker)
        elif figure.kind in ("multiplier", "percent"):
            # `2x` or `35%` must be stated as such in those PRs' text, not be any 2 or 35
            stated = {v for pr in claim.facts for v in checker.stated(pr, figure.kind)}
            ok = bool(figure.values & stated) or _ratio_ok(figure, claim.text, checker)
        elif figure.scaled is not None:
            # `8 千` is 8,000 (or `128K` as the PR writes it), never a stray 8
            said = figure.text.replace(" ", "").lower()
            ok = _figure_ok(figure, set(), ints) or any(
                said in checker.pr_text(pr).replace(" ", "").lower() for pr in claim.facts
            )
        else:
            ok = (
                _figure_ok(figure, known, ints)
                or any(e.states(figure.text, names(), claim.text) for e in cited())
                or _said_with_unit(figure.text, claim.text, cited())
                or counted_figures.counts_what_it_names(figure, claim.text, checker.facts.repos)
                or _by_repo(figure, claim.text, checker)
            )
        if not ok:
            reasons.append(_unfound(figure, claim.text, checker))
    return reasons
