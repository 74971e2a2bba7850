"""Names checked against what merged, not against what the PR's description says.

A PR's description is written before review; review may rename what it describes. A model
reading a stale description tells the old name as what the PR adds or uses. Two facts of the
merged change, read from its whole patch (added, removed and context lines, hunk headers and
paths) when GitHub gave every changed file's patch:
- renamed before merge: a code-spelled name of the sentence is in a cited PR's description
  but nowhere in any cited PR's merged change, while the merged change spells the same thing
  another way: the same words joined otherwise (`megatron_adaptor` / `MegatronAdaptor`), or
  the same setting under another key path (`a.b.switch` / `a.b.c.switch`), or the same first
  and last words around another middle (`_FP8_MOE_LEAVES` / `_FP8_CANDIDATE_LEAVES`);
- scripts or files told as added by a PR that adds no file and whose title does not say it adds
  one (it changes existing scripts);
- a parameter told as added that takes another's place in the same one-line signature;
- a mode told as added that a removed line of the PR already names;
- a name told as introduced by a PR ("X 是 #N 引入的") that is not on that PR's added side;
- a package told as still working ("imports … keep working") whose `__init__.py` a cited PR
  removes or moves, leaving no changed file in its folder;
- an existing definition told as new: the sentence says a PR adds (新增, introduces, gains) a
  name that a removed line of that PR defines (`def f(`, `class C`, `key:`, `name =`), or, a
  code-spelled name, imports or calls (`from m import f`, `f(x)`): the name was there before
  the PR, which changes or moves it;
- a plan told as merged: the sentence says a PR adds a code-spelled name (no key path) that the
  PR's description names and its whole merged change does not: a squash merge's body lists
  commits and plans whose changes may be gone from what merged.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from service.core.analyst import claims
from service.core.analyst.evidence import PeriodEvidence, PREvidence
from service.core.models import FileStatus

# code-spelled names only: a word with `_`, a `.` between name parts, or inner capitals
_CODE_NAME = re.compile(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*$")
_NAME_CHARS = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*")
_WORD_SPLIT = re.compile(r"[^a-z0-9]+")
MIN_WORDS = 3  # a name of three words or more: its middle tells it apart
MIN_DOTS = 2  # a key path of three parts or more (`trainer.v1.x`) is a setting's full key
# verbs telling a name as the PR's own new thing
_ADD_VERB = re.compile(
    r"\b(?:adds|added|adding|introduces|introduced|gains|gained)\b|新增|新加|引入|增加了|添加了"
    # a name put back: "re-adds", "重新加入"
    r"|\b(?:re-?adds|re-?added|re-?introduces|re-?introduced|brings back|brought back)\b"
    r"|重新(?:加入|添加|引入|新增)",
    re.IGNORECASE,
)
# between the names of a list after the verb: "x, y and a z(…) method", "x 与 y"; a "based
# on" before the name ("新增基于 Mixin 的 X": X is what is added)
_LIST_GLUE = re.compile(
    r"(?:\s|`|,|，|、|与|和|及|以及|\band\b|\ba\b|\ban\b|\bthe\b|\bnew\b"
    r"|基于\s*`?[\w.]+`?\s*的)*",
    re.IGNORECASE,
)
# a name of the list: code-spelled, quoted as code, or called (`to(device)`)
_LIST_NAME = re.compile(r"(?P<tick>`)?(?P<name>[A-Za-z_]\w*)(?P<call>\([^()\n]{0,60}\))?`?")


def _code_name(token: str) -> bool:
    if not _CODE_NAME.match(token):
        return False
    return "_" in token.strip("_") or "." in token or bool(re.search(r"[a-z][A-Z]", token))


def merged_text(evidence: PeriodEvidence, number: int) -> str | None:
    """Everything the merged change of `number` shows (every line of its patch with hunk
    headers, and its paths), lower-cased; None when a changed file's patch is missing."""
    pr = evidence.collected.get(number)
    if pr is None or not pr.patches_fetched:
        return None
    parts: list[str] = []
    for change in pr.files:
        if change.patch is None and (change.additions or change.deletions):
            return None
        parts += [change.path, change.previous_path or "", change.patch or ""]
    return "\n".join(parts).lower()


