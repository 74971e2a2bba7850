"""A value told of the wrong file: a sentence that names one of its PRs' files and, in the
same clause, a version or a setting's value (`#363 在 Dockerfile.cuda 中把 torch-npu 升级到
2.10.0.post2`, "gpu_smoke.yml has a 10-minute timeout") must find that value on the changed
lines of the file it names. When the cited PRs change it in other
files only (the NPU Dockerfiles), the sentence moved it to the wrong file. A version no changed
line holds is left to the figure rules; a clause naming no file of the PRs is not judged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.core.analyst.evidence import PREvidence

# a clause: what one comma, semicolon or full stop (or "and") holds
_CLAUSE = re.compile(r"[，,。;；]|\.(?=\s|$)|\b(?:and|while|whereas|but)\b|并且|以及|而|但")
# a version: two dotted parts at least, with a suffix (`0.18.0`, `2.10.0.post2`, `1.3.0rc13`)
_VERSION = re.compile(
    r"(?<![\w.])v?(\d+(?:\.\d+)+(?:\.?(?:post|rc|dev|a|b)\d+)?)(?![\w]|\.\d)", re.IGNORECASE
)
# a setting's value: a number of two digits or more that counts no lines, files or PRs
# ("a 10-minute timeout"; not "adds 15 lines", "3 个 PR", "#62")
_SETTING_VALUE = re.compile(
    r"(?<![\w.#])(\d{2,})(?![\w.%％]|\s*(?:lines?|files?|PRs?|additions?|deletions?|"
    r"行|个|处|项|次|位|名))",
    re.IGNORECASE,
)
MIN_FILE_NAME = 5  # a shorter name (`a.py`) is too easily a word


def _named_files(clause: str, prs: Sequence[PREvidence]) -> set[str]:
    """The paths of the cited PRs whose file name the clause says, as a whole token."""
    low = clause.lower()
    out = set()
    for pr in prs:
        for path, _, _ in pr.files:
            name = path.rsplit("/", 1)[-1].lower()
            if len(name) < MIN_FILE_NAME:
                continue
            if re.search(rf"(?<![\w./-]){re.escape(name)}(?![\w/-]|\.\w)", low):
                out.add(path)
    return out


def _files_holding(version: str, prs: Sequence[PREvidence]) -> set[str]:
    """The paths whose changed lines hold `version` as a whole token."""
    pattern = re.compile(rf"(?<![\w.]){re.escape(version.lower())}(?![\w]|\.\d)")
    return {
        path
        for pr in prs
        for path, old, new in pr.files
        if any(pattern.search(line.lower()) for line in (*old, *new))
    }


def file_value_reasons(text: str, prs: Sequence[PREvidence]) -> list[str]:
    """Each version or setting value a clause states beside a file of the cited PRs that it
    names must be on that file's changed lines, when the PRs change it elsewhere."""
    reasons = []
    for clause in _CLAUSE.split(text):
        named = _named_files(clause, prs)
        if not named:
            continue
        values = [m.group(1) for m in _VERSION.finditer(clause)]
        values += [m.group(1) for m in _SETTING_VALUE.finditer(clause)]
        held = {v for v in values if _files_holding(v, prs) & named}
        for version in dict.fromkeys(values):
            holding = _files_holding(version, prs)
            if holding and not holding & named:
                reasons.append(_reason(version, named, holding, bool(held)))
    return reasons


def _reason(version: str, named: set[str], holding: set[str], other_held: bool) -> str:
    """A value on other files' lines only contradicts the file named; but when the file holds
    another value of the clause ("from 0.1.6 to 0.1.7 in requirements.txt", the pin moved there
    from setup.py), the old one may have stood elsewhere: not found, for the verifier."""
    where = ", ".join(sorted(p.rsplit("/", 1)[-1] for p in named))
    elsewhere = ", ".join(sorted(p.rsplit("/", 1)[-1] for p in holding)[:3])
    if other_held:
        return f"file value {version}: not found on changed lines of {where} (on {elsewhere})"
    return f"file value {version}: on changed lines of {elsewhere}, not of {where}"
