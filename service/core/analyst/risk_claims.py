"""Claims about the risk findings of the cited PRs, checked against their risk facts: how many
findings of a kind ("2 low-severity absolute_path findings"), and what a finding's evidence
line holds ("the finding points at README line 77, which hardcodes /home/x": line 77 must hold
/home/x, not another evidence line of the finding)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.core.analyst.facts import PRFacts, RiskFact

_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
# the count said before a kind: "2 low-severity absolute_path findings", "2 条低严重度的 x 发现"
_COUNT_BEFORE = re.compile(
    r"(?<![#\w])(?P<n>\d+|one|two|three|four|five)\b\s*(?:条|个|项)?\s*(?:[A-Za-z-]+\s+){0,2}"
    r"(?:[\u4e00-\u9fff]{1,6}的\s*)?$",
    re.IGNORECASE,
)
_FINDING_AFTER = re.compile(r"^\s*(?:findings?|risks?|flags?|发现|风险)", re.IGNORECASE)
_LINE = re.compile(r"\bline\s+(?P<n>\d+)\b|第\s*(?P<zh>\d+)\s*行", re.IGNORECASE)
_PATH = re.compile(r"(?<![\w.])/[\w.\-/]+\w")
# a sentence's clause: a line's claim does not reach past it
_CLAUSE_END = re.compile(r"[。;；]|\.(?:\s|$)")


def _findings(prs: Sequence[PRFacts]) -> list[RiskFact]:
    return [r for pr in prs for r in pr.risks]


def count_reasons(text: str, prs: Sequence[PRFacts]) -> list[str]:
    """A count of findings of a kind the cited PRs' risks hold must be their number."""
    findings = _findings(prs)
    reasons = []
    for kind in dict.fromkeys(r.kind for r in findings):
        for named in re.finditer(rf"(?<![\w]){re.escape(kind)}(?![\w])", text):
            said = _COUNT_BEFORE.search(text[: named.start()])
            if said is None or not _FINDING_AFTER.match(text[named.end() :]):
                continue
            raw = said["n"].lower()
            count = int(raw) if raw.isdigit() else _NUMBER_WORDS[raw]
            held = sum(r.kind == kind for r in findings)
            if count != held:
                reasons.append(f"count: {count} {kind} findings (the data holds {held})")
    return reasons


def line_reasons(text: str, prs: Sequence[PRFacts]) -> list[str]:
    """A path the sentence places on a finding's evidence line N must be on that line, not
    only on another evidence line of the finding."""
    reasons = []
    for said in _LINE.finditer(text):
        number = said["n"] or said["zh"]
        end = _CLAUSE_END.search(text, said.end())
        paths = _PATH.findall(text[said.end() : end.start() if end else None])
        for risk in _findings(prs):
            on_line = [e for e in risk.evidence if re.search(rf":{number}\s", e)]
            others = [e for e in risk.evidence if e not in on_line]
            if not on_line:
                continue
            for path in paths:
                if not any(path in e for e in on_line) and any(path in e for e in others):
                    reasons.append(f"risk line {number}: {path} is on another evidence line")
    return list(dict.fromkeys(reasons))
