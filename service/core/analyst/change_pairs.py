"""A change told between two figures ("raised PCIe utilization from 10.9% to 34.6%", "从 1.489 秒
降到 379 毫秒"): when the cited PR's words state both figures, they must state the one going to
the other, the first before the second with a change between them ("decreased from 1.489
seconds to 379.444 milliseconds", a Before | After table row), not two figures the PR compares
("10.9%, substantially lower than the 34.6% of the optimizer-state transfer")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.core.analyst.evidence import PREvidence

_NUMBER = r"\d[\d,]*(?:\.\d+)?"
_UNIT = r"\s*(?:%|％|[A-Za-z]{1,12}|[\u4e00-\u9fff]{1,2})?\s*"
_TO = (
    r"\bto\b|→|->|到|至|降到|降至|降低到|降低至|升到|升至|提升到|提升至|提高到|提高至|增加到"
    r"|增加至|减少到|减少至|缩短到|缩短至|变为|改为"
)
# not a count of PRs ("the worker module rising from 0 to 1 PR"): a trend's, which counts.py checks
_FROM_TO = re.compile(
    rf"(?:\bfrom|由|从)\s*(?P<a>{_NUMBER}){_UNIT}(?:{_TO})\s*(?P<b>{_NUMBER})"
    r"(?!\d|[,.]\d)(?!\s*(?:个\s*)?(?:PRs?\b|pull requests?\b|合并请求))",
    re.IGNORECASE,
)
# what stands between a figure and the one it changes to in the PR's words
_CUE = re.compile(r"\bto\b|→|->|=>|\||到|至|变为|改为|降为|升为", re.IGNORECASE)
REACH = 120  # the second figure this close after the first


def _places(figure: str, text: str) -> list[re.Match[str]]:
    return list(re.finditer(rf"(?<![\d.]){re.escape(figure)}(?![\d]|\.\d)", text))


def _told_as_change(a: str, b: str, text: str) -> bool:
    """`a` stands before `b`, close, with a change between them."""
    for first in _places(a, text):
        window = text[first.end() : first.end() + REACH]
        for second in _places(b, window):
            if _CUE.search(window[: second.start()]):
                return True
    return False


def _in_diff(figure: str, e: PREvidence) -> bool:
    return bool(_places(figure, e.added) or _places(figure, e.removed))


def change_reasons(text: str, cited: Sequence[PREvidence]) -> list[str]:
    """Each "from A to B" whose figures a cited PR's words state (and its diff does not: a
    value the code changes is the value rules') is a change those words tell."""
    reasons = []
    for found in _FROM_TO.finditer(text):
        a, b = found["a"], found["b"]
        stating = [
            e
            for e in cited
            if _places(a, e.text) and _places(b, e.text) and not (_in_diff(a, e) or _in_diff(b, e))
        ]
        if stating and not any(_told_as_change(a, b, e.text) for e in stating):
            numbers = ", ".join(f"#{e.number}" for e in stating)
            why = f"{numbers} states {a} and {b}, not one becoming the other"
            reasons.append(f"change: {found.group(0)} ({why})")
    return reasons
