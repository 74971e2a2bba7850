"""Facts from structure: a sentence's value and default claims ("`rollout.mode` 默认值由 sync 改为
async", "changes X's default from A to B", "sets X to B", "新增 X（默认 B）", "raises X from A to
B", "X at 4096") read as (key, old, new) and matched exactly against the parsed config changes
of the PRs it cites (config_changes.py) and the settings their changed lines give a value.

A claim whose key the data changes is kept when its values are the data's (the old value as
old, the new as new) and dropped, with the data's values, when they are not; a key the data
does not change is no structural claim (the other rules decide).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from service.core.analyst import claims
from service.core.analyst.evidence import PeriodEvidence
from service.core.analyst.facts import PRFacts
from service.core.risks.base import changed_texts

WINDOW = 70
VERB_REACH = 40  # "raises", "降低" this close before the key say which way its value goes
# a value: a list (`[0, 5]`) or a token of ASCII name characters (a CJK word is no value: "默认的"),
# not an English word that only goes on with the sentence ("default in x.yaml", "default change")
_VALUE = (
    r"[`'\"“]?(?P<{name}>\[[^\]\n]{{0,40}}\]"
    r"|(?!(?:in|on|for|from|of|the|a|an|is|was|will|change[sd]?|moved?|value)\b)"
    r"-?[A-Za-z0-9_.\-+/${{}}:@]+?)[`'\"”]?(?=$|[\s,，。;；)）(（、]|\.(?:\s|$))"
)
_A, _B = _VALUE.format(name="a"), _VALUE.format(name="b")
_TO_WORDS = (
    r"\bto\b|改为|改成|变为|变成|调整为|调整到|调为|调到|提高到|提高至|提升到|提升至|增加到|增加至"
    r"|增大到|降低到|降低至|降到|减少到|减小到|切换为|切换到|换成|升级到|升到|至|到|→"
)
_FROM_TO = re.compile(rf"(?:\bfrom\b|由|从)\s*{_A}\s*(?:{_TO_WORDS})\s*{_B}", re.IGNORECASE)
_ARROW = re.compile(rf"^\W{{0,3}}{_A}\s*→\s*{_B}")
# a value said plainly: "defaults to B", "（默认 B）", "默认值为 B", "sets … to B", "= B"
_DEFAULT_TO = re.compile(
    rf"(?:\bdefault(?:s|ing|ed)?\b(?:\s+value)?(?:\s+(?:is|of|to|=|:|at))?|默认(?:值)?(?:均|都)?(?:为|是|改为|设为|设置为|使用|采用)?"
    rf"|\bset\s+to|设为|设置为|改为|改成|调整为|调为|调到|提高到|降低到)\s*{_B}",
    re.IGNORECASE,
)
# "`x` at 4096", "x = 2", "x 为 2", or the value right after the key ("num_global_batch 8")
# the clause after a key's that gives its default: "`x`，默认值为 None", "`x`, defaulting to 3"
_DEFAULT_NEXT = re.compile(r"\s*(?:默认|\bdefault(?:s|ing)?\b|\bwhich defaults\b)", re.IGNORECASE)
# a switch said before its default word: "x off by default", "x is on by default", "x 默认关闭"
_SWITCH_DEFAULT = re.compile(
    r"^\W{0,3}(?:(?:is|stays|remains)\s+)?(?P<b>on|off|enabled|disabled)\s+by\s+default\b"
    r"|^\W{0,3}默认(?:为|是)?\s*(?P<zh>关闭|禁用|不启用|开启|启用|打开)",
    re.IGNORECASE,
)
_SWITCH_ON = {"on", "enabled", "开启", "启用", "打开"}
# "x stays at 4", "x 仍为 4": a value kept is a value said
_PLAIN_TO = re.compile(
    # "(replica_rank + 1)": a sum, not the key's value
    r"^(?!\s*(?:[+*/%]|-\s))\W{0,3}(?:(?:(?:stays?|remains?|keeps?|kept|仍|保持|维持)\s*)?"
    rf"(?:\bto\b|\bat\b|\bof\b|=|为|在)\s*)?{_B}",
    re.IGNORECASE,
)
_UP = re.compile(r"\b(?:raises?|raising|increases?|bumps?)\b|提高|提升|增大|增加|调大", re.I)
_DOWN = re.compile(r"\b(?:lowers?|lowering|decreases?|reduces?)\b|降低|降到|减少|减小|调小", re.I)
_STOP = re.compile(r"[。;；!！?？，,、]|\.(?:\s|$)|[#＃]\d")
# the words that introduce a key's values
_INTRO = re.compile(
    r"\bfrom\b|\bto\b|\bat\b|default|由|从|默认|改为|设为|设置为|为|=|:|→", re.IGNORECASE
)
_FILE = re.compile(r"\.(?:ya?ml|py|json|toml|sh|cfg|ini)$|/")
_LIST = re.compile(r"\[[^\]\n]{0,40}\]")
_TOKEN_TAIL = re.compile(r"[^\s，。；;、`'\"”)）]*")
# a literal a changed line of code gives a key: a number, a boolean, null or a quoted string
_LITERAL = re.compile(r"""^(?:-?\d[\w.+-]*|true|false|null|none|"[^"]*"|'[^']*')$""")
_SETTING_LINE = re.compile(
    r"""^\s*["']?(?P<key>[A-Za-z_][\w.\-]*)["']?\s*(?::\s*[^=\n]+?\s*=|:|=)\s*(?P<value>[^#\n]*?)"""
    r"""\s*,?\s*(?:#.*)?$"""
)
# generated copies, tests and scripts say nothing of a key's own default
_NOT_CONFIG = re.compile(r"(?:^|/)_generated_|(?:^|/)tests?/|\.(?:sh|md|rst|txt)$|^\.github/")
DATA_SHOWN = 2
_YAML_FILE = re.compile(r"\.ya?ml$")
_NOT_SCRIPT = re.compile(r"(?:^|/)_generated_|(?:^|/)tests?/")
# a default claim is the config's: a script's value is no default
_DEFAULT_WORD = re.compile(r"default|默认", re.IGNORECASE)
_SHELL_FALLBACK = re.compile(r"\$\{\w+:?[-=]([^${}]*)\}")
_FALSY = {"false": "false", "none": "null", "null": "null", "~": "null", "true": "true"}


