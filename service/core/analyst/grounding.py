"""Claims grounded in the evidence of the PRs a sentence rests on (see evidence.py).

A sentence is read in segments: the words after `#123` up to the next PR number are said of
#123 (when the item rests on it); the words before the first PR number, or a sentence that
cites its PRs in brackets, are said of all the PRs it rests on. In each segment:
- entity: every concept of the glossary it names (dense, MoE, 昇腾, NIXL, …) occurs in what
  those PRs say and the files they touch (title, body, paths, risks, reviews), and is not
  another member of its group than the one the PR's title names;
- action: what it says a PR does (adds, removes, renames, moves, fixes, reverts, enables,
  disables) is what the PR's title, body or diff shows, on the right side of the diff for a
  named thing (a name only on removed lines is not "added");
- default: a changed default rests on a PR that says so or changes the setting, and the value
  it names is the setting's new value or stands beside "default" in the PR;
- failure: a failure or revert word (broke, leaks, crash, must be reverted) needs a failing
  check, a reviewer's concern, a revert or follow-up fix on a cited PR, unless the PR is said to
  fix it.
The claims about the sentence as a whole (relations, comparisons, absence) are in
sentence_claims.py.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from service.core.analyst import claims, code_defaults
from service.core.analyst.default_flips import code_verdict, folded
from service.core.analyst.evidence import FALSE_WORDS as _FALSE
from service.core.analyst.evidence import TRUE_WORDS as _TRUE
from service.core.analyst.evidence import PeriodEvidence, PREvidence, changed_settings
from service.core.analyst.glossary import Glossary, glossary
from service.core.analyst.structure import line_setting
from service.core.analyst.structure import value as compared
from service.core.analyst.telling_lines import TEST_PATH

# a clause ends here: what follows is not the object of the verb before
_CLAUSE_END = re.compile(
    r"[，,。;；:：!！?？（(]|\.(?=\s|$)|\band\b|\bwhile\b|\bbut\b|并且|同时|以及|但|而"
)
OBJECT_CHARS = 40
_SNAKE_NAME = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+(?![A-Za-z0-9_])")
# "raises an error if …", "抛出异常": an error the PR's code raises on purpose
_RAISED = re.compile(
    r"\b(?:raises?|raising|throws?)\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,2}?(?:error|exception)s?\b"
    r"|(?:抛出|报出)[^，。,;；]{0,12}?(?:错误|异常)|(?:时|则|即)\s*(?:显式|直接|会)?\s*报错",
    re.IGNORECASE,
)
_RAISE_LINE = re.compile(r"^\s*(?:raise|throw)\b", re.MULTILINE)
_CONDITION = re.compile(r"\b(?:if|when|unless|whenever|on an?)\b|如果|若|否则|时", re.IGNORECASE)
# what follows a verb's object: the means ("deletes the label through the GitHub API")
_MEANS = re.compile(r"\b(?:through|via|using)\b|通过|借助")
# a plain word of the object that a changed line sets as a key (`push:` of a workflow)
_PLAIN_WORD = re.compile(r"(?<![\w.`-])[a-z][a-z_]{2,}(?![\w`-])")
MODAL_REACH = 14
# "adds 1676 lines", "新增 527 行": a size, which the figure rule checks
_SIZE_AFTER = re.compile(
    r"^\s*(?:了|about|around|roughly|nearly|some|over|约|近|超过)?\s*[\d,.]+\s*(?:k|K|万|千)?"
    r"(?:\s*(?:个)?\s*(?:行|lines?|files?|文件|tests?|测试)|\s*(?:[,，、;；]|and\b|across\b|$))",
    re.IGNORECASE,
)
_MEMBER = re.compile(r"(?<=[A-Za-z0-9_]\.)[A-Za-z_][A-Za-z0-9_]{3,}")
# the new value of a default: "改为 spmd", "back to spmd", "to `async`"
_NEW_VALUE = re.compile(
    r"(?:\bto\b|改为|改成|改回|切换为|切换到|设为|设置为|换成)\s*`?(?!(?:true|false|on|off)\b)"
    # "falls back to the upstream default", "used to default to": words, not values
    r"(?!(?:the|a|an|its|their|this|that|default|be)\b)"
    # "adds `mtp` settings to hf_model.yaml": a file the change goes to, not a value
    r"(?![\w\-]+\.(?:ya?ml|py|json|sh|md|toml|txt|cfg|ini)\b)"
    r"([A-Za-z_][A-Za-z0-9_.\-]*)"
    # "改为 verl 的默认依赖": a possessive; "to take a key": a verb, not a value
    r"(?!\s*(?:的|默认)|[\w.\-]|\s+(?:a|an|the)\b)",
    re.IGNORECASE,
)
_ARG_NAME = re.compile(r"(?<![\w.])([A-Za-z_][A-Za-z0-9_]*)(?![\w])")
_CALL_CODE = re.compile(r"`[^`\n]*[=(][^`\n]*`")  # `f(x=True)`: code, not a value said
# "relied on the old default": "on" before a determiner is a preposition, no switch
_BOOL_WORDS = re.compile(
    r"\b(?:true|false|off)\b|\bon\b(?!\s+(?:the|a|an|its|their|this|that|these|those)\b)"
    r"|开启|关闭|启用|禁用",
    re.IGNORECASE,
)
_CONTRAST = re.compile(r"\bbut\b|\bhowever\b|\byet\b|但|却|然而|不过", re.IGNORECASE)
_NAME_TAIL = re.compile(r"[\w./`-]*")
_FILE_LIKE = re.compile(r"/|\.(?:py|ya?ml|json|toml|sh|md|txt)\b")
# a verb of a count: "增加到 2 个", "rises to 6 PRs"
_COUNT_AFTER = re.compile(r"^\s*(?:了)?\s*(?:到|至|to)\s*\d", re.IGNORECASE)
_NAME_CHAR = re.compile(r"[A-Za-z0-9_.\-]")
_PARTIAL_NAME = re.compile(r"^[A-Za-z0-9_.\-]+")
_PASSIVE_BEFORE = re.compile(r"\b(?:was|were|been|being|is|are|got)\s+$|被\s*$|已被\s*$", re.I)


_UNDOING = frozenset({"revert", "fix_same_code", "fix_reference"})


@dataclass(frozen=True)
class Segment:
    text: str
    prs: tuple[PREvidence, ...]


def segments(text: str, cited: Sequence[int], evidence: PeriodEvidence) -> list[Segment]:
    """The sentence's parts with the PRs each is said of (see the module's docstring)."""
    every = tuple(e for e in (evidence.pr(n) for n in cited) if e is not None)
    spans = [s for s in claims.pr_spans(text) if s[2] in cited]
    bracketed = any(s[0] > 0 and text[s[0] - 1] in "(（" for s in spans)
    if not spans or bracketed:
        return [Segment(text, every)]
    parts = [Segment(text[: spans[0][0]], every)] if spans[0][0] else []
    runs = _listed_runs(text, spans)
    for i, (_start, end, number) in enumerate(spans):
        stop = spans[i + 1][0] if i + 1 < len(spans) else len(text)
        listed = tuple(e for e in (evidence.pr(n) for n in runs[i]) if e is not None)
        own = evidence.pr(number)
        if len(listed) > 1:  # "#7477、#7488 与 #7492 围绕…": said of every PR of the list
            parts.append(Segment(text[end:stop], listed))
            continue
        # "#A reverts #B, removing …", "#A fixes #B, …, and makes X a default": what follows
        # #B may be said of #A, which reverts or fixes it
        reverting = [
            e
            for e in every
            if any(
                r.rule in _UNDOING and (r.later, r.earlier) == (e.number, number)
                for r in evidence.relations
            )
        ]
        parts.append(Segment(text[end:stop], (own, *reverting) if own else every))
    return parts


# what stands between two PRs of one list: "#1、#2", "#1, #2 and #3", "#1 与 #2"
_LIST_GAP = re.compile(r"\s*(?:[,、，/]\s*(?:and\s+|or\s+)?|and|or|与|和|及|或)?\s*", re.IGNORECASE)


def _listed_runs(text: str, spans: Sequence[tuple[int, int, int]]) -> list[list[int]]:
    """For each PR reference, the PRs of the list it closes (itself alone when the next
    reference does not continue the list)."""
    runs: list[list[int]] = []
    for i, (start, _end, number) in enumerate(spans):
        previous = spans[i - 1] if i else None
        joined = previous is not None and _LIST_GAP.fullmatch(text, previous[1], start)
        runs.append([*runs[-1], number] if joined else [number])
    return [
        run if i + 1 == len(spans) or len(runs[i + 1]) == 1 else [run[-1]]
        for i, run in enumerate(runs)
    ]


def found_in(term: str | re.Pattern[str], where: str) -> bool:
    """A concept, or a name as a whole token (`foo_moe` is not in `foo_moe_for_vllm10`; a
    folder `a/b/` is in `a/b/c.py`)."""
    if isinstance(term, re.Pattern):
        return term.search(where) is not None
    if term not in where:
        return False
    # a folder (`tests/special_sanity/`) is in the paths under it
    after = "" if term.endswith("/") else r"(?![\w])"
    return re.search(rf"(?<![\w]){re.escape(term)}{after}", where) is not None


def entity_reasons(segment: Segment, words: Glossary, week_text: str) -> list[str]:
    """Each concept the segment names must occur in its PRs' evidence (when it rests on no PR:
    in the week's titles, modules, categories or paths)."""
    reasons = []
    # a snake_case name unquoted (`ppo_micro_batch_size_per_gpu`) is a name, which the
    # identifier rule checks, not the concept (GPU) a part of it spells
    text = _SNAKE_NAME.sub(lambda m: " " * len(m.group(0)), claims.without_code(segment.text))
    named = words.concepts_in(text)
    for name, said in named.items():
        concept = words.concepts[name]
        if segment.prs and not _counted_bucket(text, said, concept, week_text):
            ok = any(
                found_in(concept, e.about) or _in_code(concept, e.added + "\n" + e.removed)
                for e in segment.prs
            )
        else:
            ok = found_in(concept, week_text)
        if not ok:
            reasons.append(f"entity: {said}")
        elif segment.prs and _swapped(name, set(named), segment.prs, words):
            reasons.append(f"entity: {said} (the PR is about another of its kind)")
    return reasons


