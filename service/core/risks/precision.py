"""Precision and dtype changes in core code: numerics that may shift convergence silently.

Rule ``dtype_change``: added lines of core-path files (tests excluded) that mention fp16,
float16, bf16, bfloat16, fp8, float8, autocast, GradScaler, mixed precision, precision-aware
(optimizers) or param_dtype.
Severity: medium when 3 or more such lines are added or the title itself is about precision
(the PR is about numerics); low for one or two mentions in passing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from service.core.models import PullRequest, Risk, RiskKind, Severity
from service.core.risks.base import Context, RuleSet, evidence, iter_added, make_risk

TERMS = re.compile(
    r"(?<![A-Za-z])(?:Sharded)?(fp16|float16|bf16|bfloat16|fp8|float8|autocast|GradScaler|"
    r"mixed[_ ]precision|precision[_ ]aware|param_dtype)",
    re.IGNORECASE,
)
MEDIUM_LINES = 3


def _core_code(path: str, context: Context) -> bool:
    return context.profile.is_core(path) and not context.profile.is_test(path)


def _canonical(term: str) -> str:
    lowered = term.lower().replace(" ", "_")
    return "GradScaler" if lowered == "gradscaler" else lowered


def dtype_change(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """Core lines that touch precision or dtype."""
    found = []
    terms: list[str] = []
    for change, line in iter_added(pr, lambda path: _core_code(path, context)):
        mentioned = [_canonical(m.group(1)) for m in TERMS.finditer(line.text)]
        if mentioned:
            found.append(evidence(change.path, line.number, line.text))
            terms.extend(t for t in mentioned if t not in terms)
    if not found:
        return
    about_precision = TERMS.search(pr.title) is not None
    severity = Severity.MEDIUM if about_precision or len(found) >= MEDIUM_LINES else Severity.LOW
    yield make_risk(
        RiskKind.PRECISION,
        "dtype_change",
        severity,
        [pr.number],
        found,
        terms=", ".join(terms),
        count=len(found),
        path=found[0].path or "",
    )


DETECTOR = RuleSet(RiskKind.PRECISION, (dtype_change,))