@dataclass(frozen=True)
class Setting:
    """A key the PR's data gives values: old and new values (empty: no such side)."""

    pr: int
    key: str
    path: str
    old: frozenset[str]
    new: frozenset[str]
    said: str  # how the data shows it
    parsed: bool = True  # a config change (False: a setting read off a changed line of code)

    def matches(self, name: str) -> bool:
        said = [s for s in name.lower().strip("`").split(".") if s]
        key = [s for s in self.key.lower().lstrip("…").split(".") if s]
        stem = self.path.rsplit("/", 1)[-1].split(".", 1)[0].lower()
        full = [stem, *key]
        if not said or not key or _env_name(name) != _env_name(self.key):
            return False
        return full[-len(said) :] == said or said[-len(key) :] == key


@dataclass(frozen=True)
class ValueClaim:
    """A value claim of a sentence and its verdict: `reason` empty when the data agrees."""

    key: str
    old: str | None
    new: str
    start: int
    end: int
    grounds: str = ""
    reason: str = ""

    @property
    def ok(self) -> bool:
        return not self.reason


_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def _env_name(name: str) -> bool:
    """An environment variable's name (`SAVE_FREQ`): another thing than a config key
    `save_freq`, though spelled alike."""
    return _ENV_NAME.fullmatch(name.strip("`").rsplit(".", 1)[-1]) is not None


