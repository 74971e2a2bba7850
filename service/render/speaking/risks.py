"""Risk wording: the rule's (or the kind's) sentences, the evidence cited, the groups a report
and a card list."""

from __future__ import annotations

from typing import Any

from service.core.mentions import RiskGroup, leaf_risks, risk_groups
from service.core.models import Evidence, EvidenceSide, Risk, RiskKind
from service.core.risks import message_keys, message_params
from service.render import escape
from service.render.speaking.voice import Voice

# risk kinds whose items the report spells out per PR, not just as a link and a line
SPELLED_OUT = frozenset({RiskKind.BREAKING, RiskKind.MIGRATION})
# Evidence snippets in the short report are cut to this many characters.
SNIPPET_CHARS = 80


class RiskWords(Voice):
    """What a risk says, where it was found, and how risks are grouped."""

    def risk_text(self, risk: Risk, field: str) -> str:
        """Risk wording: the first of core's `message_keys` the catalog has (rule, then kind;
        a roll-up's summary is its `rollup` sentence)."""
        keys = message_keys(risk, field)
        key = self._bare(next((k for k in keys if self.tr.has(k)), keys[-1]), risk)
        raw: dict[str, Any] = {"prs": list(risk.prs), **risk.params}
        if risk.prs:
            raw.setdefault("pr", risk.prs[0])
        return self.fill(key, raw)

    def risk_line(self, risk: Risk, field: str, fallback: str | None = None) -> str:
        """A risk's `field` sentence (title, summary, recommendation) for a chat answer or card:
        the rule's wording, else the kind's, else `fallback` (which names the kind)."""
        key = next((k for k in message_keys(risk, field) if self.tr.has(k)), None)
        if key is not None:
            return self.plain(self._bare(key, risk), dict(message_params(risk)))
        if fallback is None:
            raise KeyError(f"no catalog wording for risk {risk.kind}.{risk.rule}.{field}")
        return self.plain(fallback, {"kind": risk.kind.value})

    def _bare(self, key: str, risk: Risk) -> str:
        """`key`, or its `_bare` form when a list the sentence names is empty (GitHub gave the
        check state but not the checks): never "merged before: ." with nothing named."""
        empty = any(v in ("", []) for v in risk.params.values())
        return f"{key}_bare" if empty and self.tr.has(f"{key}_bare") else key

    def pr_risks(self, number: int) -> str:
        """The titles of the risks that name PR `number` (each kind once), or ''."""
        titles = dict.fromkeys(self.risk_text(r, "title") for r in self._risks.get(number, []))
        if not titles:
            return ""
        return self.tr.t("report.top.risks", titles=self.sep.join(titles))

    def risk_summary(self, risk: Risk) -> str:
        """The risk's summary, led by its PR link when the sentence does not name the PR."""
        sentence = self.risk_text(risk, "summary")
        missing = [n for n in risk.prs if self.pr_link(n) not in sentence]
        if not missing:
            return sentence
        return self.tr.t("report.risks.led", prs=self.pr_links(missing), sentence=sentence)

    def evidence(self, ev: Evidence, *, short: bool = False) -> str:
        """`path:line`（删除）`snippet` — where, on which side of the diff, and what."""
        where = f"{ev.path}:{ev.line}" if ev.path and ev.line is not None else ev.path or ""
        if ev.line is None and ev.path and ev.snippet.startswith(ev.path):
            where = ""  # a whole-file snippet (`a.py → b.py`) already names the file
        snippet = escape.truncate(ev.snippet, SNIPPET_CHARS) if short else ev.snippet
        parts = {
            "where": self.code(where) if where else "",
            "snippet": self.code(snippet) if snippet else "",
        }
        if ev.side is None:
            return self.tr.t("report.evidence_plain", **parts).strip()
        side = self.tr.t(f"report.side.{ev.side.value}")
        return self.tr.t("report.evidence", side=side, **parts).strip()

    def lead_evidence(self, risks: list[Risk], *, short: bool = True) -> str:
        """`first_evidence` rendered; a change cited on both sides (a removed line, then the
        added line that replaces it: a moved key, a new default) reads old → new."""
        for risk in risks:
            cited = risk.evidence
            for index, ev in enumerate(cited):
                if not ev.path or ev.line is None:
                    continue
                after = cited[index + 1] if index + 1 < len(cited) else None
                if ev.side == EvidenceSide.REMOVED and after and after.side == EvidenceSide.ADDED:
                    # the sentence names the item (`key: a → b`): the pair cites where, both sides
                    return self._pair(ev, after)
                return self.evidence(ev, short=short)
        first = self.first_evidence(risks)
        named = " ".join(str(r.params.get("names", "")) for r in risks)
        if first is None or (first.line is None and first.snippet and first.snippet in named):
            return ""  # a whole-file item (`a.py → b.py`) the sentence already names
        return self.evidence(first, short=short)

    def _pair(self, old: Evidence, new: Evidence) -> str:
        """`path:61`（删除行）→ `:64`（新增行）: where on both sides; the sentence already names
        the item (`key: a → b`), and a line of the same file needs no second path."""
        before = self.evidence(old.model_copy(update={"snippet": ""}))
        if new.path == old.path and new.side is not None:
            side = self.tr.t(f"report.side.{new.side.value}")
            after = self.tr.t(
                "report.evidence", where=self.code(f":{new.line}"), side=side, snippet=""
            )
        else:
            after = self.evidence(new.model_copy(update={"snippet": ""}))
        return self.tr.t("report.evidence_pair", old=before, new=after.strip())

    def also(self, risk: Risk) -> str:
        """A PR's further item in a spelled-out group (its first item's sentence named the PR
        already): what kind of change, its names, and where."""
        key = f"report.risks.rule.{risk.rule}"
        what = self.tr.t(key) if self.tr.has(key) else self.risk_text(risk, "title")
        names = risk.params.get("names") or risk.params.get("targets") or ""
        sentence = self.fill("report.risks.also", {"what": what, "names": names})
        cited = self.lead_evidence([risk])
        if not cited or cited in sentence:
            return sentence
        return sentence + self.tr.t("report.risks.evidence_inline", evidence=cited)

    def spelled_out(self, group: RiskGroup) -> bool:
        """Whether each PR of a group gets its whole sentence: breaking changes and
        migrations are what users act on (old → new, where the code lives now)."""
        return group.kind in SPELLED_OUT

    def first_evidence(self, risks: list[Risk]) -> Evidence | None:
        """The first piece of evidence that points at a file line, else the first at all."""
        every = [ev for risk in risks for ev in risk.evidence]
        return next((ev for ev in every if ev.path and ev.line is not None), None) or next(
            iter(every), None
        )

    def risk_count(self) -> int:
        """Every PR's own risk, a roll-up's members counted one by one (the stats' sum)."""
        return len(leaf_risks(self.digest.risks))

    def risk_groups(self) -> list[RiskGroup]:
        return risk_groups(self.digest.risks)

    def recommendations(self, group: RiskGroup) -> list[str]:
        """The group's recommendations, each said once (roll-up members mostly share one)."""
        return list(dict.fromkeys(self.risk_text(r, "recommendation") for r in group.risks))

    def group_members(self, group: RiskGroup) -> list[list[Risk]]:
        """A group's risks by PR (a PR's first risk leads), in the group's order."""
        by_pr: dict[tuple[int, ...], list[Risk]] = {}
        for risk in group.risks:
            by_pr.setdefault(tuple(risk.prs), []).append(risk)
        return list(by_pr.values())