# "megatron for 9", "megatron 9 个", "megatron 模块有 9 个": a count said of what the name names
_BUCKET_COUNT = re.compile(r"\s*(?:模块|module)?\s*(?:for|with|has|had|有|共)?\s*\d+\b", re.I)


def _counted_bucket(text: str, said: str, concept: str | re.Pattern[str], week_text: str) -> bool:
    """ "Trainer and ci account for 10 PRs each, megatron for 9": a name with its count is one
    of the week's buckets, not a matter of the PRs the sentence lists."""
    at = text.find(said)
    if at < 0 or _BUCKET_COUNT.match(text, at + len(said)) is None:
        return False
    return any(found_in(concept, line) for line in week_text.splitlines() if " " not in line)


def _in_code(concept: str | re.Pattern[str], lines: str) -> bool:
    """The concept in its code spelling on a changed line (`update_weights`, `sync_weights`):
    a code name shows what the PR works on; a plain word in a comment or a string may not."""
    if isinstance(concept, str):
        return found_in(concept, lines) and "_" in concept
    return any("_" in match.group(0) for match in concept.finditer(lines))


def _swapped(name: str, named: set[str], prs: tuple[PREvidence, ...], words: Glossary) -> bool:
    """`name` said of PRs whose titles name other members of its group, none of which the
    sentence names: SGLang said of a vLLM PR whose body mentions SGLang in passing."""
    members = words.group_members(name)
    for e in prs:
        titled = {m for m in members if found_in(words.concepts[m], e.headline)}
        if not titled or name in titled or titled & named:
            return False
    return True


def _objects(window: str, words: Glossary) -> list[str | re.Pattern[str]]:
    """The named things in the words after a verb: identifiers and concepts."""
    named: list[str | re.Pattern[str]] = [t.lower() for t in claims.identifiers(window)]
    # `ActorRolloutRefWorker.get_zeromq_address`: the method is what the diff defines
    named += [m.lower() for m in _MEMBER.findall(window)]
    named += [words.concepts[n] for n in words.concepts_in(claims.without_code(window))]
    return named