def line_setting(line: str, *, raw: bool = False) -> tuple[str, str] | None:
    """(key, value) a changed line sets (`key: value`, `key = value`, `name: type = value`);
    the value as written when `raw`."""
    found = _SETTING_LINE.match(line)
    if not found or not found["value"]:
        return None
    said = found["value"].strip().rstrip(",")
    return found["key"], (said.lower() if raw else value(said))


def value(text: str) -> str:
    """A value as compared: lower case, no quotes, `True`/`None` spelled one way, `4,096` as
    4096, `512.0` as 512."""
    text = text.strip().strip("`'\"“”").rstrip(",，").lower()
    fallback = _SHELL_FALLBACK.fullmatch(text)
    text = fallback[1] if fallback else text  # `${SAVE_FREQ:-50}`: 50 unless the caller sets it
    text = _FALSY.get(text, text)
    plain = text.replace(",", "")
    try:
        number = float(plain)
    except ValueError:
        return text
    return str(int(number)) if number.is_integer() else repr(number)


def _diff_settings(
    number: int, evidence: PeriodEvidence, scripts: bool = False
) -> Iterator[Setting]:
    """The settings the config and code files of a PR change (`scripts`: those its example
    scripts and docs set instead, not its tests' nor generated copies)."""
    pr = evidence.collected.get(number)
    if pr is None:
        return
    for change in pr.files:
        if bool(_NOT_CONFIG.search(change.path)) != scripts or (
            scripts and _NOT_SCRIPT.search(change.path)
        ):
            continue
        removed, added = changed_texts(change.patch)
        sides: tuple[dict[str, set[str]], dict[str, set[str]]] = ({}, {})
        for side, lines in zip(sides, (removed, added), strict=True):
            for line in lines:
                # `key=value \` continues a shell command
                found = line_setting(line.rstrip().removesuffix("\\"), raw=True)
                if found and (_YAML_FILE.search(change.path) or _LITERAL.match(value(found[1]))):
                    side.setdefault(found[0], set()).add(value(found[1]))
        for key in sides[0].keys() | sides[1].keys():
            old, new = frozenset(sides[0].get(key, ())), frozenset(sides[1].get(key, ()))
            if old != new:
                shown = f"{', '.join(sorted(old)) or '-'} → {', '.join(sorted(new)) or '-'}"
                name = change.path.rsplit("/", 1)[-1]
                yield Setting(
                    number, key, change.path, old - new, new - old, f"{name} {key}: {shown}"
                )


def settings(prs: Sequence[PRFacts], evidence: PeriodEvidence) -> list[Setting]:
    """The keys the cited PRs give values: their config changes first, then their diffs'."""
    out = [
        Setting(
            pr.number,
            c.key,
            c.path,
            frozenset({value(c.old)} if c.old is not None else ()),
            frozenset({value(c.new)} if c.new is not None else ()),
            c.line(),
        )
        for pr in prs
        for c in pr.config
    ]
    shown = {(s.path, s.key.rsplit(".", 1)[-1].lstrip("…")) for s in out}
    for pr in prs:
        out += (
            s
            for s in _diff_settings(pr.number, evidence)
            if (s.path, s.key.rsplit(".", 1)[-1]) not in shown
        )
    return out


def _keys(text: str) -> Iterator[tuple[str, int, int]]:
    """The names a sentence may give a setting, with their places."""
    seen: set[str] = set()
    for name in claims.identifiers(text):
        if name in seen:
            continue
        seen.add(name)
        # a whole name: `collate_fn` is not the end of `get_collate_fn`, nor `x` the head of
        # the dotted `x.enabled`
        whole = rf"(?<![A-Za-z0-9_.]){re.escape(name)}(?![A-Za-z0-9_]|\.[A-Za-z_])"
        for found in re.finditer(whole, text):
            if not text[: found.start()].endswith("${"):  # `${X:-50}` reads X, sets nothing
                yield name, found.start(), found.end()