def _words(name: str) -> tuple[str, ...]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).lower()
    return tuple(w for w in _WORD_SPLIT.split(spaced) if w)


def _raw_merged(evidence: PeriodEvidence, number: int) -> str:
    pr = evidence.collected.get(number)
    return "\n".join(c.patch or "" for c in pr.files) if pr else ""


def _names(raw: str) -> list[str]:
    """The names in `raw`, each once, in order."""
    found: list[str] = _NAME_CHARS.findall(raw)
    return list(dict.fromkeys(found))


def _respelled(name: str, raw: str) -> str | None:
    """A name of the merged change with `name`'s words joined otherwise."""
    squashed = "".join(_words(name))
    for other in _names(raw):
        if other != name and "".join(_words(other)) == squashed and len(_words(name)) > 1:
            return other
    return None


def _other_middle(name: str, raw: str) -> str | None:
    """A name of the merged change with `name`'s first and last words and as many words, the
    middle ones others (`_FP8_MOE_LEAVES` / `_FP8_CANDIDATE_LEAVES`): the same constant or
    function, renamed in review."""
    words = _words(name)
    if len(words) < MIN_WORDS or "." in name:
        return None
    for other in _names(raw):
        theirs = _words(other)
        if len(theirs) != len(words) or theirs == words or "." in other:
            continue
        if (theirs[0], theirs[-1]) == (words[0], words[-1]):
            return other
    return None


def _other_key_path(name: str, raw: str) -> str | None:
    """The merged change's full key path of `name`'s setting, when it is another one: the
    same first part and last part (`trainer.…hybrid_rollout.enable_switch`)."""
    if name.count(".") < MIN_DOTS:
        return None
    first, last = name.lower().split(".")[0], name.lower().rsplit(".", 1)[-1]
    for other in _names(raw):
        lowered = other.lower()
        if lowered.count(".") < MIN_DOTS or lowered == name.lower():
            continue
        if lowered.startswith(first + ".") and lowered.endswith("." + last):
            return other
    return None


def renamed_reasons(text: str, cited: Sequence[int], evidence: PeriodEvidence) -> list[str]:
    """A name the sentence takes from a cited PR's description that the merged change spells
    another way (see the module's docstring)."""
    found = [(n, e) for n in cited if (e := evidence.pr(n)) is not None]
    merged = {n: merged_text(evidence, n) for n, _e in found}
    reasons = []
    for name in claims.identifiers(text):
        lowered = name.lower()
        if not _code_name(name) or any(m and lowered in m for m in merged.values()):
            continue
        described = [n for n, e in found if lowered in e.text]
        if not described or any(merged[n] is None for n in described):
            continue
        for n in described:
            raw = _raw_merged(evidence, n)
            other = _respelled(name, raw) or _other_key_path(name, raw) or _other_middle(name, raw)
            if other:
                reasons.append(
                    f"renamed before merge: `{name}` is only in #{n}'s description; "
                    f"the merged change has `{other}`"
                )
                break
    return reasons


def _added_names(text: str) -> Iterator[tuple[int, str]]:
    """(position, name) of each name in the list right after an "adds" verb (not one told of
    an earlier change)."""
    for verb in _ADD_VERB.finditer(text):
        if claims.earlier_doing(text, verb.start()):
            continue  # "改写了此前新增 X 的代码": added before, by an earlier PR
        at = verb.end()
        while True:
            glue = _LIST_GLUE.match(text, at)
            at = glue.end() if glue else at
            found = _LIST_NAME.match(text, at)
            if found is None or not (found["tick"] or found["call"] or _code_name(found["name"])):
                break
            yield verb.start(), found["name"]
            at = found.end()


def _defines(name: str, lines: Sequence[str]) -> bool:
    pattern = re.compile(
        rf"^\s*(?:async\s+)?(?:def|class)\s+{re.escape(name)}\b"
        rf"|^\s*{re.escape(name)}\s*(?::(?!:)|=(?!=))"
    )
    return any(pattern.search(line) for line in lines)