def _side_ok(action: str, term: str | re.Pattern[str], e: PREvidence) -> bool | None:
    """Whether the diff's sides agree with `action` on `term` (None: they don't say)."""
    added, removed = found_in(term, e.added), found_in(term, e.removed)
    if added == removed:
        return None  # on both sides (changed) or on neither: the diff does not say
    return added if action == "add" else removed


def _advised(text: str, start: int, words: Glossary) -> bool:
    """A verb after "should", "请", "建议": what a reader should do, not what a PR did."""
    return words.word("modal").search(text[max(0, start - MODAL_REACH) : start]) is not None


# a verb's bare form opening a sentence ("Add tests covering …"): an imperative, what a reader
# should do; a PR's action is told with its subject or as "Adds …"
_IMPERATIVE = re.compile(r"\s*[A-Z][a-z]+(?<![^s]s)(?<!ed)(?<!ing)\Z")


# "Point users to X and resolve the references": a bare verb joined to the opening one
_JOINED_BARE = re.compile(r"(?:\band|,|;)\s+$")
_BARE = re.compile(r"[a-z]+(?<![^s]s)(?<!ed)(?<!ing)")


def _imperative(text: str, match: re.Match[str]) -> bool:
    """The action verb `match` is the imperative the sentence opens with, or a bare verb
    joined to it."""
    if _IMPERATIVE.match(text[: match.end()]) is not None:
        return True
    opening = re.match(r"\s*[A-Za-z]+", text)
    return (
        opening is not None
        and _IMPERATIVE.match(opening.group(0)) is not None
        and _BARE.fullmatch(match.group(0)) is not None
        and _JOINED_BARE.search(text[: match.start()]) is not None
    )


def _flipped(action: str, objects: list[str | re.Pattern[str]], e: PREvidence) -> bool | None:
    """For a named setting the diff flips: whether it flips the way `action` says."""
    keys = [o for o in objects if isinstance(o, str) and o in e.settings]
    if not keys:
        return None
    on = action == "enable"
    for key in keys:
        old, new = e.settings[key]
        if (new & _TRUE and old & _FALSE) if on else (new & _FALSE and old & _TRUE):
            return True
    return False


def _renamed(objects: list[str | re.Pattern[str]], e: PREvidence) -> bool:
    """ "renames `inference` to `rollout`": one name only on removed lines, another only on
    added ones."""
    names = [o for o in objects if isinstance(o, str)]
    return any(_side_ok("remove", n, e) for n in names) and any(
        _side_ok("add", n, e) for n in names
    )


def _action_ok(action: str, objects: list[str | re.Pattern[str]], e: PREvidence) -> bool:
    if action in ("enable", "disable"):
        flipped = _flipped(action, objects, e)
        if flipped is not None:
            return flipped
        return action in e.said_actions
    if action == "rename" and _renamed(objects, e):
        return True
    if action == "move" and not any(isinstance(o, str) and _FILE_LIKE.search(o) for o in objects):
        return True  # "moves replica acquisition to 1 RPC": no file or module is said to move
    if action in ("add", "remove") and objects:
        sides = [_side_ok(action, term, e) for term in objects]
        if True in sides:  # "adds uv support for vllm and megatron": a concept (vLLM) may
            # stand on either side of a diff beside a thing that is added; a name may not
            sides = [
                None if side is False and not isinstance(term, str) else side
                for side, term in zip(sides, objects, strict=True)
            ]
        if False in sides:
            return False
        if True in sides:
            return True
        # named, but on neither side of the diff: the PR's own words must say so (a revert
        # removes what the reverted PR added, and puts back what it removed)
        return action in e.said_actions or "revert" in e.actions
    if action in ("add", "remove") and "revert" in e.actions:
        return True
    return action in e.actions


def _after(text: str, start: int) -> str:
    """About OBJECT_CHARS of `text` from `start`, not cutting a name in two."""
    end = start + OBJECT_CHARS
    rest = _NAME_TAIL.match(text, end)
    return text[start : rest.end() if rest else end]


# "新增的行", "the lines #5018 added.": what a diff adds, not a named thing
_LINES_OBJECT = re.compile(r"\s*(?:的\s*)?(?:代码\s*)?行|\s*(?:lines?|code)\s*(?=[,.;]|$)", re.I)


def _added_lines(
    match: re.Match[str], after: str, segment: Segment, evidence: PeriodEvidence
) -> list[str] | None:
    """An add that names no thing of the PR's own (None: another add): "改写了 #5018 新增的行"
    (the lines its diff adds) or "改写了此前新增 X 的代码" (added by an earlier PR, which the
    cited one rewrites, fixes or reverts)."""
    said = match.group(0)
    if _LINES_OBJECT.match(after):
        if any(e.changed[1] for e in segment.prs):
            return []
        return [f"action: {said} (#{segment.prs[0].number} adds no line)"]
    if not claims.earlier_doing(match.string, match.start()):
        return None
    if any(r.later == e.number for e in segment.prs for r in evidence.relations):
        return []
    return [f"action: {said} (no earlier PR it reworks was found)"]


def _reverted(number: int, evidence: PeriodEvidence) -> bool:
    return any(r.earlier == number and r.rule == "revert" for r in evidence.relations)


# "the reverts of #4226, #4251 and #4233": the action named as a noun, said of what it befell
_NOUN_BEFORE = re.compile(r"\b(?:the|its|their|these|those)\s+$", re.IGNORECASE)
_OF_AFTER = re.compile(r"\s+of\b", re.IGNORECASE)


_PR_LIST = re.compile(r"\s+of\s+((?:#\d+(?:\s*,\s*|\s+and\s+|\s*,\s*and\s+)?)+)")


def _noun_of(text: str, match: re.Match[str]) -> bool:
    return bool(_NOUN_BEFORE.search(text, 0, match.start()) and _OF_AFTER.match(text, match.end()))


def befallen_reasons(text: str, evidence: PeriodEvidence) -> list[str]:
    """ "the reverts of #A and #B": each PR listed after the revert noun was reverted."""
    reasons = []
    for match in glossary().actions["revert"].pattern.finditer(text):
        listed = _PR_LIST.match(text, match.end()) if _noun_of(text, match) else None
        numbers = [int(n) for n in re.findall(r"#(\d+)", listed.group(1))] if listed else []
        reasons += [
            f"action: {match.group(0)} (no revert of #{n} was found)"
            for n in numbers
            if not _reverted(n, evidence)
        ]
    return reasons