def _window(text: str, end: int) -> str:
    """The words after a key that may give its values: up to the end of the clause or the
    next name that is not a file's ("`x` in rollout.yaml from 1 to 2", not "`x` and `y` to 2")."""
    window = text[end : end + WINDOW]
    tail = _TOKEN_TAIL.match(text, end + WINDOW)
    window += tail.group(0) if tail else ""  # a value is not cut in two
    # a list's commas (`[0, 5]`) end no clause
    listed = _LIST.sub(lambda m: "[" + "_" * (len(m.group(0)) - 2) + "]", window)
    stop = _STOP.search(listed)
    if stop and _DEFAULT_NEXT.match(window, stop.end()):  # "新增 `x`，默认值为 None"
        later = _STOP.search(listed, stop.end())
        window = (
            window[: stop.start()] + " " + window[stop.end() : later.start() if later else None]
        )
    elif stop:
        window = window[: stop.start()]
    said = _INTRO.search(window)
    before = window[: said.start()] if said else window
    for name in claims.identifiers(before):
        if not _FILE.search(name):
            return window[: before.find(name)]
    return window


def _plain_value(raw: str, known: set[str]) -> bool:
    """A value said without a "default" word must look like one: a number, a boolean or null,
    or one of the key's values in the data."""
    said = value(raw)
    return said in known or said in ("true", "false", "null") or said[:1].isdigit()


# "defaults to an empty dict", "默认为空字典": the value a config spells `{}` or `[]`
_EMPTY = re.compile(
    r"\b(?:an\s+)?empty\s+(?:(?P<list>list|array)|dict(?:ionary)?|map|mapping)\b"
    r"|空(?:(?P<zh_list>列表|数组)|字典|映射)",
    re.IGNORECASE,
)


def _said(text: str, end: int, known: set[str], *, plain: bool) -> tuple[str | None, str] | None:
    """(old, new) the sentence gives the key ending at `end`, or None; a value said plainly
    ("x = 2", "x at 2") only when `plain` (the key is a parsed config change)."""
    window = _EMPTY.sub(lambda m: "[]" if m["list"] or m["zh_list"] else "{}", _window(text, end))
    found = _FROM_TO.search(window) or _ARROW.search(window)
    if found:
        return found["a"], found["b"]
    found = _DEFAULT_TO.search(window)
    if found:
        return None, found["b"]
    switch = _SWITCH_DEFAULT.search(window)
    if switch:
        return None, "true" if (switch["b"] or switch["zh"]).lower() in _SWITCH_ON else "false"
    found = _PLAIN_TO.search(window) if plain else None
    if found and _plain_value(found["b"], known):
        return None, found["b"]
    return None


def _direction_reason(verbs: str, old: str, new: str) -> str:
    """`verbs`: the words before the key up to its values ("raises `x` in y.yaml from")."""
    try:
        a, b = float(old), float(new)
    except ValueError:
        return ""
    up, down = list(_UP.finditer(verbs)), list(_DOWN.finditer(verbs))
    last_up = up[-1].start() if up else -1
    last_down = down[-1].start() if down else -1
    if last_up > last_down and a > b:
        return "the sentence says it rises"
    if last_down > last_up and a < b:
        return "the sentence says it falls"
    return ""


# a removal said before a key, with no addition between: its value is the one removed
_REMOVAL = re.compile(
    r"\b(?:remov|drop|delet|strip)\w*|删除|删去|移除|去掉|去除|不再", re.IGNORECASE
)
_ADDITION = re.compile(
    r"\b(?:adds?|added|adding|introduc\w*|gains?|new|sets?)\b|新增|加入|引入|增加|设为",
    re.IGNORECASE,
)


def _told_removed(text: str, start: int) -> bool:
    removals = list(_REMOVAL.finditer(text, 0, start))
    return bool(removals) and not _ADDITION.search(text, removals[-1].end(), start)


# "the old `x` default of [0, 5]", "旧的 x 默认值": the key's value before the change
_OLD_KEY = re.compile(
    r"(?:\b(?:old|previous|former|original)|旧的?|原有的?|原来的?|此前的|之前的)\s*[`'\"]?$",
    re.IGNORECASE,
)
OLD_KEY_REACH = 20


