"""A value told of the wrong file: a sentence that names one of its PRs' files and, in the
same clause, a version or a setting's value (`#363 在 Dockerfile.cuda 中把 torch-npu 升级到
2.10.0.post2`, "gpu_smoke.yml has a 10-minute timeout") must find that value on the changed
lines of the file it names. When the cited PRs change it in other
files only (the NPU Dockerfiles), the sentence moved it to the wrong file. A version no changed
line holds is left to the figure rules; a clause naming no file of the PRs is not judged. A
value told as one the file keeps ("仍为 0.14.1", "still") may stand on its unchanged lines.

Also by file: a line count said of a named file is its added (or removed) lines ("新增 163 行的
env_metadata.py"); a name told as added to a file ("adds CLAUDE.md to .gitignore") is on that
file's added lines; and a setting written as code (`clip_ratio=2e-6`) is set so on a line of
the cited PRs, not the value of another key; a key told as changed "from A to B" is on a
changed line, not only on unchanged ones.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.core.analyst import claims
from service.core.analyst.evidence import PREvidence
from service.core.analyst.glossary import glossary
from service.core.analyst.grounding import found_in

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


# a value told as one the file keeps ("still", "仍为"), not as one the PR changes
_STAYS = re.compile(
    r"\b(?:still|remains?|stays?|unchanged|keeps?)\b|仍|依然|依旧|保持|未变|不变", re.IGNORECASE
)


def _files_keeping(version: str, prs: Sequence[PREvidence]) -> set[str]:
    """The paths whose unchanged lines hold `version` as a whole token."""
    pattern = re.compile(rf"(?<![\w.]){re.escape(version.lower())}(?![\w]|\.\d)")
    return {
        path
        for pr in prs
        for path, lines in pr.unchanged
        if any(pattern.search(line.lower()) for line in lines)
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
        stays = bool(_STAYS.search(clause))
        for version in dict.fromkeys(values):
            holding = _files_holding(version, prs)
            if stays and _files_keeping(version, prs) & named:
                continue  # "Dockerfile.cuda 中 KERNELS_VERSION 仍为 0.14.1": an unchanged line
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


# "新增 163 行的 env_metadata.py", "adds 484 lines in limited.py": a count of a file's lines
_LINE_COUNT = re.compile(r"(?<![\w.#])(\d+)\s*(?=行|lines?\b)", re.IGNORECASE)
_REMOVED_WORD = re.compile(r"删除|删去|移除|删掉|\b(?:remov|delet|drop)\w*", re.IGNORECASE)


def line_counts(
    text: str, prs: Sequence[PREvidence], sizes: dict[str, tuple[int, int]]
) -> set[str]:
    """The line counts a clause states that are the added lines (the removed ones, when the
    clause tells a removal) of a file of the cited PRs it names; `sizes` is each changed
    file's (additions, deletions) by path."""
    out = set()
    for clause in _CLAUSE.split(text):
        counts = _LINE_COUNT.findall(clause)
        named = _named_files(clause, prs) if counts else set()
        side = 1 if _REMOVED_WORD.search(clause) else 0
        held = {str(sizes[path][side]) for path in named if path in sizes}
        out |= {count for count in counts if count in held}
    return out


# "adds CLAUDE.md to .gitignore", "把 hf_transfer 加入 requirements.txt": a line told as added
# to a file
_ADDED_TO = re.compile(
    r"\b(?:adds?|added|adding)\s+`?(?P<what>[\w.\-/]+)`?\s+(?:to|into)\s+`?(?P<file>[\w.\-/]+)`?"
    r"|(?:把|将)\s*`?(?P<zwhat>[\w.\-/]+)`?\s*(?:加入|添加到|加到|写入|添加进)\s*`?(?P<zfile>[\w.\-/]+)`?",
    re.IGNORECASE,
)
_CODE_SPELLED = re.compile(r"[._/]|[a-z][A-Z]|[A-Za-z]\d|^[A-Z0-9_]{3,}$")


def _holds(what: str, lines: Sequence[str]) -> bool:
    """Whether added `lines` hold `what`: as written, or a dotted key (`mtp.enable`) as the
    nested keys YAML writes it (`mtp:` then `enable: False`)."""
    low = what.lower()
    if any(low in line.lower() for line in lines):
        return True
    parts = low.split(".")
    keys = [re.compile(rf"^\s*{re.escape(part)}\s*:") for part in parts]
    return len(parts) > 1 and all(any(k.match(line.lower()) for line in lines) for k in keys)


def added_to_reasons(text: str, prs: Sequence[PREvidence]) -> list[str]:
    """A name told as added to a file of the cited PRs must be on that file's added lines
    (a description may list what the merged patch does not do)."""
    reasons = []
    for said in _ADDED_TO.finditer(text):
        what = (said["what"] or said["zwhat"]).rstrip(".")
        name = (said["file"] or said["zfile"]).rstrip(".").rsplit("/", 1)[-1]
        if not _CODE_SPELLED.search(what) or len(name) < MIN_FILE_NAME:
            continue
        files = [
            (path, new)
            for pr in prs
            for path, _, new in pr.files
            if path.lower().rsplit("/", 1)[-1] == name.lower()
        ]
        if files and not _holds(what, [line for _, new in files for line in new]):
            reasons.append(f"added to file: no added line of {name} holds {what}")
    return reasons


