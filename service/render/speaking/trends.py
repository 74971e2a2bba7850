"""Names of the week's groupings (categories, change types) and what GitHub did not give."""

from __future__ import annotations

from service.core.models import TrendBucket
from service.render.speaking.voice import Voice

# a bucket line with the change from the previous week: the key with this suffix
VERSUS = "_vs"


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

    def bucket_line(self, bucket: TrendBucket, key: str, *, named: str = "") -> str:
        """`name: n PRs` (`key`), with the change from the previous week when it is known
        (`key` + `_vs`); `named`: the group whose catalog names the bucket (`type`)."""
        label = f"report.{named}.{bucket.key}"
        name = self.tr.t(label) if named and self.tr.has(label) else bucket.key
        params = {"module": self.target.escape(name), "count": bucket.count}
        if bucket.delta is None:
            return self.tr.t(key, **params)
        delta = f"{bucket.delta:+d}" if bucket.delta else "±0"
        return self.tr.t(key + VERSUS, delta=delta, **params)

    def unknown(self) -> str:
        """The facts GitHub did not give this week, in one list ('' when it gave them all)."""
        return self.and_join([self.tr.t(f"report.unknown.{fact}") for fact in self.digest.unknown])
