"""Score factors: the one home of their wording (`factor.<name>` in the catalogs; an old
digest's factor the catalog does not know keeps its recorded reason)."""

from __future__ import annotations

from service.core.models import Factor, ScoredPR
from service.core.ranking import ranked_factors
from service.render.environment import signed
from service.render.speaking.voice import Voice

FACTOR_KEY = "factor.{name}"


class ScoreWords(Voice):
    """Why a PR scored what it did."""

    def _factor_key(self, factor: Factor) -> str | None:
        key = FACTOR_KEY.format(name=factor.name)
        return key if self.tr.has(key) else None

    def factor_text(self, factor: Factor) -> str:
        """A factor's reason in a report: its sentence with PRs linked and names as code."""
        key = self._factor_key(factor)
        return self.fill(key, factor.params) if key else self.text(factor.reason)

    def factor_reason(self, factor: Factor) -> str:
        """A factor's reason in a chat answer or card: its sentence, nothing linked."""
        key = self._factor_key(factor)
        return self.plain(key, factor.params) if key else self.target.escape(factor.reason)

    def factors(self, pr: ScoredPR) -> str:
        """The PR's non-zero factors, largest first, each with its signed points."""
        items = (
            self.tr.t("report.top.factor", reason=self.factor_text(f), points=signed(f.points))
            for f in ranked_factors(pr)
        )
        return self.sep.join(items)