def _told_old_key(text: str, start: int) -> bool:
    return _OLD_KEY.search(text[max(0, start - OLD_KEY_REACH) : start]) is not None


def _judge(
    name: str,
    old: str | None,
    new: str,
    found: list[Setting],
    verbs: str,
    removed: bool = False,
    was: bool = False,
) -> tuple[str, str]:
    """(grounds, reason) of a claim on the settings its key names (`removed`: the sentence
    tells the key as removed, so its value is the old one; `was`: it tells the key's value
    before the change)."""
    a, b = (value(old) if old is not None else None), value(new)
    for s in found if (removed or was) and a is None else ():
        if b in s.old and (was or not s.new):
            return f"#{s.pr} {s.said}", ""
    for s in found:
        if b in s.new and (a is None or a in s.old):
            if a is not None and (why := _direction_reason(verbs, a, b)):
                return "", f"value of {name}: {why}, the data says {s.said}"
            return f"#{s.pr} {s.said}", ""
    said = f"{old} → {new}" if old is not None else new
    data = "; ".join(list(dict.fromkeys(s.said for s in found))[:DATA_SHOWN])
    if any(b in s.old and b not in s.new for s in found):
        why = f"{new} is the old value (the data says {data})"
        return "", f"value of {name}: {why}, the sentence says {said}"
    return "", f"value of {name}: the data says {data}, the sentence says {said}"


def _unchanged_reason(
    text: str, name: str, place: tuple[int, int], prs: Sequence[PRFacts], evidence: PeriodEvidence
) -> str:
    """ "raises data.max_prompt_length from 256 to 512" of a PR whose patch holds the key on an
    unchanged line only (`data.max_prompt_length=512` beside the changed lines): the PR does
    not change it. Only a change is judged (from A to B, or a raise or a cut), not a value."""
    start, end = place
    key = name.lower().strip("`").rsplit(".", 1)[-1]
    kept = _unchanged_value(key, prs, evidence)
    said = _said(text, end, {kept[1]}, plain=True) if kept else None
    if kept is None or said is None:
        return ""
    number, held = kept
    verbs = text[max(0, start - VERB_REACH) : end]
    if said[0] is not None or _UP.search(verbs) or _DOWN.search(verbs):
        return f"value of {name}: #{number} does not change it (an unchanged line gives it {held})"
    if value(said[1]) != held:
        why = f"an unchanged line of #{number} gives it {held}"
        return f"value of {name}: {why}, the sentence says {said[1]}"
    return ""


def _script_reason(
    text: str, name: str, end: int, prs: Sequence[PRFacts], evidence: PeriodEvidence
) -> str:
    """ "the example script sets clip_ratio=5.0": a value said of a key only the PR's scripts
    or docs set (`clip_ratio=2e-6 \\` on an added line) is one of the values they give it."""
    scripts = (s for pr in prs for s in _diff_settings(pr.number, evidence, scripts=True))
    found = [s for s in scripts if s.new and s.matches(name)]
    if not found or _DEFAULT_WORD.search(_window(text, end)):
        return ""
    said = _said(text, end, {v for s in found for v in s.new}, plain=True)
    if said is None or value(said[1]) in {v for s in found for v in s.new}:
        return ""
    return _judge(name, said[0], said[1], found, "")[1]


def _unchanged_value(
    key: str, prs: Sequence[PRFacts], evidence: PeriodEvidence
) -> tuple[int, str] | None:
    """(PR, value) of the first cited PR whose patch sets `key` on an unchanged line and on
    no changed one."""
    for pr in prs:
        e = evidence.pr(pr.number)
        if e is None or _whole_name(key).search(f"{e.added}\n{e.removed}"):
            continue
        for line in e.context.splitlines():
            found = line_setting(line.strip().rstrip("\\").strip())
            if found and found[0].lower().rsplit(".", 1)[-1] == key:
                return pr.number, found[1]
    return None