def action_reasons(segment: Segment, words: Glossary, evidence: PeriodEvidence) -> list[str]:
    """What the segment says its PRs do must be what their words or diff show."""
    if not segment.prs:
        return []
    text = segment.text
    reasons = []
    for name, action in words.actions.items():
        if name == "default":
            continue
        for match in action.pattern.finditer(text):
            after = _after(text, match.end())
            if (
                _SIZE_AFTER.match(after)
                or _advised(text, match.start(), words)
                or _imperative(text, match)
            ):
                continue
            if _noun_of(text, match):
                continue  # "the reverts of #A": befallen_reasons checks the PRs named after
            if _PASSIVE_BEFORE.search(text[max(0, match.start() - MODAL_REACH) : match.start()]):
                # "re-applies the fix that was reverted": a revert found, or the PR's own words
                if name == "revert" and not any(
                    _reverted(e.number, evidence) or "revert" in e.said_actions for e in segment.prs
                ):
                    reasons.append(f"action: {match.group(0)} (no revert of it was found)")
                continue  # "was removed", "被删除": said of a thing, not of what the PR did
            if _COUNT_AFTER.match(after):
                continue  # "从 1 个增加到 2 个": counts compared (comparison_reasons checks them)
            reasons += _said_action_reasons(name, match, after, segment, evidence)
    return list(dict.fromkeys(reasons))


# "restores the correct epoch": a state put right, not code put back
_RESTORE = re.compile(r"restor\w*|恢复", re.IGNORECASE)


def _said_action_reasons(
    name: str, match: re.Match[str], after: str, segment: Segment, evidence: PeriodEvidence
) -> list[str]:
    """Whether the PRs' words or diff show the action the verb `match` says, on its object."""
    lines = _added_lines(match, after, segment, evidence) if name == "add" else None
    if lines is not None:
        return lines
    words = glossary()
    window = _object_window(after)
    objects = _objects(window, words) or _keys_named(window, segment.prs)
    if (
        not objects
        and _RESTORE.fullmatch(match.group(0))
        and any("fix" in e.actions for e in segment.prs)
    ):
        return []  # "restores the correct epoch": what a fix does
    if any(_action_ok(name, objects, e) for e in segment.prs) or (
        name in ("enable", "disable") and _switch_set(name, window, segment.prs)
    ):
        return []
    return [f"action: {match.group(0)} ({_action_missing(name, objects, segment.prs)})"]


# a boolean key a changed line sets: `"use_precision_aware_optimizer": True,`, `flag = false`
_BOOL_KEY = re.compile(r"^\s*[\"']?([a-z_][\w.]*)[\"']?\s*[:=]\s*([a-z0-9]+)\s*,?\s*$")
_SWITCH_PREFIX = ("use_", "enable_", "with_")


def _key_said(key: str, words: set[str]) -> bool:
    """Whether the sentence's words name `key`: a part of it, or the initials of its parts
    ("PAO" for `use_precision_aware_optimizer`)."""
    last = key.rsplit(".", 1)[-1]
    bare = next((last[len(p) :] for p in _SWITCH_PREFIX if last.startswith(p)), last)
    parts = [p for p in bare.split("_") if p]
    initials = "".join(p[0] for p in parts)
    return bare in words or (len(initials) >= 2 and initials in words)  # noqa: PLR2004


def _switch_set(action: str, window: str, prs: Sequence[PREvidence]) -> bool:
    """ "启用 PAO", "enables the FP8 path": a PR whose diff sets a key the words name to on
    (off for disable) on one side only (a new switch, not a flip `settings` knows)."""
    words = set(re.findall(r"[a-z][a-z0-9_]*", window.lower()))
    wanted = _TRUE if action == "enable" else _FALSE
    for e in prs:
        removed = {m.group(1) for line in e.changed[0] if (m := _BOOL_KEY.match(line.lower()))}
        for line in e.changed[1]:
            found = _BOOL_KEY.match(line.lower())
            new = found is not None and found.group(1) not in removed
            if new and found and found.group(2) in wanted and _key_said(found.group(1), words):
                return True
    return False


def _object_window(after: str) -> str:
    """The words after a verb that name its object: up to the clause's end or the means."""
    end = _CLAUSE_END.search(after)
    window = after[: end.start()] if end else after
    means = _MEANS.search(window)
    return window[: means.start()] if means else window


def _keys_named(window: str, prs: Sequence[PREvidence]) -> list[str | re.Pattern[str]]:
    """The plain words of `window` that a cited PR's changed lines set as keys ("removes the
    push trigger": `push:` on removed lines), each as the pattern of that key."""
    out: list[str | re.Pattern[str]] = []
    for word in dict.fromkeys(_PLAIN_WORD.findall(window.lower())):
        key = re.compile(rf"^\s*[\"']?{re.escape(word)}[\"']?\s*:", re.MULTILINE)
        if any(key.search(e.added) or key.search(e.removed) for e in prs):
            out.append(key)
    return out


def _action_missing(
    action: str, objects: list[str | re.Pattern[str]], prs: Sequence[PREvidence]
) -> str:
    """The fact the data lacks for `action` said of `prs`, in words."""
    where = ", ".join(f"#{e.number}" for e in prs)
    names = [o for o in objects if isinstance(o, str)]
    if action in ("add", "remove") and names:
        other = "removed" if action == "add" else "added"
        for name in names:
            sides = [_side_ok(action, name, e) for e in prs]
            if False in sides and True not in sides:
                return f"`{name}` is on {other} lines only of {where}"
        shown = ", ".join(f"`{n}`" for n in names[:3])
        return f"{shown} on neither side of {where}'s diff, and its words tell no {action}"
    return f"{where}'s title, body and diff show no {action}"


def default_reasons(segment: Segment, words: Glossary) -> list[str]:
    """A changed default: the PR says so, or changes the setting the segment names; each value
    it names stands beside that setting or the word "default" in the PR; on/off agrees with
    the setting's flip. Each clause telling a default is judged ("默认 x 为 0.2，并默认开启 y")."""
    for found, window in _default_claims(segment, words):
        if reasons := _default_reasons_at(segment, found, window, words):
            return reasons
    return []


