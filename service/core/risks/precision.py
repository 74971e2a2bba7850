"""Precision and dtype changes: an existing numeric setting or default now has another value.

Rule ``dtype_change``: in a file that existed before the PR (core code or a config definition,
tests and generated copies excluded), a removed line and an added line of the same hunk are the
same statement with a precision value changed:
- a dtype or format literal changes (``torch.float32`` → ``torch.bfloat16``, ``"bf16"`` →
  ``"fp16"``, ``e4m3`` → ``e5m2``), or
- a literal (``True``, a number, a string) changes under a precision setting's name
  (``use_precision_aware_optimizer``, ``param_dtype``, ``use_amp`` …);
or, in Python, a precision setting with a literal value is newly passed into a call or dict the
patch shows as already there (``"use_precision_aware_optimizer": True,``): the library's default
no longer applies. A new ``def`` parameter is not a change: its default keeps the old behaviour.
Not a change: lines of files the PR adds (nothing to compare with), lines it only moves (the same
line removed elsewhere in the PR, whitespace aside), comments and docstrings, and new plumbing
that passes a precision variable through (``use_fp8_padding=use_fp8_padding``).
Severity: medium when the change sits in a config definition, the title is about precision, or
the PR changes 2 or more such settings; low for one change in code.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from difflib import SequenceMatcher

from service.core.models import (
    Evidence,
    EvidenceSide,
    FileChange,
    FileStatus,
    PullRequest,
    Risk,
    RiskKind,
    Severity,
)
from service.core.risks.base import (
    Context,
    Line,
    ParsedPatch,
    RuleSet,
    line_evidence,
    make_risk,
)
from service.core.risks.folding import folded

# words that name a precision setting (matched inside identifiers: `param_dtype`, `enable_fp8`)
SETTING = re.compile(
    r"dtype|autocast|grad_?scaler|mixed_?precision|precision|quantiz|fp8|fp16|bf16|float8|"
    r"float16|(?<![a-z0-9])(?:amp|quant)(?![a-z0-9])",
    re.IGNORECASE,
)
# tokens that are a precision value themselves (a dtype or number format)
VALUES = frozenset(
    {
        *("fp16", "float16", "bf16", "bfloat16", "fp32", "float32", "fp64", "float64", "tf32"),
        *("fp8", "float8", "float8_e4m3fn", "float8_e5m2", "e4m3", "e5m2", "mxfp8"),
        *("int8", "int4", "nf4", "fp4", "mxfp4"),
    }
)
# a line (or title) that mentions precision at all: the cheap filter before comparing lines
MENTIONS = re.compile(
    SETTING.pattern + "|" + "|".join(sorted(VALUES, key=len, reverse=True)), re.IGNORECASE
)
# MENTIONS for lowered text (its words are lower case): on ASCII text, nearly all of it, ignoring
# case is only A-Z against a-z, so lowering the text first gives the same matches. Written so
# that every alternative starts with a letter, which lets the regex engine skip to the places
# where one can match: several times faster over a whole patch.
_MENTIONS_LOWERED = re.compile(
    MENTIONS.pattern.replace(
        "(?<![a-z0-9])(?:amp|quant)(?![a-z0-9])",
        "a(?<![a-z0-9]a)mp(?![a-z0-9])|q(?<![a-z0-9]q)uant(?![a-z0-9])",
    )
)
_TOKEN = re.compile(r"\"[^\"]*\"|'[^']*'|[A-Za-z_]\w*|\d+(?:\.\d+)?(?:[eE]-?\d+)?|\S")
_LITERAL_WORDS = frozenset({"True", "False", "None", "true", "false", "null", "~"})
_COMMENT_START = re.compile(r"\s#")
# a line that only passes one setting: `"name": value,` (a dict entry) or `name=value,`
_PASSED = re.compile(r"""^["']?([A-Za-z_]\w*)["']?\s*[:=]\s*([^\s,#]+|"[^"]*"|'[^']*')\s*,?$""")
_DEF = re.compile(r"^\s*(?:async\s+)?def\s")
_ASSIGN = frozenset({"=", ":"})
_SEPARATORS = frozenset({",", "(", "{", ";"})
_PUNCTUATION = frozenset({",", "(", ")", "[", "]", "{", "}", "-"})
SIMILAR = 0.6
MEDIUM_CHANGES = 2
MAX_PAIRS = 2
CODE_SUFFIXES = (".py", ".yaml", ".yml")


@dataclass(frozen=True)
class Pair:
    """A removed line and the added line that replaces it (no removed line for a setting newly
    passed), with the precision terms involved."""

    path: str
    old: Line | None
    new: Line
    terms: tuple[str, ...]


def _normal(text: str) -> str:
    return "".join(text.split())


def _code(text: str) -> str:
    """The line without a trailing `# comment` (Python and YAML)."""
    stripped = text.strip()
    if stripped.startswith("#"):
        return ""
    if "#" not in text:
        return stripped
    match = _COMMENT_START.search(text)
    if match and text.count('"', 0, match.start()) % 2 == 0:
        return text[: match.start()].strip()
    return stripped


def mentions_precision(text: str) -> bool:
    """Whether the text mentions precision at all (`MENTIONS.search`; the folded text gives the
    same answer, several times faster: `folding`)."""
    return _MENTIONS_LOWERED.search(folded(text)) is not None


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _value(token: str) -> str | None:
    """The precision value a token names (`"bf16"` → bf16), if it names one."""
    word = token.strip("\"'").lower()
    return word if word in VALUES else None


def _is_literal(token: str) -> bool:
    return (
        token in _LITERAL_WORDS
        or token[:1] in "\"'"
        or token[:1].isdigit()
        or _value(token) is not None
    )


def _key_before(tokens: list[str], index: int) -> str:
    """The name assigned at `index`: the identifier before the nearest `=` or `:` to its left,
    past a type annotation (`name: Optional[bool] = True` → name)."""
    for position in range(index - 1, 0, -1):
        if tokens[position] in _ASSIGN:
            break
    else:
        return ""
    for earlier in range(position - 1, 0, -1):
        if tokens[earlier] in _SEPARATORS:
            break
        if tokens[earlier] == ":" and tokens[position] == "=":
            position = earlier
            break
    return tokens[position - 1].strip("\"'")


def _replacements(old: list[str], new: list[str]) -> list[tuple[list[str], list[str], int]]:
    """(old tokens, new tokens, old start) for every part of the line that is replaced."""
    matcher = SequenceMatcher(a=old, b=new, autojunk=False)
    return [
        (old[i1:i2], new[j1:j2], i1)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag == "replace"
    ]


def precision_terms(old: str, new: str) -> tuple[str, ...]:
    """The precision values or settings whose value differs between two versions of a line:
    a literal replaced by another literal, where either is a precision value or the name it is
    assigned to is a precision setting."""
    before, after = _tokens(old), _tokens(new)
    if SequenceMatcher(a=before, b=after, autojunk=False).ratio() < SIMILAR:
        return ()
    found: list[str] = []
    for gone, came, start in _replacements(before, after):
        words = [t for t in (*gone, *came) if t not in _PUNCTUATION]
        if not words or not all(_is_literal(t) for t in words):
            continue
        values = [v for v in map(_value, words) if v]
        key = _key_before(before, start)
        if values:
            found.extend(values)
        elif key and SETTING.search(key):
            found.append(key)
    return tuple(dict.fromkeys(found))


def _opened_by(line: Line, visible: list[Line]) -> Line | None:
    """The line (same hunk, new side) whose open bracket `line` sits in, if the patch shows it."""
    depth = 0
    earlier = [v for v in visible if v.hunk == line.hunk and v.number < line.number]
    for candidate in reversed(earlier):
        code = _code(candidate.text)
        depth += sum(code.count(c) for c in ")]}") - sum(code.count(c) for c in "([{")
        if depth < 0:
            return candidate
    return None


def added_setting(line: Line, visible: list[Line]) -> str | None:
    """The precision setting an added `"name": literal,` or `name=literal,` line passes into a
    call or dict the patch shows as already there (a `def` signature's new parameter is not a
    change: its default keeps the old behaviour)."""
    match = _PASSED.match(_code(line.text))
    if not match or not SETTING.search(match.group(1)) or not _is_literal(match.group(2)):
        return None
    opener = _opened_by(line, visible)
    if opener is None or opener.side is not EvidenceSide.CONTEXT:
        return None
    return None if _DEF.match(opener.text) else match.group(1)


def _watched(change: FileChange, context: Context) -> bool:
    profile = context.profile
    path = change.path
    return (
        change.status not in (FileStatus.ADDED, FileStatus.REMOVED)
        and path.endswith(CODE_SUFFIXES)
        and (profile.is_core(path) or profile.is_config_definition(path))
        and not profile.is_test(path)
        and not profile.is_generated(path)
    )


def _moved(pr: PullRequest, context: Context) -> tuple[set[str], set[str]]:
    """Normalised lines the PR removes somewhere and adds somewhere (a move leaves both)."""
    removed: set[str] = set()
    added: set[str] = set()
    for change in pr.files:
        removed_texts, added_texts = context.changed(change)
        removed.update(map(_normal, removed_texts))
        added.update(map(_normal, added_texts))
    return removed, added


def _changed(change: FileChange, context: Context) -> tuple[str, ...]:
    removed, added = context.changed(change)
    return (*removed, *added)


def _candidates(lines: tuple[Line, ...], elsewhere: set[str]) -> list[Line]:
    return [
        line
        for line in lines
        if not line.in_string and _code(line.text) and _normal(line.text) not in elsewhere
    ]


def changed_settings(pr: PullRequest, context: Context) -> list[Pair]:
    """Precision values the PR changes: replaced values (removed and added line of the same
    hunk) and precision settings newly passed into existing calls."""
    # a pair or a passed setting needs a changed line that mentions precision: most have none
    watched = [
        change
        for change in pr.files
        if _watched(change, context) and mentions_precision("\n".join(_changed(change, context)))
    ]
    if not watched:
        return []
    removed_anywhere, added_anywhere = _moved(pr, context)
    pairs = []
    for change in watched:
        parsed = context.parsed(change)
        olds = _candidates(parsed.removed, added_anywhere)
        news = _candidates(parsed.added, removed_anywhere)
        hunks = _hunks(news)
        replaced = [
            pair for old in olds if (pair := _best_pair(change.path, old, hunks.get(old.hunk)))
        ]
        pairs += replaced
        if change.path.endswith(".py"):
            paired = {pair.new for pair in replaced} | {pair.old for pair in replaced}
            pairs += _passed_settings(change.path, news, olds, paired, parsed)
    return pairs


def _passed_settings(
    path: str, news: list[Line], olds: list[Line], paired: set[Line | None], parsed: ParsedPatch
) -> list[Pair]:
    visible = sorted((*parsed.added, *parsed.context), key=lambda line: line.number)
    found = []
    for line in news:
        name = None if line in paired else added_setting(line, visible)
        if name and not any(o.hunk == line.hunk and name in o.text for o in olds):
            found.append(Pair(path, None, line, (name,)))
    return found


class _Hunk:
    """The candidate added lines of one hunk. What the pairing learns about them (whether one
    mentions precision, their tokens, difflib's view of each) is worked out once, when a removed
    line of the hunk first needs it."""

    def __init__(self) -> None:
        self.lines: list[Line] = []
        self.matchers: dict[int, SequenceMatcher[str]] = {}

    @functools.cached_property
    def mentions(self) -> bool:
        return any(mentions_precision(line.text) for line in self.lines)

    @functools.cached_property
    def tokens(self) -> list[list[str]]:
        return [_tokens(_code(line.text)) for line in self.lines]

    @functools.cached_property
    def has_value(self) -> bool:
        return any(_value(token) for tokens in self.tokens for token in tokens)

    def matcher(self, index: int) -> SequenceMatcher[str]:
        """Line `index` as the `b` side of a matcher (difflib indexes it once, when first asked)."""
        if index not in self.matchers:
            self.matchers[index] = SequenceMatcher(b=self.tokens[index], autojunk=False)
        return self.matchers[index]


def _hunks(news: list[Line]) -> dict[int, _Hunk]:
    hunks: dict[int, _Hunk] = {}
    for line in news:
        hunks.setdefault(line.hunk, _Hunk()).lines.append(line)
    return hunks


def _best_pair(path: str, old: Line, hunk: _Hunk | None) -> Pair | None:
    """The added line of `old`'s hunk most like it (the first of equals), if the two differ in
    a precision value. A pair less alike than SIMILAR has no precision terms, and two upper
    bounds (from the lengths, then difflib's quick_ratio) skip the lines that cannot beat the
    best one so far."""
    if hunk is None or not (mentions_precision(old.text) or hunk.mentions):
        return None
    before = _tokens(_code(old.text))
    if not hunk.has_value and not _may_name_precision(before):
        return None
    best, best_ratio = None, -1.0
    for index, line in enumerate(hunk.lines):
        if _bound_below(_at_most(len(before), len(hunk.tokens[index])), best_ratio):
            continue
        matcher = hunk.matcher(index)
        matcher.set_seq1(before)
        if _bound_below(matcher.quick_ratio(), best_ratio):
            continue
        ratio = matcher.ratio()
        if ratio > best_ratio:
            best, best_ratio = line, ratio
    if best is None or best_ratio < SIMILAR:
        return None
    terms = precision_terms(_code(old.text), _code(best.text))
    return Pair(path, old, best, terms) if terms else None


def _may_name_precision(tokens: list[str]) -> bool:
    """Whether a removed line holds a precision value or a word a precision setting's name
    would hold. The terms of a pair come from a value on either side or from the name the
    removed line assigns, so without one here and no value among the added lines, no added
    line can make a pair."""
    return any(_value(token) or SETTING.search(token.strip("\"'")) for token in tokens)


def _at_most(old: int, new: int) -> float:
    """The highest likeness two token lists of these lengths can have (difflib's ratio is
    2 × matches ÷ total, and no more tokens match than the shorter list has)."""
    return 2.0 * min(old, new) / (old + new) if old + new else 1.0


def _bound_below(bound: float, best: float) -> bool:
    """Whether a line whose likeness is at most `bound` can be left out: it cannot beat the best
    so far (the first of equals wins) nor reach SIMILAR."""
    return bound <= best or bound < SIMILAR


def _severity(pairs: list[Pair], pr: PullRequest, context: Context) -> Severity:
    in_config = any(context.profile.is_config_definition(p.path) for p in pairs)
    about = MENTIONS.search(pr.title) is not None
    if in_config or about or len(pairs) >= MEDIUM_CHANGES:
        return Severity.MEDIUM
    return Severity.LOW


def dtype_change(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """An existing precision setting or default gets another value."""
    pairs = changed_settings(pr, context)
    if not pairs:
        return
    proof: list[Evidence] = []
    for pair in pairs[:MAX_PAIRS]:
        if pair.old is not None:
            proof.append(line_evidence(pair.path, pair.old))
        proof.append(line_evidence(pair.path, pair.new))
    terms = list(dict.fromkeys(term for pair in pairs for term in pair.terms))
    yield make_risk(
        RiskKind.PRECISION,
        "dtype_change",
        _severity(pairs, pr, context),
        [pr.number],
        proof,
        terms=", ".join(terms),
        count=len(pairs),
        path=pairs[0].path,
    )


DETECTOR = RuleSet(RiskKind.PRECISION, (dtype_change,))