def _used_before(name: str, lines: Sequence[str]) -> bool:
    """A removed line imports `name` (`from m import a, name`) or calls it (`name(`): old code
    used it, so it was there before the PR. Code-spelled names only (`to(` is any method)."""
    if not _code_name(name):
        return False
    pattern = re.compile(
        rf"^\s*from\s+[\w.]+\s+import\s+(?:.*[\s,(])?{re.escape(name)}\b"
        rf"|(?<![\w.]){re.escape(name)}\("
    )
    return any(pattern.search(line) for line in lines)


def _existed(name: str, removed: Sequence[str]) -> bool:
    """The PR's removed lines define, import or call `name`: it existed before the PR."""
    return _defines(name, removed) or _used_before(name, removed)


def _said_of(
    position: int, text: str, cited: Sequence[PREvidence], point: int | None = None
) -> list[PREvidence]:
    """The PRs the words at `position` are said of: the last PR named before them, else the
    PR a point is about (`point`: a PR point's sentence needs not name its own PR), else every
    cited PR."""
    spans = [s for s in claims.pr_spans(text) if s[1] <= position]
    numbers = {e.number: e for e in cited}
    if spans and spans[-1][2] in numbers:
        return [numbers[spans[-1][2]]]
    if point in numbers:
        return [numbers[point]]
    return list(cited)


# "adds MindSpeed-Bridge GRPO scripts", "新增 3 个示例脚本": new files, said of a PR
_ADDS_FILES = re.compile(
    r"(?:\b(?:adds|added|adding|introduces|introduced)\b|新增|新加|添加|增加了|加入)"
    r"[^,，。;；:：()（）]{0,40}?(?:\bscripts?\b|\bfiles?\b|脚本|文件)",
    re.IGNORECASE,
)

_SIZE_WORDS = re.compile(r"\blines?\b|行|\bacross\b|涉及", re.IGNORECASE)
_ADD_TITLE = re.compile(r"\badd\b[^,;:()]{0,40}?\b(?:scripts?|files?)\b", re.IGNORECASE)


def new_file_reasons(text: str, cited: Sequence[int], evidence: PeriodEvidence) -> list[str]:
    """Scripts or files told as added by a PR that adds no file (it changes existing ones)."""
    prs = [e for e in (evidence.pr(n) for n in cited) if e is not None]
    reasons = []
    for said in _ADDS_FILES.finditer(text):
        if _SIZE_WORDS.search(said.group(0)):
            continue  # "adds 120 lines … across 3 files": the size of the change
        subjects = _subjects(said.start(), text, prs)
        found = [evidence.collected.get(e.number) for e in subjects]
        if not subjects or any(pr is None or not pr.files for pr in found):
            continue
        if any(_ADDS_FILES.search(e.headline) or _ADD_TITLE.search(e.headline) for e in subjects):
            continue  # "feat: add … launch script" on an existing file: the PR's own word
        new = (FileStatus.ADDED, FileStatus.RENAMED)
        if not any(f.status in new for pr in found if pr for f in pr.files):
            numbers = ", ".join(f"#{e.number}" for e in subjects)
            verb = "adds" if len(subjects) == 1 else "add"
            reasons.append(f"no new file: {numbers} {verb} no file, it changes existing ones")
    return list(dict.fromkeys(reasons))


def _subjects(position: int, text: str, cited: Sequence[PREvidence]) -> list[PREvidence]:
    """The PRs a verb at `position` is said of: those named in its clause before it ("#A 与
    #B 新增 …": either may be the one that does it), else the last one named before."""
    start = max(text.rfind(mark, 0, position) for mark in ",，。;；:：") + 1
    numbers = {e.number: e for e in cited}
    own = [numbers[s[2]] for s in claims.pr_spans(text[start:position]) if s[2] in numbers]
    return own or _said_of(position, text, cited)