# a file a clause tells the PR to change: "在 README News 中加入 …", "adds a News entry to the
# README", "updates docs/index.md"; a file name with a suffix, or one of the suffix-less names a
# repository's root holds
_FILE = (
    r"`?(?P<file>(?:[\w.\-]+/)*(?:[\w\-]+\.[A-Za-z]{1,5}|README|CHANGELOG|Dockerfile|Makefile))`?"
)
_CHANGED_IN = re.compile(
    r"(?:在|于)\s*"
    + _FILE
    + r"[^，。,;；]{0,16}?(?:中|里)\s*(?:加入|新增|添加|写入|增加|补充|更新|修改)"
    r"|\b(?:adds?|added|adding|updates?|updated|updating)\b[^,.;]{0,60}?\b(?:to|in|into)\s+"
    r"(?:the\s+)?" + _FILE.replace("file>", "efile>"),
    re.IGNORECASE,
)


_USER_MAY = re.compile(r"(?:可|能)\s*$|\b(?:can|could|may)\s+$", re.IGNORECASE)


def _stem(path: str) -> str:
    return path.lower().rsplit("/", 1)[-1].split(".", 1)[0]


def untouched_file_reasons(text: str, prs: Sequence[PREvidence]) -> list[str]:
    """A file a clause tells the cited PRs to change must be one of theirs: a squash merge's body
    lists its commits, and a commit's change may be gone from the merged diff."""
    reasons = []
    paths = [path for pr in prs for path, _, _ in pr.files] + [
        p for pr in prs for p, _ in pr.statuses
    ]
    if not paths:
        return []
    for said in _CHANGED_IN.finditer(text):
        clause = _CLAUSE.split(text[: said.start()])[-1]
        if glossary().word("modal").search(clause) or _USER_MAY.search(clause):
            continue  # "可在 run.sh 中加入 …": what a user may do, not what the PR did
        named = said["file"] or said["efile"]
        low = named.lower().strip("`")
        whole = "." in low.rsplit("/", 1)[-1]
        if not any(path.lower().endswith(low) if whole else _stem(path) == low for path in paths):
            reasons.append(f"untouched file: no cited PR changes {named}")
    return reasons


# `clip_ratio=2e-6`, `actor.optim.lr=3e-4` written in a sentence: a literal setting
_ASSIGNED = re.compile(r"(?<![\w.=])(?P<key>[A-Za-z_][\w.\-]*)=(?P<value>[\w.\-+/]+)")


def assigned_reasons(text: str, prs: Sequence[PREvidence]) -> list[str]:
    """A setting written as code (`key=value`) must be set so on a line of the cited PRs
    (changed, unchanged or in the body): the value of another key is not this key's."""
    reasons = []
    lines = "\n".join(
        f"{e.added}\n{e.removed}\n{e.context}\n{e.text}\n" + "\n".join(e.body) for e in prs
    ).lower()
    for said in _ASSIGNED.finditer(text):
        key = said["key"].rsplit(".", 1)[-1].lower()
        value = said["value"].rstrip(".").lower()
        if not prs or not value:
            continue
        pattern = (
            rf"(?<![\w-]){re.escape(key)}['\"]?\s*[=:]\s*['\"]?{re.escape(value)}(?![\w.]|\.\w)"
        )
        if re.search(pattern, lines) is None:
            reasons.append(f"setting {key}={value}: no line of the cited PRs sets it so")
    return reasons


# "raises data.max_prompt_length from 256 to 512", "把 lr 从 1e-5 改为 3e-5": a key told as changed
_CHANGED_FROM = re.compile(
    r"^\W{0,3}(?:\s*(?:from|从|由)\s*`?[\w.\-+]+`?\s*(?:to|→|->|改为|改成|变为|提高到|提高至|降到|降至|调到|调整为|到|至)"
    r"\s*`?[\w.\-+]+)",
    re.IGNORECASE,
)


def unchanged_key_reasons(text: str, prs: Sequence[PREvidence]) -> list[str]:
    """A key told as changed from one value to another must be on a changed line of the cited
    PRs: one only on their unchanged lines (`data.max_prompt_length=512` beside the changed
    `data.max_response_length`) is a key the PR leaves alone, told with another key's values."""
    reasons = []
    for key in dict.fromkeys(claims.identifiers(text)):
        ends = [m.end() for m in re.finditer(re.escape(key), text)]
        if not any(_CHANGED_FROM.match(text[end:]) for end in ends):
            continue
        name = key.strip("`").rsplit(".", 1)[-1].lower()
        if len(name) < MIN_FILE_NAME or not any(found_in(name, e.context) for e in prs):
            continue
        if not any(found_in(name, f"{e.added}\n{e.removed}") for e in prs):
            reasons.append(f"unchanged key {key}: the cited PRs change no line setting it")
    return reasons
