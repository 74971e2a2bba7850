"""Numbers a PR's own words close: "Fixes #6278", "closes #12", "Resolves: #40". The number is
an issue (or a PR of another week) the PR says it fixes; a sentence about that PR may name it
("…, fixing #6278") though no PR of the week has it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.core.analyst.evidence import PREvidence
from service.core.scope import pr_key, split_key

_CLOSES = re.compile(r"\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?)\b\s*:?\s*#(\d{1,7})\b", re.I)


def closed_by(cited: Sequence[PREvidence]) -> set[int]:
    """The keys of the numbers the cited PRs' words say they fix or close (a number in the text
    of a family's other repository is that repository's)."""
    out: set[int] = set()
    for e in cited:
        index, _number = split_key(e.number)
        out |= {pr_key(index, int(m)) for m in _CLOSES.findall(e.text)}
    return out