# "adds … a torch profiler discrete mode", "提供 … 的 discrete 模式"
_ADDS_MODE = re.compile(
    r"(?:\b(?:adds|added|adding|introduces|introduced|gains|gained)\b|新增|提供|引入|加入)"
    r"[^,，。;；:：]{0,80}?\b(?P<mode>[A-Za-z][\w-]*)\s*(?:\bmode\b|模式)",
    re.IGNORECASE,
)


# "新增 resource_pool 参数", "gains a dp_size argument", "adds parameter `x`"
_ADDS_PARAMETER = re.compile(
    r"(?:\b(?:adds|added|adding|gains|gained)\b|新增|增加了|添加了)[^,，。;；:：]{0,50}?"
    r"`?(?P<name>[A-Za-z_]\w*)`?\s*(?:参数|\b(?:parameter|argument)s?\b)",
    re.IGNORECASE,
)
_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(?P<name>\w+)\s*\((?P<params>.*)\)")
_PARAM = re.compile(r"(?:^|,)\s*\*{0,2}(\w+)")
_BRACKETS = re.compile(r"\[[^\[\]]*\]")


def _signatures(lines: Sequence[str]) -> dict[str, set[str]]:
    """Each one-line `def`'s parameter names, by function name."""
    out: dict[str, set[str]] = {}
    for line in lines:
        found = _DEF.match(line)
        if found:
            params = found["params"]
            while _BRACKETS.search(params):
                params = _BRACKETS.sub("", params)
            out[found["name"]] = set(_PARAM.findall(params)) - {"self", "cls"}
    return out


def replaced_parameter_reasons(
    text: str, cited: Sequence[int], evidence: PeriodEvidence
) -> list[str]:
    """A parameter told as added that takes another's place in the same signature
    (`-def __init__(self, config, worker_group=None)` / `+def __init__(self, config,
    resource_pool=None)`): the PR replaces a parameter, it adds none."""
    prs = [e for e in (evidence.pr(n) for n in cited) if e is not None]
    reasons = []
    for said in _ADDS_PARAMETER.finditer(text):
        name = said["name"]
        for e in _subjects(said.start(), text, prs):
            before, after = _signatures(e.changed[0]), _signatures(e.changed[1])
            for function, params in after.items():
                old = before.get(function)
                if old is None or name not in params or name in old:
                    continue
                gone = sorted(old - params)
                if gone and len(params) <= len(old):
                    reasons.append(
                        f"replaced, not added: in #{e.number} `{name}` takes the place of "
                        f"`{', '.join(gone)}` in {function}'s signature"
                    )
    return list(dict.fromkeys(reasons))


def existing_mode_reasons(text: str, cited: Sequence[int], evidence: PeriodEvidence) -> list[str]:
    """A mode told as added that a removed line of the PR already names ("-Discrete mode saves
    separate trace files for each step"): the PR changes the mode, it does not add it."""
    prs = [e for e in (evidence.pr(n) for n in cited) if e is not None]
    reasons = []
    for said in _ADDS_MODE.finditer(text):
        phrase = re.compile(rf"\b{re.escape(said['mode'].lower())}\s+mode\b")
        for e in _subjects(said.start(), text, prs):
            if any(phrase.search(line.lower()) for line in e.changed[0]):
                reasons.append(
                    f"not new: the {said['mode']} mode is on a removed line of #{e.number} "
                    "(it existed before; the PR changes it)"
                )
    return list(dict.fromkeys(reasons))


def existing_reasons(
    text: str, cited: Sequence[int], evidence: PeriodEvidence, point: int | None = None
) -> list[str]:
    """A name told as added that a removed line of the PR defines, imports or calls (it
    existed before); `point`: the PR a PR point is about."""
    prs = [e for e in (evidence.pr(n) for n in cited) if e is not None]
    reasons = []
    for position, name in _added_names(text):
        said = _said_of(position, text, prs, point)
        if said and all(_existed(name, e.changed[0]) for e in said):
            numbers = ", ".join(f"#{e.number}" for e in said)
            reasons.append(
                f"not new: `{name}` is defined or used on a removed line of {numbers} "
                "(it existed before; the PR changes or moves it)"
            )
    return reasons


