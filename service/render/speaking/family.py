"""A family digest's own sentences: each repository's line and the ties between repositories."""

from __future__ import annotations

from service.core.models import Crossing, RepoPart
from service.core.scope import short_name
from service.render.speaking.voice import Voice

PERCENT = 100


class FamilyWords(Voice):
    """Sentences of the parts a family digest adds (core/family.py)."""

    def repo_name(self, repo: str) -> str:
        return self.target.text(short_name(repo))

    def repo_line(self, part: RepoPart) -> str:
        """`verl-omni: 13 PRs, +6,254 / -736 lines …`, or that it was quiet."""
        name = self.repo_name(part.repo)
        if part.quiet:
            return self.tr.t("report.family.quiet", repo=name)
        t = part.totals
        return self.tr.t(
            "report.family.repo_line",
            repo=name,
            prs=t.prs,
            additions=f"{t.additions:,}",
            deletions=f"{t.deletions:,}",
            files=t.files,
            contributors=t.contributors,
            risks=t.risks,
        )

    def repo_top(self, part: RepoPart) -> str:
        return self.tr.t("report.family.top", prs=self.pr_links([p.key for p in part.top]))

    def crossing(self, c: Crossing) -> str:
        """One tie between repositories, its PRs linked to their own repository."""
        kind = c.kind
        if kind == "moved":
            kind = "moved_week" if c.week else "moved" if c.prs else "moved_none"
        elif kind == "names" and not c.prs:
            kind = "names_none"
        return self.tr.t(
            f"report.family.{kind}",
            pr=self.pr_link(c.pr),
            repo=self.repo_name(c.repo),
            prs=self.pr_links(c.prs),
            week=c.week,
        )

    def repo_trend(self, part: RepoPart) -> str:
        """The repository's line in the trends: its PRs and its share of the family's."""
        name = self.repo_name(part.repo)
        if part.quiet:
            return self.tr.t("report.family.trend_quiet", repo=name)
        total = max(self.digest.stats.prs, 1)
        share = round(PERCENT * part.totals.prs / total)
        return self.tr.t("report.family.trend_line", repo=name, prs=part.totals.prs, share=share)
