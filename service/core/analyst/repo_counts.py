"""Counts of one repository of a family: "verl 34 个、verl-omni 8 个", "43 in verl, 17 in
verl-omni", "five of the 17 verl-omni PRs". A figure with a repository's short name right
beside it counts that repository's PRs of the week, and an author's part of them is the
author's PRs in it (the family's figures are the checker's own counts, not the request's)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.core.analyst import claims
from service.core.analyst.evidence import PeriodEvidence
from service.core.scope import short_name, split_key


def _name(name: str) -> str:
    """A repository's short name as a whole word (`verl` is not the start of `verl-omni`)."""
    return rf"(?<![\w/#-]){re.escape(name)}(?![\w-]|#)"


def _before(name: str) -> re.Pattern[str]:
    """ "verl 34 个", "verl-omni 本周 8 个 PR", "verl: 34": the name, then the figure."""
    return re.compile(
        _name(name) + r"\s*(?:仓库|repository|repo)?\s*(?:本周|this week)?\s*"
        r"(?:有|共|合入了?|合并了?|merged|had|has|with|:|：|\(|（)?\s*$",
        re.IGNORECASE,
    )


def _after(name: str) -> re.Pattern[str]:
    """ "43 in verl", "17 verl-omni PRs", "8 个来自 verl-omni": the figure, then the name."""
    return re.compile(
        r"\s*(?:个|项)?\s*(?:PRs?\b|pull requests?\b|合并请求)?\s*"
        r"(?:(?:in|from|for|to|of)\s+(?:the\s+)?|来自|在)?\s*" + _name(name),
        re.IGNORECASE,
    )


def week_prs(repos: Sequence[str], evidence: PeriodEvidence) -> dict[str, list[int]]:
    """Each repository's short name (lower case) → the keys of its PRs of the week."""
    names = [short_name(r).lower() for r in repos]
    out: dict[str, list[int]] = {n: [] for n in names}
    for key in evidence.scored:
        index, _number = split_key(key)
        if index < len(names):
            out[names[index]].append(key)
    return out


def _beside(figure: str, text: str, names: Sequence[str]) -> set[str]:
    """The repositories named right beside a place of `figure` in `text`."""
    out: set[str] = set()
    for said in re.finditer(rf"(?<![\w.#]){re.escape(figure)}(?![\d.])", text):
        for name in names:
            if _before(name).search(text, 0, said.start()) or _after(name).match(text, said.end()):
                out.add(name)
    return out


def repo_count(
    figure: claims.Figure, text: str, repos: Sequence[str], evidence: PeriodEvidence
) -> bool:
    """`figure` is the count of the week's PRs of a repository named right beside it."""
    if len(repos) < 2:  # noqa: PLR2004 - a single repository's count is the week's
        return False
    counts = week_prs(repos, evidence)
    named = _beside(figure.text, text, list(counts))
    return any(str(len(counts[n])) in figure.values for n in named)


def named_repos(text: str, repos: Sequence[str]) -> list[str]:
    """The short names (lower case) of the family's repositories `text` names."""
    names = [short_name(r).lower() for r in repos] if len(repos) > 1 else []
    return [n for n in names if re.search(_name(n), text, re.IGNORECASE)]


def author_counts(
    text: str, logins: set[str], repos: Sequence[str], evidence: PeriodEvidence
) -> set[str]:
    """How many PRs each author of `logins` wrote in each repository `text` names."""
    counts = week_prs(repos, evidence)
    out: set[str] = set()
    for name in named_repos(text, repos):
        for login in logins:
            wrote = [k for k in counts[name] if (evidence.scored[k].author or "").lower() == login]
            out.add(str(len(wrote)))
    return out