def described_only_reasons(
    text: str, cited: Sequence[int], evidence: PeriodEvidence, point: int | None = None
) -> list[str]:
    """A name told as added that is in the description of the PR it is said of and nowhere in
    that PR's merged change (every patch given): a plan or a dropped commit, not merged code."""
    prs = [e for e in (evidence.pr(n) for n in cited) if e is not None]
    reasons = []
    for position, name in _added_names(text):
        lowered = name.lower()
        if not _code_name(name) or "." in name:
            continue
        for e in _said_of(position, text, prs, point):
            merged = merged_text(evidence, e.number)
            if merged is not None and lowered in e.text and lowered not in merged:
                reasons.append(
                    f"not merged: `{name}` is in #{e.number}'s description but nowhere in its "
                    "merged change (a plan or a commit the squash left out)"
                )
    return list(dict.fromkeys(reasons))


# "X 是 #3465 引入的", "X，由 #3465 新增", "X, introduced by #3465", "X (added in #3465)"
_INTRODUCED_BY = re.compile(
    r"(?:是|由)\s*[#＃](?P<zh>\d+)\s*(?:所)?(?:引入|新增|加入|添加|创建)"
    r"|\b(?:introduced|added|created)\s+(?:by|in)\s+(?:PR\s*)?#(?P<en>\d+)",
    re.IGNORECASE,
)


# "that per-rank metrics": a relative word opening a clause with its own subject ("that was
# added by" has none: the name before it is what was added)
_OWN_SUBJECT = re.compile(
    r"\b(?:that|which)\b(?!\s+(?:was|were|is|are|has|had|have|got|been|first|later)\b)",
    re.IGNORECASE,
)


def introduced_by_reasons(text: str, evidence: PeriodEvidence) -> list[str]:
    """A name told as introduced by a PR of the week must be on that PR's added side (its
    added lines or new paths)."""
    reasons = []
    for said in _INTRODUCED_BY.finditer(text):
        number = int(said["zh"] or said["en"])
        e = evidence.pr(number)
        if e is None or number not in evidence.collected:
            continue
        start = max(text.rfind(mark, 0, said.start()) for mark in "，,。;；") + 1
        # "the `X` failure that per-rank metrics added by #6270 caused": the relative
        # clause's own subject is what was added, not the `X` before it
        subjects = list(_OWN_SUBJECT.finditer(text, start, said.start()))
        start = subjects[-1].end() if subjects else start
        names = claims.identifiers(text[start : said.start()])
        missing = [n for n in names if n.lower() not in e.added]
        reasons += [f"not introduced by #{number}: `{n}` is not on its added side" for n in missing]
    return reasons


# "imports from verl.workers.roles keep working", "`a.b` 的导入无需修改"
_STILL_WORKS = re.compile(
    r"\b(?:keeps?|continues?) (?:to )?work(?:ing)?\b|\bstill works?\b|\bwithout (?:any )?changes\b"
    r"|\bunaffected\b|不受影响|仍(?:然)?可(?:用|以)|继续可用|无需修改|保持可用",
    re.IGNORECASE,
)


def gone_module_reasons(text: str, cited: Sequence[int], evidence: PeriodEvidence) -> list[str]:
    """A package told as still working that a cited PR takes away: its `__init__.py` removed
    or moved, and no changed file left in its folder."""
    if not _STILL_WORKS.search(text):
        return []
    reasons = []
    for name in claims.identifiers(text):
        if "." not in name or "/" in name:
            continue
        folder = name.strip("`").replace(".", "/") + "/"
        for number in cited:
            pr = evidence.collected.get(number)
            files = pr.files if pr else []
            under = [f for f in files if (f.previous_path or f.path).startswith(folder)]
            stays = [
                f for f in under if f.path.startswith(folder) and f.status != FileStatus.REMOVED
            ]
            init = folder + "__init__.py"
            if not stays and any((f.previous_path or f.path) == init for f in under):
                reasons.append(
                    f"module gone: #{number} removes or moves {init} and the {len(under) - 1} "
                    f"other changed files of {folder}, so `{name}` does not keep working"
                )
    return reasons
