"""Acts a sentence says someone performed on a PR, which only the PR's own words can ground: a
verdict of its maintainers or reviewers ("maintainers judged it risk-free", "维护者已确认"),
testing or validation told as done ("testing has been completed", "已完成…验证"), and a
promise that users need not migrate ("no migration plan is needed", "向后兼容…无需迁移").

A verdict needs a review on record; testing told as done needs a line of the PR's body that
tells a test run, and none that says the test the sentence names was not run or is pending; a
promise of no migration needs the PR to say so itself, and never stands for a PR the data
flags as breaking or as needing a migration. Advice ("confirm it stays backward compatible")
claims no act and is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.core.analyst.evidence import PREvidence

_VERDICT = re.compile(
    r"\b(?:maintainers?|reviewers?|the\s+team|core\s+team)\s+(?:have\s+|has\s+|had\s+)?"
    r"(?:judged|deemed|confirmed|verified|validated|approved|signed\s+off|considered|agreed)\b"
    r"|(?:维护者|维护人员|评审者|评审人|审阅者|团队)(?:已经?|均|一致)?(?:确认|认定|认为|判断|批准|认可|同意)",
    re.IGNORECASE,
)
_TESTED = re.compile(
    r"\btesting\b[^.;]{0,60}?\b(?:has\s+been|have\s+been|was|were|is|are)\s+"
    r"(?:fully\s+|successfully\s+)?(?:completed|done|finished)\b"
    r"|\b(?:has|have)\s+been\s+(?:fully\s+|successfully\s+)?(?:tested|validated|verified)\b"
    r"|\b(?:was|were)\s+(?:fully\s+|successfully\s+)?(?:tested|validated|verified)\b"
    r"|\bauthors?\s+(?:reports?|says?|notes?|states?)\s+that\b[^.;]{0,60}?"
    r"\b(?:tested|testing|validated|verified|passed)\b"
    r"|(?:已|已经)[^。，；]{0,30}?完成[^。，；]{0,30}?(?:验证|测试)"
    r"|(?:验证|测试)(?:已|已经)?(?:全部)?(?:通过|完成)",
    re.IGNORECASE,
)
_NO_MIGRATION = re.compile(
    r"\bbackwards?[- ]compatible\b|\brisk[- ]free\b|\bzero\s+risk\b"
    r"|\bno\s+migration\b(?:\s+\w+){0,2}?\s+(?:is\s+|are\s+)?(?:needed|required|necessary)\b"
    r"|\bwithout\s+(?:any\s+)?migration\b|\bupgrade\s+(?:directly|as[- ]is)\b"
    r"|向后兼容|无需(?:任何)?迁移|不需要(?:任何)?迁移|直接升级|无(?:任何)?风险",
    re.IGNORECASE,
)
# advice before the claim: "confirm that … stays backward compatible", "建议确认…无需迁移"
_ADVICE = re.compile(
    r"\b(?:confirm|verify|check|ensure|whether|make\s+sure|validate)\b"
    r"|建议|是否|核对|检查|(?<!已)(?<!已经)确认",
    re.IGNORECASE,
)
_TEST_WORD = re.compile(
    r"\btest(?:s|ed|ing)?\b|\bverif(?:y|ied|ication)\b|\bvalidat(?:e|ed|ion)\b|\bpass(?:ed|es)?\b"
    r"|\bbenchmark|\be2e\b|\bend[- ]to[- ]end\b|\bran\b|\bruns?\b|测试|验证|跑通|运行",
    re.IGNORECASE,
)
_NOT_DONE = re.compile(
    r"\b(?:not|never|in\s+progress|will\s+be|pending|todo|tbd|yet|soon|unable|cannot|skipped)\b"
    r"|n't\b|未|尚未|没有|待|无法",
    re.IGNORECASE,
)
# what a PR says of itself that grounds a promise of no migration
_COMPATIBLE_SAID = re.compile(
    r"backwards?[- ]compatible|backward[- ]compatibility|non[- ]breaking|no\s+migration"
    r"|no\s+(?:api|config(?:uration)?|user[- ]facing)\s+(?:or\s+\w+\s+)?change|向后兼容|无需迁移",
    re.IGNORECASE,
)
_NAME = re.compile(r"[A-Za-z][\w.+-]*[A-Za-z0-9]")
_MIGRATION_RISKS = frozenset({"breaking", "migration"})


def _claimed(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The first act `pattern` finds in `text` that no advice word before it turns into a
    recommendation."""
    for found in pattern.finditer(text):
        if not _ADVICE.search(text[: found.start()]):
            return found
    return None