def _whole_name(key: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w]){re.escape(key)}(?![\w])")


# PRs joined as one subject: "#A and #B set …", "#A 与 #B 把 …"
_JOINED = re.compile(r"^\s*(?:,|，|、|\band\b|与|和|及|以及)\s*$", re.IGNORECASE)


_RELATIVE = re.compile(r"\s*[,，]?\s*(?:which|that|whose|它|其)\b", re.IGNORECASE)


def _subjects(text: str, start: int, cited: Sequence[int], point: int | None) -> list[int]:
    """The PRs a claim at `start` is said of: the last PR named before it, with the PRs joined
    to it as one subject ("#A and #B set x to 2": both); none named before it: the PR a PR
    point is about (`point`), else every PR."""
    spans = [s for s in claims.pr_spans(text) if s[2] in cited and s[1] <= start]
    if not spans:
        return [point] if point is not None and point in cited else list(cited)
    group = [spans[-1]]
    if _RELATIVE.match(text, spans[-1][1]):  # "#A and #B, which changes x": #B alone
        return [spans[-1][2]]
    for span in reversed(spans[:-1]):
        if not _JOINED.match(text[span[1] : group[-1][0]]):
            break
        group.append(span)
    return [n for _s, _e, n in group]


def _not_of_each(name: str, subjects: list[int], found: list[Setting]) -> str:
    """The reason a claim said of `subjects` is not true of each (empty: it may be)."""
    changes = {s.pr for s in found}
    missing = [n for n in subjects if n not in changes]
    if not missing:
        return ""
    others = ", ".join(f"#{n}" for n in sorted(changes))
    said = ", ".join(f"#{n}" for n in missing)
    return f"value of {name}: said of {said}, which does not change it (the data: {others})"


def value_claims(
    text: str, prs: Sequence[PRFacts], evidence: PeriodEvidence, point: int | None = None
) -> list[ValueClaim]:
    """Each value or default claim of `text` about a key the cited PRs change, judged; a claim
    said of several PRs (or of one of several the sentence joins) must be true of each; a PR
    point's words before any PR number are said of its own PR (`point`)."""
    known = settings(prs, evidence)
    cited = [p.number for p in prs]
    out: list[ValueClaim] = []
    for name, start, end in _keys(text):
        found = [s for s in known if s.matches(name)]
        if not found:
            why = _unchanged_reason(text, name, (start, end), prs, evidence)
            why = why or _script_reason(text, name, end, prs, evidence)
            if why:
                out.append(ValueClaim(name, None, "", start, end + WINDOW, "", why))
            continue
        values = {v for s in found for v in s.old | s.new}
        keys = {s.key.rsplit(".", 1)[-1].lower() for s in known}
        said = _said(text, end, values, plain=any(s.parsed for s in found))
        if said is None:
            continue
        old, new = said
        if value(new) in keys:
            continue  # "return_dict 改为 reward_for_val": a name replaced, not a value
        verbs = text[max(0, start - VERB_REACH) : end] + _window(text, end).split(new, 1)[0]
        subjects = _subjects(text, start, cited, point)
        if len(cited) > 1 and (why := _not_of_each(name, subjects, found)):
            out.append(ValueClaim(name, old, new, start, end + WINDOW, "", why))
            continue
        removed, was = _told_removed(text, start), _told_old_key(text, start)
        judged = (
            [
                _judge(name, old, new, [s for s in found if s.pr == n], verbs, removed, was)
                for n in subjects
            ]
            if len(subjects) > 1
            else [_judge(name, old, new, found, verbs, removed, was)]
        )
        reason = next((r for _g, r in judged if r), "")
        grounds = "" if reason else "; ".join(dict.fromkeys(g for g, _r in judged))
        out.append(ValueClaim(name, old, new, start, end + WINDOW, grounds, reason))
    return out