def _default_reasons_at(
    segment: Segment, found: re.Match[str], window: str, words: Glossary
) -> list[str]:
    """The reasons the default told by the word `found` (its clause `window`) is not true."""
    lowered = segment.text.lower()
    values = [f.values for f in claims.figures(window) if f.kind == "plain"]
    values += [frozenset({v.lower()}) for v in _NEW_VALUE.findall(window)]
    # "`model_dump(exclude_unset=True)` 会漏掉默认的 …": a value in code is no on/off claim
    blanked = _CALL_CODE.sub(lambda m: " " * len(m.group(0)), lowered)
    clause = _clause(blanked, found.start(), found.end())
    flips = [folded(m.group(0), clause[: m.start()]) for m in _BOOL_WORDS.finditer(clause)]
    # the argument may be named in the clause before: "新增 x 参数，默认值为 False"
    reach = lowered[max(0, found.start() - OBJECT_CHARS) : found.end() + OBJECT_CHARS]
    args = [a for a in _ARG_NAME.findall(reach) if len(a) > 2]  # noqa: PLR2004
    named = claims.identifiers(segment.text)
    old = _USED_TO.search(window) is not None
    by_code = _state_by_code(found.group(0), old, (reach, window), flips, segment.prs)
    if by_code is not None:
        return by_code
    in_code = not flips and _code_defaults_said(lowered, found.start(), window, segment.prs)
    for e in segment.prs:
        if (
            in_code
            or _argument_defaults(args, values, flips, e)
            or _option_default(args, window, values, e)
        ):
            return []
        if old and _old_told(args, values, window, e):
            return []
        keys = [k for k in e.settings if len(k) > 3 and _names(k, lowered)]  # noqa: PLR2004
        if not values and not flips and e.settings and _files_named(named, e):
            # "reward defaults": no value nor name said, or "VeOmni 默认" of a PR that changes
            # values in veomni.yaml: the PR changes values
            return []
        if not keys and values and not flips and _new_values(values, e):
            return []  # "now defaults to VisualRewardManager": a setting's new value in the diff
        if not keys and "default" not in e.said_actions:
            continue
        stated = all(any(_value_set(v, keys, e) for v in value) for value in values)
        if stated and all(_flip_backed(flip, e, keys) for flip in flips):
            return []
    said = _default_missing(values, flips, claims.identifiers(window), segment.prs)
    return [f"default: {found.group(0)} ({said})"]


# a value told as the old default: "由 256 改为", "from 1 to 2", "删除了 … 的 -1 默认项"
_OLD_BEFORE = re.compile(
    r"(?:\bfrom|\bwas|\bused to|\bformerly|\bpreviously|\binstead of"
    r"|由|从|原为|原来|此前|之前|不再)\W{0,3}$",
    re.IGNORECASE,
)
_OLD_AFTER = re.compile(
    r"^\W{0,3}(?:→|->|to\b|改为|改成|变为|换成|更正为|修正为)"
    r"|^[^，,。;；]{0,8}?(?:被|已被|is |was |are |were )?(?:删除|移除|去掉|remov|drop|delet)",
    re.IGNORECASE,
)
# an old default the clause speaks of: "the old X default", "旧的默认值", "删除了 X 的默认项"
_OLD_DEFAULT = re.compile(
    r"\b(?:old|previous|former|earlier)\b|旧|原有|\b(?:remov|drop|delet)\w*|删除|删去|移除|去掉|不再",
    re.IGNORECASE,
)
_ADDED_AFTER = re.compile(r"\b(?:adds?|added|new)\b|新增|加入|引入", re.IGNORECASE)
# "an empty string by default", "默认为空字符串": the value ""
_EMPTY = re.compile(r"\bempty string\b|空字符串|空串")


@dataclass(frozen=True)
class _SaidDefault:
    """A value a clause gives a default, as compared: whether it is told as the old one, and
    the name said last before it in the clause ("" when none)."""

    value: str
    old: bool
    key: str


def _said_defaults(window: str, before: str, lead: str) -> list[_SaidDefault]:
    """Each value the clause gives a default (`before`: the sentence's words before its
    default word, in the same clause; `lead`: all its words before the clause)."""
    olds = list(_OLD_DEFAULT.finditer(before))
    all_old = bool(olds) and not _ADDED_AFTER.search(before, olds[-1].end())
    found: list[tuple[str, bool, int]] = []
    for figure in claims.figures(window):
        if figure.kind != "plain":
            continue
        start = window.find(figure.text)
        signed = start > 0 and window[start - 1] == "-"
        end = start + len(figure.text)
        told_old = (
            all_old
            or _OLD_BEFORE.search(window[: start - signed]) is not None
            or _OLD_AFTER.search(window[end:]) is not None
        )
        found.append((compared(("-" if signed else "") + figure.text), told_old, start))
    found += [(compared(m.group(1)), all_old, m.start(1)) for m in _NEW_VALUE.finditer(window)]
    empty = _EMPTY.search(window)
    found += [("", all_old, empty.start())] if empty else []
    return [_SaidDefault(v, old, _key_before(lead + window[:at])) for v, old, at in found]


def _key_before(text: str) -> str:
    names = [m for m in claims.identifiers(text) if not _FILE_LIKE.search(m)]
    if not names:
        return ""
    last = max(names, key=text.rfind)
    return last.lower().strip("`").rsplit(".", 1)[-1]


def _code_defaults_said(text: str, at: int, window: str, prs: Sequence[PREvidence]) -> bool:
    """ "reads max_concurrent with a default of 1", "新增 x（默认空字符串）", "the old x default
    of [0, 5]": each value the clause gives is a default the code of a cited PR gives the name
    said last before it (`.get("max_concurrent", 1)`, `x: str = ""`, `${X:-256}`, `x: null`
    in a config file), on the added lines, or on the removed ones for a value told as old."""
    before = text[:at]
    clause = before[max(before.rfind(c) for c in _SENTENCE_CUTS) + 1 :]
    said = _said_defaults(window, clause, text[: max(0, text.find(window))])
    for e in prs if said else ():
        new, old = code_defaults.defaults(e.files, "+"), code_defaults.defaults(e.files, "-")
        if all(
            code_defaults.holds(d.value, (old if d.old else new).get(d.key, set())) for d in said
        ):
            return True
    return False


