"""A family digest's own sentences: each repository's line and the ties between repositories."""

from __future__ import annotations

from service.core.mentions import leaf_risks
from service.core.models import Crossing, RepoPart, Severity
from service.core.scope import short_name, split_key
from service.core.titles import parse_title
from service.render.speaking.params import Strict
from service.render.speaking.voice import Voice

PERCENT = 100
RISK_PRS = 3  # a repository's risk line names at most this many PRs


class FamilyWords(Voice):
    """Sentences of the parts a family digest adds (core/family.py)."""

    def repo_name(self, repo: str) -> str:
        return self.target.text(short_name(repo))

    def _sentence(self, key: str, **params: object) -> str:
        """A catalog sentence (its Markdown marks written for the target) with `params`
        already made safe."""
        return self.target.catalog(self.tr.catalog[key]).format_map(Strict(params))

    def titled(self, key: int) -> str:
        """The PR's link and what its title says it does (a PR of an earlier week, which the
        digest does not hold: its link alone)."""
        pr = self.digest.pr(key)
        if pr is None:
            return self.pr_link(key)
        said = parse_title(pr.title).description or pr.title
        return self._sentence(
            "report.family.titled", pr=self.pr_link(key), title=self.text(said, of=key)
        )

    def repo_line(self, part: RepoPart) -> str:
        """`verl-omni: 13 PRs, +6,254 / -736 lines …`, or that it was quiet."""
        name = self.repo_name(part.repo)
        if part.quiet:
            return self._sentence("report.family.quiet", repo=name)
        t = part.totals
        return self._sentence(
            "report.family.repo_line",
            repo=name,
            prs=self._count("prs", t.prs),
            additions=f"{t.additions:,}",
            deletions=f"{t.deletions:,}",
            files=self._count("files", t.files),
            contributors=self._count("contributors", t.contributors),
            risks=self._count("risks", t.risks),
        )

    def _count(self, what: str, count: int) -> str:
        """`13 PRs`, `1 PR`: a count with its noun, in the report's language."""
        return self.tr.t(f"report.family.{what}_count", count=count)

    def repo_top(self, part: RepoPart) -> str:
        return self.tr.t("report.family.top", prs=self.pr_links([p.key for p in part.top]))

    def repo_risks(self, part: RepoPart) -> str:
        """The repository's risk findings by severity and the PRs they are on ("" if none)."""
        index = self.digest.repo_names.index(part.repo)
        mine = [r for r in leaf_risks(self.digest.risks) if split_key(r.prs[0])[0] == index]
        if not mine:
            return ""
        count = {s: sum(1 for r in mine if r.severity is s) for s in Severity}
        prs = list(dict.fromkeys(n for r in mine for n in r.prs))
        return self.tr.t(
            "report.family.risks",
            count=len(mine),
            high=count[Severity.HIGH],
            medium=count[Severity.MEDIUM],
            low=count[Severity.LOW],
            prs=self.pr_list(prs[:RISK_PRS], len(prs)),
        )

    def crossing(self, c: Crossing) -> str:
        """One tie between repositories, its PRs linked to their own repository."""
        kind = c.kind
        if kind == "moved":
            kind = "moved_week" if c.week else "moved" if c.prs else "moved_none"
        elif kind == "names" and not c.prs:
            kind = "names_none"
        return self.tr.t(
            f"report.family.{kind}",
            pr=self.titled(c.pr),
            repo=self.repo_name(c.repo),
            prs=self.sep.join(self.titled(n) for n in c.prs),
            week=c.week,
        )

    def repo_trend(self, part: RepoPart) -> str:
        """The repository's line in the trends: its PRs and its share of the family's."""
        name = self.repo_name(part.repo)
        if part.quiet:
            return self.tr.t("report.family.trend_quiet", repo=name)
        total = max(self.digest.stats.prs, 1)
        share = round(PERCENT * part.totals.prs / total)
        prs = self._count("prs", part.totals.prs)
        return self.tr.t("report.family.trend_line", repo=name, prs=prs, share=share)
