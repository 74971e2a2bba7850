"""Names of the week's groupings (categories, change types) and what GitHub did not give."""

from __future__ import annotations

from service.render.speaking.voice import Voice


class TrendWords(Voice):
    """Categories and change types by their names in the language, with counts."""

    def category(self, name: str) -> str:
        return self.label("category", name)

    def types_in(self, category: str) -> str:
        """The change types of a category's PRs with their counts (`新功能 1、修复 1`)."""
        counts: dict[str, int] = {}
        for pr in self.digest.prs:
            if pr.category == category:
                counts[pr.change_type] = counts.get(pr.change_type, 0) + 1
        items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        return self.sep.join(
            self.tr.t("report.trends.type_count", name=self.change_type(k), count=v)
            for k, v in items
        )

    def unknown(self) -> str:
        """The facts GitHub did not give this week, in one list ('' when it gave them all)."""
        return self.and_join([self.tr.t(f"report.unknown.{fact}") for fact in self.digest.unknown])