_SENTENCE_CUTS = "，。；;！？!?"


# "the default collate function": the word names a thing, it tells no setting's value
# ("makes X the default backend", "keeps X as the default" do claim a default)
_ATTRIBUTIVE = re.compile(
    r"\bfall(?:s|ing)? back to\s+(?:the\s+|its\s+)?(?:[\w-]+\s+)?default\s+(?!value)[a-z]"
)
# "which used to default to 1e-4": the value a removed line held
# "被删除的 chat_model.py 中 tool_parser 默认为 hermes": the default of what was removed is old
_USED_TO = re.compile(
    r"\bused to\b|\bpreviously\b|\bformerly\b|\b(?:removed|deleted)\b|原先|原来|此前|之前"
    r"|(?:删除|删去|移除)的"
)


# "默认为 hermes", "defaults to hermes": a word as the value (no figure)
_DEFAULT_IS = re.compile(
    r"(?:默认(?:值)?(?:为|是)|\bdefault(?:s|ed)? (?:to|is|was)\b)\s*`?([A-Za-z_][\w.\-]*)", re.I
)


def _default_words(window: str) -> list[frozenset[str]]:
    return [frozenset({v.lower()}) for v in _DEFAULT_IS.findall(window)]


# "成为默认依赖并从 0.1.6 升到 0.1.7", "a default dependency and bumps it from 0.1.6 to 0.1.7": a
# change of its own joined after the default, whose values are not the default's
_JOINED_CHANGE = re.compile(r"(?:并且?|同时|\band\b)\s*(?:[a-z]+\s+)?(?:it\s+)?(?:从|由|\bfrom\b)")


def _own_change(window: str, rest: str) -> str:
    """`window` up to a change joined after the default word (`rest`: the text from it)."""
    joined = _JOINED_CHANGE.search(rest)
    if joined is None:
        return window
    at = window.find(rest[: joined.start()])
    return window[: at + joined.start()] if at >= 0 else window


_OTHER_STATE = "the code of the cited PRs gives the setting the other state"


def _state_by_code(
    said: str, old: bool, texts: tuple[str, str], flips: list[str], prs: Sequence[PREvidence]
) -> list[str] | None:
    """ "默认即启用" of a switch the added code gives False: the reasons, or None when the code
    gives no state to the names said (`texts`: the words near the default word, its clause)."""
    if old:
        return None
    verdict = code_verdict(*texts, flips, prs)
    return None if verdict is None else [] if verdict else [f"default: {said} ({_OTHER_STATE})"]


def _default_claims(segment: Segment, words: Glossary) -> list[tuple[re.Match[str], str]]:
    """Each default word of a segment citing PRs with its clause, when it tells a default (one
    word a clause)."""
    if not segment.prs:
        return []
    lowered = segment.text.lower()
    claims_told: list[tuple[re.Match[str], str]] = []
    for found in words.actions["default"].pattern.finditer(segment.text):
        clause = _clause(lowered, found.start(), found.end())
        if claims_told and _clause(lowered, *claims_told[-1][0].span()) == clause:
            continue
        window = _own_change(clause, lowered[found.start() :])
        if _no_default_claim(window, lowered[found.start() : found.end()], words):
            continue
        if not _default_noun_said(lowered, found.end(), segment.prs):
            claims_told.append((found, window))
    return claims_told


# "a default dependency": the word names a kind of thing, not a setting's value
_DEFAULT_NOUN = re.compile(
    r"\s+(?!(?:to|of|is|was|are|value|values|in|for|on|at|by)\b)([a-z]{3,})\b"
)


def _default_noun_said(lowered: str, end: int, prs: Sequence[PREvidence]) -> bool:
    """ "makes TransferQueue a default dependency" of a PR whose words say "default
    dependency": the thing it names, in the PR's own words, tells no setting's value."""
    noun = _DEFAULT_NOUN.match(lowered, end)
    return noun is not None and any(f"default {noun[1]}" in e.text for e in prs)


def _no_default_claim(window: str, said: str, words: Glossary) -> bool:
    """The default word tells no setting's default: advice ("建议改为显式参数或提供默认值")
    or a thing named ("falls back to the upstream default collate function")."""
    if words.word("modal").search(window[: window.find(said)]):
        return True
    valued = claims.figures(window) or _NEW_VALUE.search(window)  # "sets the default X to sync"
    return _ATTRIBUTIVE.search(window) is not None and not valued


def _files_named(names: list[str], e: PREvidence) -> bool:
    """Each name is the stem of a file in which the PR gives a setting another value (none
    named: true)."""
    stems = {
        path.rsplit("/", 1)[-1].split(".", 1)[0].lower()
        for path, old, new in e.files
        if changed_settings(old, new)
    }
    return all(n.lower() in stems for n in names)


def _old_told(args: list[str], values: list[frozenset[str]], window: str, e: PREvidence) -> bool:
    """A default told as the old one stands on the removed lines: each figure beside an
    argument, or each word the value a removed line sets ("被删除的 chat_model.py 中
    tool_parser 默认为 hermes")."""
    if values:
        return _old_defaults(args, values, e)
    return _old_settings(args, _default_words(window), e)


def _old_settings(args: list[str], values: list[frozenset[str]], e: PREvidence) -> bool:
    """Each value is what a removed line sets an argument of the clause to
    (`tool_parser: str = "hermes"`)."""
    sets = {found for line in e.changed[0] if (found := line_setting(line))}
    return bool(values) and all(
        any((a.lower(), compared(v)) in sets for a in args for v in value) for value in values
    )


def _old_defaults(args: list[str], values: list[frozenset[str]], e: PREvidence) -> bool:
    """Each value stands on a removed line that names an argument of the clause."""
    lines = [line.lower() for line in e.changed[0]]
    return all(
        any(
            any(a in line for a in args)
            and re.search(rf"(?<![\w.-]){re.escape(v)}(?![\w.])", line) is not None
            for line in lines
            for v in value
        )
        for value in values
    )


def _new_values(values: list[frozenset[str]], e: PREvidence) -> bool:
    """Each value is the new value of a setting the PR's diff changes (and none an old one)."""
    new = {v for _old, after in e.settings.values() for v in after}
    old = {v for before, _new in e.settings.values() for v in before}
    return all(value & new and not value & old for value in values)