def _names(text: str) -> set[str]:
    return {n.lower() for n in _NAME.findall(text) if len(n) > 2}  # noqa: PLR2004


# a line's clauses: "tested convergence, it hasn't included perf optimizations" tells a test
# run and something else not done
_CLAUSE_END = re.compile(r"[,;:，；：。]|\bbut\b|\bhowever\b|但|不过", re.IGNORECASE)


def _test_clauses(prs: Sequence[PREvidence]) -> list[str]:
    clauses = (c for e in prs for line in e.body for c in _CLAUSE_END.split(line))
    return [c for c in clauses if _TEST_WORD.search(c)]


def tested_reasons(text: str, prs: Sequence[PREvidence]) -> list[str]:
    """Testing told as done: a body line must tell a test run, and no body line that names
    what the sentence names may say that test was not run or is still pending."""
    found = _claimed(_TESTED, text)
    if found is None or not prs:
        return []
    lines = _test_clauses(prs)
    named = _names(text)
    pending = [line for line in lines if _NOT_DONE.search(line)]
    if any(named & _names(line) for line in pending):
        return [f"attested: {found.group(0)[:40]} (the PR's body says it was not run)"]
    if len(pending) == len(lines):
        return [f"attested: {found.group(0)[:40]} (the PR's body tells no test run)"]
    return []


def verdict_reasons(text: str, prs: Sequence[PREvidence]) -> list[str]:
    """A verdict put in maintainers' or reviewers' mouths needs a review on record."""
    found = _claimed(_VERDICT, text)
    if found is None or any(e.reviewed or e.approved for e in prs):
        return []
    return [f"attested: {found.group(0)[:40]} (no review on record)"]


def no_migration_reasons(text: str, prs: Sequence[PREvidence]) -> list[str]:
    """A promise that users need not migrate: never for a PR flagged breaking or needing a
    migration, and only when the PR says so itself."""
    found = _claimed(_NO_MIGRATION, text)
    if found is None or not prs:
        return []
    claim = found.group(0)[:40]
    if any(e.breaking or e.risks & _MIGRATION_RISKS for e in prs):
        return [f"attested: {claim} (the data flags a breaking or migration risk)"]
    if not any(_COMPATIBLE_SAID.search(e.text) for e in prs):
        return [f"attested: {claim} (no cited PR says so)"]
    return []


# a judgement that a change is fit for production: advice to use it so directly judges it too
_READY = re.compile(
    r"\bproduction[- ]ready\b|\bready for production\b|\bdirectly in production\b"
    r"|(?:直接|即可|可)(?:用于|投入|上)生产|生产就绪",
    re.IGNORECASE,
)
_READY_SAID = re.compile(
    r"production[- ]ready|ready for production|production (?:use|training|workloads?)",
    re.IGNORECASE,
)


def ready_reasons(text: str, prs: Sequence[PREvidence]) -> list[str]:
    """A change judged fit for production (told, or advised as "直接用于生产训练") needs a
    cited PR to say so itself."""
    found = _READY.search(text)
    if found is None or not prs or any(_READY_SAID.search(e.text) for e in prs):
        return []
    return [f"attested: {found.group(0)[:40]} (no cited PR says it is fit for production)"]


def attested_reasons(text: str, prs: Sequence[PREvidence]) -> list[str]:
    """Every act `text` tells of the cited PRs `prs` that their own words do not ground."""
    reasons = verdict_reasons(text, prs) + ready_reasons(text, prs)
    reasons += tested_reasons(text, prs)
    return reasons + no_migration_reasons(text, prs)
