"""Counts per author: "alice merged 3 PRs this week" must be the number of the week's PRs
that author wrote (or of the cited PRs they wrote), whatever other count of the week the
figure happens to equal."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from service.core.analyst import claims
from service.core.analyst.evidence import WeekEvidence

MIN_NAME = 3


def _names(evidence: WeekEvidence) -> dict[str, str]:
    """Each author's login and display name (lower case) → the login."""
    out: dict[str, str] = {}
    for scored in evidence.scored.values():
        if not scored.author:
            continue
        login = scored.author.lower()
        for name in (login, (scored.author_name or "").lower()):
            if len(name) >= MIN_NAME:
                out.setdefault(name, login)
    return out


def author_count_reasons(text: str, cited: Sequence[int], evidence: WeekEvidence) -> list[str]:
    """A count of PRs in a sentence that names an author is that author's count."""
    figures = [f for f in claims.figures(text) if f.kind == "prs"]
    if not figures:
        return []
    lowered = text.lower()
    named = {
        login
        for name, login in _names(evidence).items()
        if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", lowered)
    }
    if not named:
        return []
    week = Counter((s.author or "").lower() for s in evidence.scored.values())
    own = Counter((evidence.scored[n].author or "").lower() for n in cited if n in evidence.scored)
    allowed = {str(week[login]) for login in named} | {
        str(own[login]) for login in named if own[login]
    }
    who = ", ".join(sorted(named))
    wrote = ", ".join(sorted({str(week[a]) for a in named}))
    return [
        f"count {f.text}: {who} wrote {wrote} of the week's PRs"
        for f in figures
        if not f.values & allowed
    ]