def _default_missing(
    values: list[frozenset[str]], flips: list[str], names: list[str], prs: Sequence[PREvidence]
) -> str:
    """What the data lacks for a default claim, in words."""
    where = ", ".join(f"#{e.number}" for e in prs)
    said = [sorted(v)[0] for v in values] + flips
    if said:
        named = ", ".join(names[:3]) or "a setting"
        return f"no changed line of {where} gives {named} the default {', '.join(said)}"
    return f"{where} changes no setting's value and its words tell no default"


# `default=-1`, `default: 8`, `"default": "x"` on a line that names the option
# or a shell variable's fallback, `rollout_n=${{ROLLOUT_N:-4}}`
_OPTION_DEFAULT = (
    r"""\bdefault["']?\s*[=:]\s*["']?{sign}{value}(?![\w.])"""
    r"""|\$\{{\w+:[-=]{sign}{value}\}}"""
)


def _option_default(
    args: list[str], window: str, values: list[frozenset[str]], e: PREvidence
) -> bool:
    """ "--train_size 与 --val_size 默认值均为 -1": each value is the `default` of an option
    the clause names, on an added line naming it (`add_argument("--train_size", …,
    default=-1)`)."""
    if not values or not args:
        return False
    lines = [line.lower() for line in e.changed[1]]
    named = [a for a in args if any(a in line for line in lines)]
    if not named:
        return False
    for value in values:
        for option in named:
            ok = any(
                option in line
                and re.search(
                    _OPTION_DEFAULT.format(
                        sign="-" if f"-{v}" in window else "(?<!-)", value=re.escape(v)
                    ),
                    line,
                )
                for v in value
                for line in lines
            )
            if not ok:
                return False
    return True


def _argument_defaults(
    args: list[str], values: list[frozenset[str]], flips: list[str], e: PREvidence
) -> bool:
    """ "acquire 默认消耗 num_tokens=1.0", "新增 use_fp8_padding 参数，默认值为 False": each value
    the clause names is the default of an argument it names, on an added line of the diff
    (`num_tokens: float = 1.0`); a clause naming no value needs a named argument that has a
    default there ("pop takes a key with a default": `def pop(self, key, default=None)`)."""
    said = [*values, *(frozenset({f}) for f in flips)]
    signatures = [
        rf"(?<![\w.]){re.escape(arg)}\s*(?::[^=,()\n]{{1,40}})?=\s*['\"]?" for arg in args
    ]
    if said:
        code = _code_added(e)  # a test's `rollout_n=1` sets no default
        return all(
            any(
                _in_signature(sig + rf"{re.escape(v)}(?![\w.])", code)
                or _yaml_default(arg, v, code)
                for arg, sig in zip(args, signatures, strict=True)
                for v in value
            )
            for value in said
        )
    named = {i.lower() for i in claims.identifiers(" ".join(args))}
    return any(
        re.search(rf"\bdef {re.escape(arg)}\([^\n]*\bdefault\b", e.added, re.IGNORECASE)
        or (arg in named and _in_signature(sig, e.added))
        for arg, sig in zip(args, signatures, strict=True)
    )


def _code_added(e: PREvidence) -> str:
    """The PR's added lines outside its tests and generated copies (all of them when it has
    no file list)."""
    if not e.files:
        return e.added
    return "\n".join(
        line for path, _old, added in e.files if not TEST_PATH.search(path) for line in added
    ).lower()


def _yaml_default(key: str, said: str, added: str) -> bool:
    """ "lora 配置中 alpha 默认 32": an added line of a config gives the key that value
    (`alpha: 32`), the value a new key starts with."""
    line = rf"^\s*{re.escape(key)}:\s*['\"]?{re.escape(said)}['\"]?\s*(?:#.*)?$"
    return re.search(line, added, re.MULTILINE | re.IGNORECASE) is not None


def _in_signature(pattern: str, added: str) -> bool:
    """`pattern` on an added line of a definition (`def f(x=1)`, or a parameter line of one),
    not in a call (`f(check_device=False)` passes a value; it sets no default)."""
    for match in re.finditer(pattern, added, re.IGNORECASE):
        line = added[added.rfind("\n", 0, match.start()) + 1 : match.start()]
        if re.search(r"\bdef\s", line) or not re.search(r"\w\(", line):
            return True
    return False


def _value_set(value: str, keys: list[str], e: PREvidence) -> bool:
    """`value` is a new value of a named setting, or stands near "default" in the PR's words or
    on an added line."""
    # a pin "==0.1.7" parses as the value "=0.1.7": its version is the value
    if any(value in (v.strip().lstrip("=<>~!") for v in e.settings[k][1]) for k in keys):
        return True
    token = rf"(?<![\w.]){re.escape(value)}(?![\w.])"
    near = (
        rf"default(?:\s+value)?\s*(?:is|of|to|=|:)\s*\W?{token}"
        rf"|{token}\W{{1,3}}(?:\w+\W{{1,3}}){{0,2}}by default"
    )
    return any(re.search(near, side) for side in (e.text, e.added))


def _clause(text: str, start: int, end: int) -> str:
    """The clause around text[start:end], at most OBJECT_CHARS either side."""
    first = max(0, start - OBJECT_CHARS)
    before = text[first:start]
    if first and _NAME_CHAR.match(text, first - 1):  # not half a name ("2av_data.py")
        before = _PARTIAL_NAME.sub("", before, count=1)
    cuts = list(_CLAUSE_END.finditer(before))
    before = before[cuts[-1].end() :] if cuts else before
    after = text[end : end + OBJECT_CHARS]
    cut = _CLAUSE_END.search(after)
    return before + text[start:end] + (after[: cut.start()] if cut else after)


def _names(key: str, text: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(key)}(?![\w])", text) is not None


def _flip_backed(word: str, e: PREvidence, keys: list[str]) -> bool:
    """ "On by default" / "默认关闭": a named setting flips that way, or the PR's words say so."""
    on = word in ("true", "on", "开启", "启用")
    for key in keys:
        old, new = e.settings[key]
        if (new & _TRUE and old & _FALSE) if on else (new & _FALSE and old & _TRUE):
            return True
    return ("enable" if on else "disable") in e.said_actions and "default" in e.said_actions


