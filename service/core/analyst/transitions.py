"""A change told the wrong way round: "lowers the timeout from 30 to 25 minutes" of a PR whose
title says "from 25 to 30" and whose diff sets `timeout-minutes: 25` → `30`. Each "from A to
B" (从 A 改为 B, A → B) of a sentence is looked up among the cited PRs' own transitions (the
"from … to …" of their title and body, and the old and new values of each setting their diff
changes): a sentence whose A → B is only there as B → A is dropped. A version told as what a PR
upgrades to that is only on its removed lines, and a pin placed in a file that does not hold
it, are dropped too."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from service.core.analyst.evidence import PeriodEvidence, PREvidence

_VALUE = r"`?(?P<{0}>[A-Za-z0-9][\w.\-]*?)`?"
_FROM_TO = re.compile(
    r"(?:\bfrom\b|由|从)\s*"
    + _VALUE.format("old")
    + r"\s*(?:[a-z%]+\s+)?(?:\bto\b|改为|改成|调整为|提高到|降低到|降到|升到|到|至|→|->)\s*"
    + _VALUE.format("new")
    + r"(?![\w.])",
    re.IGNORECASE,
)


# "now costs 2 RPCs instead of 1" (1 → 2), "改为 2 次而不是 1 次"
_INSTEAD = re.compile(
    r"(?P<new>\d+(?:\.\d+)*)\s*(?:[A-Za-z%]+\s+|[次个]\s*)?(?:\binstead of\b|而不是|而非)\s*"
    r"(?P<old>\d+(?:\.\d+)*)(?!\w|\.\d)",
    re.IGNORECASE,
)
# a PR's own "before (2 RPCs per acquire) … after (1 RPC)"
_BEFORE_AFTER = re.compile(
    r"\bbefore\W{0,3}(?P<old>\d+(?:\.\d+)*)\b[^\n]{0,60}?\bafter\W{0,3}(?P<new>\d+(?:\.\d+)*)\b",
    re.IGNORECASE,
)


def _pairs(
    text: str, patterns: Sequence[re.Pattern[str]] = (_FROM_TO, _INSTEAD)
) -> Iterator[tuple[str, str]]:
    for pattern in patterns:
        for found in pattern.finditer(text):
            yield found["old"].lower(), found["new"].lower()


def _pr_pairs(e: PREvidence) -> set[tuple[str, str]]:
    """The transitions a PR shows: in its own words, and each changed setting's values."""
    out = set(_pairs(e.text, (_FROM_TO, _BEFORE_AFTER)))
    for old, new in e.settings.values():
        out |= {(o.split()[0], n.split()[0]) for o in old for n in new if o and n}
    return out


def reversed_reasons(text: str, cited: Sequence[int], evidence: PeriodEvidence) -> list[str]:
    """Each "from A to B" of `text` that the cited PRs show only as B → A."""
    said = list(dict.fromkeys(p for p in _pairs(text) if p[0] != p[1]))
    if not said:
        return []
    prs = [e for e in (evidence.pr(n) for n in cited) if e is not None]
    shown = set().union(*(_pr_pairs(e) for e in prs)) if prs else set()
    return [
        f"direction: the data changes {new} → {old}, the sentence says {old} → {new}"
        for old, new in said
        if (new, old) in shown and (old, new) not in shown
    ]


_PIN = re.compile(r"(?<![\w.\-])[A-Za-z][\w.\-]*\s*(?:==|>=|<=|~=)\s*[\w.\-]*\w")
# "pins X==1.2 in setup.py", "X==1.2 写入 `setup.py`": the pin placed in a file
_PIN_IN = re.compile(
    rf"(?P<pin>{_PIN.pattern})`?\s*(?:\bin(?:to)?\b|写入|在)\s*`?"
    r"(?P<file>[\w.\-/]+\.(?:py|toml|txt|cfg|ya?ml|sh|md|json))\b",
    re.IGNORECASE,
)


def _file_lines(evidence: PeriodEvidence, number: int) -> dict[str, str]:
    pr = evidence.collected.get(number)
    return {c.path.lower(): (c.patch or "").lower() for c in pr.files} if pr else {}


def pin_file_reasons(text: str, cited: Sequence[int], evidence: PeriodEvidence) -> list[str]:
    """A version pin said to be in a named file ("pins X==1.2 in setup.py") must be on that
    file's changed lines when the PR changes the file and pins X==1.2 elsewhere."""
    placed = [
        (re.sub(r"\s+", "", m["pin"].lower()), m["file"].lower()) for m in _PIN_IN.finditer(text)
    ]
    reasons = []
    for number in cited if placed else ():
        files = _file_lines(evidence, number)
        for pin, name in placed:
            named = {p: t for p, t in files.items() if p == name or p.endswith("/" + name)}
            if not named:
                continue
            elsewhere = [p for p, t in files.items() if pin in t and p not in named]
            if elsewhere and not any(pin in t for t in named.values()):
                reasons.append(
                    f"wrong file: #{number} has {pin} in {', '.join(sorted(elsewhere))}, "
                    f"not in {name}"
                )
    return reasons


# "升级到 1.3.0rc13", "bumps trtllm to 1.3.0rc14", "upgrades vLLM to 0.11.0"
_UPGRADE_TO = re.compile(
    r"(?:升级到|升级至|升到|更新到|更新至|\b(?:upgrades?|upgraded|bumps?|bumped|updates?|updated)\b"
    r"[^,，。;；]{0,40}?\bto\b)\s*v?(?P<version>\d+(?:\.\d+)+[\w.\-]*\w|\d+[\w.\-]*\d)",
    re.IGNORECASE,
)


# "pins CI to veomni==0.1.9a1", "依赖固定为 TransferQueue==0.1.6": the version a pin now holds
_PINNED_TO = re.compile(
    r"(?:\bpin(?:s|ned)?\b[^,，。;；]{0,40}?\bto\b|固定为|固定到|锁定为|锁定到|钉在)\s*`?"
    r"(?:[A-Za-z][\w.\-]*\s*==\s*)?v?(?P<version>\d+(?:\.\d+)+[\w.\-]*\w|\d+[\w.\-]*\d)",
    re.IGNORECASE,
)


# "where it was pinned to 0.1.6", "原先固定为 0.1.6": the pin before the change
_PAST = re.compile(
    r"(?:\b(?:was|were|had(?: been)?|previously|formerly)|原先|原来|此前|之前|曾)\s*$", re.I
)


def upgrade_reasons(text: str, cited: Sequence[int], evidence: PeriodEvidence) -> list[str]:
    """A version told as what a PR upgrades or pins to must be on its added side: one found only
    on removed lines is the version it upgrades from."""
    prs = [e for e in (evidence.pr(n) for n in cited) if e is not None and e.changed[1]]
    reasons = []
    pinned = [m for m in _PINNED_TO.finditer(text) if not _PAST.search(text, 0, m.start())]
    for said in [*_UPGRADE_TO.finditer(text), *pinned]:
        version = said["version"].lower()
        pattern = re.compile(rf"(?<![\w.]){re.escape(version)}(?![\w])")
        old = [e for e in prs if pattern.search(e.removed)]
        if old and not any(pattern.search(e.added) for e in prs):
            numbers = ", ".join(f"#{e.number}" for e in old)
            reasons.append(
                f"old version told as new: {version} is only on removed lines of {numbers}"
            )
    return reasons