# a fix noun right after the failure it fixes: "OOM fix", "崩溃修复"
_FIX_AFTER = re.compile(r"\s*(?:fix(?:es)?\b|修复)", re.IGNORECASE)


def fixes_it(text: str, prs: Sequence[PREvidence], words: Glossary) -> bool:
    """The sentence says a fix PR fixes the failure it names: a fix word comes first, with no
    "but" between it and the failure."""
    fix = words.word("fix_framing").search(text)
    if fix is None or not any("fix" in e.actions for e in prs):
        return False
    failure = words.word("failure").search(text, fix.end())
    failure = failure or words.word("leak").search(text, fix.end())
    first = words.word("failure").search(text)
    if first is not None and _FIX_AFTER.match(text, first.end()) and fix.start() > first.start():
        return True  # "Checkpoint OOM fix", "OOM 修复": the failure named by its fix
    if first is not None and first.start() < fix.start():
        return False  # "breaks X, then fixes Y": the failure is said first
    return failure is None or not _CONTRAST.search(text, fix.end(), failure.start())


# the name a verb is followed by: "exposes training/rollout_corr", "exposes the new `x_y`"
_NAME_AFTER = re.compile(r"\s+(?:(?:the|a|an|new)\s+)*`?([\w.-]*[_/.][\w./-]*\w)")


def _exposes_own_name(text: str, end: int, prs: Sequence[PREvidence]) -> bool:
    """ "exposes training/rollout_actor_probs_pearson_corr": a name of the cited PRs' data
    (a metric their body lists, a function they add) made reachable, no secret leaked."""
    name = _NAME_AFTER.match(text, end)
    return name is not None and any(found_in(name[1].lower(), e.names) for e in prs)


def failure_reasons(segment: Segment, evidence: PeriodEvidence) -> list[str]:
    """A failure or revert word needs a risk, failing check, revert or follow-up fix on one of
    the segment's PRs, unless the segment says the PR fixes it."""
    if not segment.prs:
        return []
    words = glossary()
    text = words.word("not_failure").sub(" ", claims.without_code(segment.text))
    text = _EXPOSED.sub(lambda m: " " if _added_name(m.group(1), segment.prs) else m.group(0), text)
    urgent = words.word("urgent_revert").search(text)
    if urgent and not any(evidence.followed_up(e.number) for e in segment.prs):
        return [f"failure: {urgent.group(0)}"]
    fixing = fixes_it(text, segment.prs, words)
    for name, kinds in (("breaking", {"breaking", "migration"}), ("leak", {"secret"})):
        found = words.word(name).search(text)
        if found is None or (fixing and name == "leak"):
            continue
        if name == "leak" and _exposes_own_name(text, found.end(), segment.prs):
            continue
        if not any(e.risks & kinds or (name == "breaking" and e.breaking) for e in segment.prs):
            return [f"failure: {found.group(0)}"]
    if _CONDITION.search(text) and any(_RAISE_LINE.search(e.added) for e in segment.prs):
        # "raises an error if diffusers is older than 0.38.0": a check the new code makes
        text = _RAISED.sub(" ", text)
    failed = words.word("failure").search(text)
    if failed is None or fixing or _told_as_fixed(text, failed, segment.prs):
        return []
    # a detector's risk says what may go wrong, not that it did: a failure needs a failing
    # check, a reviewer's concern, or a later revert or fix of the PR
    backed = any(
        e.failing_checks
        or e.reviewed
        or evidence.followed_up(e.number)
        or (_CAUSE.search(text, 0, failed.start()) is not None and _reported(failed.group(0), e))
        for e in segment.prs
    )
    return [] if backed else [f"failure: {failed.group(0)}"]


# "exposes stop_token_ids": a name of the new code made reachable, not a leak
_EXPOSED = re.compile(r"\bexpos(?:es|ed|ing|e)\s+`?([A-Za-z_][\w.]*_[\w.]*)`?", re.IGNORECASE)
_CREDENTIAL_NAME = re.compile(r"token(?!_ids)|secret|passw|credential|api_?key", re.IGNORECASE)


def _added_name(name: str, prs: Sequence[PREvidence]) -> bool:
    """`name` is on the PRs' added lines and names no credential."""
    lowered = name.lower()
    return not _CREDENTIAL_NAME.search(lowered) and any(lowered in e.added for e in prs)


# the failure told as the state before the PR, at the start of a clause ("，此前该路径错误地…",
# "; previously …"; "#400 此前发布的" only dates a thing), or as what the PR itself reports
# ("#6268 指出该缺陷…", "#N notes that …")
_BEFORE = re.compile(
    r"(?:[，,;；。:：]|\bwhile\b)\s*(?:(?:previously|formerly)\b|此前|之前|原先|原来|以前)",
    re.IGNORECASE,
)
_REPORTED = re.compile(
    r"^\s*(?:(?:notes?|reports?|explains?|describes?|points?\s+out)\s+that\b|指出|说明|提到)",
    re.IGNORECASE,
)


def _told_as_fixed(text: str, failed: re.Match[str], prs: Sequence[PREvidence]) -> bool:
    """A fix PR's failure told as the state before it or as the PR's own account of it: the
    bug it fixes, not one it causes."""
    if not any("fix" in e.actions for e in prs):
        return False
    before = text[: failed.start()]
    return _BEFORE.search(before) is not None or _REPORTED.search(before) is not None


# "…, since X caused hangs": the failure told as the reason for the PR, not as its doing
_CAUSE = re.compile(r"\b(?:since|because|as|due to)\b|由于|因为", re.IGNORECASE)


def _reported(word: str, pr: PREvidence) -> bool:
    """The PR's own title or body tells the failure in the sentence's word ("… caused
    multinode rollout hangs" in the body of the PR that works around them), and the sentence
    gives it as the PR's reason."""
    said = "\n".join(pr.body).lower() + "\n" + pr.headline
    word = word.lower()
    if not word.isascii():
        return word in said
    root = _INFLECTION.sub("", word) if len(word) > _SHORT_WORD else word
    return re.search(rf"(?<![\w-]){re.escape(root)}", said) is not None


_INFLECTION = re.compile(r"(?:es|s|ed|ing)$")
_SHORT_WORD = 4
