"""What a sentence claims, read the same way from the model's sentence and from the facts:
the PR numbers it names, the figures it states and the identifiers it quotes.

Reading both sides with the same functions is what makes the checker fair: a figure copied
from a PR's title or body is found in that PR's facts; a figure the model worked out or made up
is not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from service.core.analyst.glossary import glossary

# `#123`, `＃123`, `PR 123`, `PR#123`, `PR-123`, `pull/123`; 8 digits: a family key (core/scope)
_PR_REF = re.compile(r"(?:[#＃]|\bPRs?\s*[#＃-]?\s*|\bpull/)(\d{1,8})\b", re.IGNORECASE)
# a number not glued to an identifier, path or version on its left (`fp16`, `Qwen3-30B`,
# `patch_v012`), with an optional `v` and thousands separators or an exponent (`7e-5` is one
# value, not 7); what follows it is its unit
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.#/＃])(?<![A-Za-z0-9]-)[vV]?"
    # a commit's short hash (`68c04e7`) is a name, not the figure its first digits spell
    r"(?!(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{7,40}(?![\w]))"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?![\d])|\d+(?:\.\d+)*(?:e-?\d+(?![A-Za-z0-9_]))?)"
    r"(?P<unit>\s*(?:%|％|percent\b|x\b|×|倍|times\b|k\b|K\b|千|万|M\b))?"
)
# a figure followed by this counts pull requests ("5 个 PR", "12 PRs")
# "12 项 PR 风险", "12 PR risk findings": what the PRs hold is counted, not the PRs
_PR_COUNT = re.compile(
    r"\s*(?:个|項|项)?\s*(?:PRs?\b|pull requests?\b|合并请求)"
    r"(?!\s*(?:的\s*)?(?:风险|评审|评论|risks?\b|findings?\b|reviews?\b|comments?\b))",
    re.IGNORECASE,
)
_MULTIPLIER_UNITS = frozenset({"x", "×", "倍", "times"})
_PERCENT_UNITS = frozenset({"%", "％", "percent"})
_SCALES = {"k": 1_000, "K": 1_000, "千": 1_000, "万": 10_000, "M": 1_000_000}
# counts in words: English two…twelve, Chinese 二/两…十 before a measure word
_EN_NUMBERS: tuple[str, ...] = ("two", "three", "four", "five", "six", "seven")
_EN_NUMBERS += ("eight", "nine", "ten", "eleven", "twelve")
_EN_WORDS = {word: value for value, word in enumerate(_EN_NUMBERS, start=2)}
_EN_WORDS |= {"thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17}
_EN_WORDS |= {"eighteen": 18, "nineteen": 19, "one": 1}
_EN_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70}
_EN_TENS |= {"eighty": 80, "ninety": 90}
_EN_COUNT = re.compile(
    r"\b(?:(?P<tens>"
    + "|".join(_EN_TENS)
    + r")(?:[- ](?P<ones>"
    + "|".join(_EN_NUMBERS[:8])
    + r"|one))?|(?P<word>"
    + "|".join(w for w in _EN_WORDS if w != "one")
    + r"))\b",
    re.IGNORECASE,
)
_ZH_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8}
_ZH_DIGITS["九"] = 9
_ZH_COUNT = re.compile(
    r"(?<![一二两三四五六七八九十])([二两三四五六七八九十]{1,3})\s*(?=[个项位处次类篇份条名种组层级轮步])"
)
# `三倍`, `翻了三倍` (×3, or ×4 as some read it), `翻了一番`
_ZH_TIMES = re.compile(r"(翻了?)?\s*([一二两三四五六七八九十]{1,3})\s*倍")
_ZH_DOUBLE = re.compile(r"翻了?一番")
# multipliers in words
_WORD_MULTIPLIERS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (
        re.compile(r"\b(?:twice|doubl(?:ed|es|ing)|double(?![-\s]?check))\b|翻倍|翻番", re.I),
        frozenset({"2"}),
    ),
    (
        re.compile(r"\b(?:triple[sd]?|tripling|three[- ]?fold|three times)\b", re.IGNORECASE),
        frozenset({"3"}),
    ),
    (
        re.compile(r"\b(?:quadruple[sd]?|four[- ]?fold|four times)\b", re.IGNORECASE),
        frozenset({"4"}),
    ),
    (re.compile(r"\b(?:two[- ]?fold|two times)\b", re.IGNORECASE), frozenset({"2"})),
    (
        re.compile(
            r"\b(?:halve[sd]?|halving|(?:cut|reduced?|drops?|dropped|fell) (?:in|by) half)\b|减半"
            r"|(?:缩短|减少|降低|下降|减小|节省|节约|降)了?\s*(?:约|近|大约)?\s*一半",
            re.IGNORECASE,
        ),
        frozenset({"2", "50", "0.5"}),
    ),
)
_BACKTICK = re.compile(r"`([^`\n]+)`")
EXTENSIONS = (
    "py|pyi|yaml|yml|json|toml|sh|md|rst|txt|cfg|ini|cc|cpp|cu|cuh|h|hpp|ipynb|j2|proto|lock"
)
_PATH = re.compile(
    rf"(?<![A-Za-z0-9_.\-/])(?:[A-Za-z0-9_.\-]+/)+[A-Za-z0-9_.\-]*"
    rf"|(?<![A-Za-z0-9_.\-/])[A-Za-z0-9_\-]+\.(?:{EXTENSIONS})(?![A-Za-z0-9_])"
)
_DOTTED = re.compile(r"(?<![A-Za-z0-9_./])[a-z_][a-z0-9_]+(?:\.[a-z_][a-z0-9_]+)+(?![A-Za-z0-9_(])")
# a name ends where no name character follows (a sentence's full stop is not part of it)
_END = r"(?![A-Za-z0-9_/]|\.[A-Za-z0-9_])"
_SNAKE = re.compile(r"(?<![A-Za-z0-9_./])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+" + _END)
_CAMEL = re.compile(r"(?<![A-Za-z0-9_./])[A-Za-z0-9]*[a-z][A-Z][A-Za-z0-9]*" + _END)
_ALNUM = re.compile(r"(?<![A-Za-z0-9_./\-])[A-Za-z]+\d+[A-Za-z0-9]*" + _END)
# a model's name with its size: `Qwen3.5-122B-A10B`, `Llama-3.1-8B`, `Qwen3-30B-A3B`
_MODEL = re.compile(
    r"(?<![A-Za-z0-9_./\-])[A-Za-z][A-Za-z0-9.]*(?:-[A-Za-z0-9.]+)*-[A-Za-z]?\d+(?:\.\d+)?[BM]"
    r"(?:-[A-Za-z0-9.]*[A-Za-z0-9])*(?![A-Za-z0-9_\-])"
)
_HAS_LETTER = re.compile(r"[A-Za-z]")
MIN_SEGMENT = 2
MIN_PATH_SLASHES = 2


@dataclass(frozen=True)
class Figure:
    """A figure as written (`text`), the values it may stand for, and for `7.7k` or `1.2万` the
    scaled value with the rounding it allows."""

    text: str
    values: frozenset[str]
    scaled: tuple[float, float] | None = None
    kind: str = "plain"  # plain | multiplier | percent | prs (a count of pull requests)
    approx: str = ""  # "", "about", "over" or "under": how the sentence rounds it


def pr_refs(text: str) -> list[int]:
    """PR numbers a sentence names (`#123`, `PR 123`, `pull/123`), in order, once each."""
    return list(dict.fromkeys(int(n) for n in _PR_REF.findall(text)))


def _without_refs(text: str) -> str:
    return _PR_REF.sub(" ", text)


def normalised(raw: str) -> frozenset[str]:
    """`1,676` → {1676}; `v0.16` → {0.16}; `04` → {4}; `9.90` → {9.90, 9.9}."""
    plain = raw.lstrip("vV").replace(",", "")
    if plain.isdigit():
        return frozenset({str(int(plain))})
    values = {plain}
    if plain.count(".") == 1:
        number = float(plain)
        values.add(str(int(number)) if number.is_integer() else repr(number))
    return frozenset(values)


def _scaled(num: str, unit: str) -> tuple[float, float] | None:
    scale = _SCALES.get(unit.strip())
    if scale is None:
        return None
    plain = num.replace(",", "")
    if plain.count(".") > 1:
        return None
    decimals = len(plain.partition(".")[2])
    return float(plain) * scale, scale / (2 * 10**decimals)


def _kind(text: str, end: int, unit: str) -> str:
    unit = unit.strip()
    if unit in _MULTIPLIER_UNITS:
        return "multiplier"
    if unit in _PERCENT_UNITS:
        return "percent"
    return "prs" if not unit and _PR_COUNT.match(text, end) else "plain"


def _approx(text: str, start: int, end: int) -> str:
    """How the words around a figure round it: "约 5,600", "超过 5000", "nearly 6k", "20 余"."""
    words = glossary().words
    before, after = text[max(0, start - 12) : start], text[end : end + 8]
    for name in ("over", "under", "about"):
        found = words[f"approximate_{name}"].search(before)
        if found and not before[found.end() :].strip(" 了的"):
            return name
    return "about" if words["approximate_after"].match(after.lstrip(" 个行")) else ""


def figures(text: str) -> list[Figure]:
    """Every figure a text states: numbers (with %, x, 倍, k …), counts in words, multipliers."""
    text = _without_refs(text)
    out = [
        Figure(
            m.group(0).strip(),
            normalised(m.group("num")),
            _scaled(m["num"], m["unit"] or ""),
            kind=_kind(text, m.end(), m["unit"] or ""),
            approx=_approx(text, m.start(), m.end()),
        )
        for m in _NUMBER.finditer(text)
    ]
    out += [
        Figure(m.group(0), frozenset({str(_en_number(m))}), kind=_kind(text, m.end(), ""))
        for m in _EN_COUNT.finditer(text)
    ]
    out += [
        Figure(m.group(1), frozenset({str(_zh_number(m.group(1)))}))
        for m in _ZH_COUNT.finditer(text)
    ]
    out += [_zh_times(m) for m in _ZH_TIMES.finditer(text)]
    doubled = frozenset({"2"})
    out += [Figure(m.group(0), doubled, kind="multiplier") for m in _ZH_DOUBLE.finditer(text)]
    for pattern, values in _WORD_MULTIPLIERS:
        out += [Figure(m.group(0), values, kind="multiplier") for m in pattern.finditer(text)]
    return out


def _en_number(match: re.Match[str]) -> int:
    """two … ninety-nine written in English words."""
    if match["word"]:
        return _EN_WORDS[match["word"].lower()]
    ones = _EN_WORDS[match["ones"].lower()] if match["ones"] else 0
    return _EN_TENS[match["tens"].lower()] + ones


def _zh_times(match: re.Match[str]) -> Figure:
    value = _zh_number(match.group(2))
    values = {str(value), str(value + 1)} if match.group(1) else {str(value)}
    return Figure(match.group(0).strip(), frozenset(values), kind="multiplier")


def pr_spans(text: str) -> list[tuple[int, int, int]]:
    """(start, end, number) of every PR reference in `text`, in order."""
    return [(m.start(), m.end(), int(m.group(1))) for m in _PR_REF.finditer(text)]


def _zh_number(text: str) -> int:
    """二…九十九 written in Chinese numerals."""
    if "十" not in text:
        return _ZH_DIGITS.get(text, 0)
    tens, _, ones = text.partition("十")
    return _ZH_DIGITS.get(tens, 1) * 10 + _ZH_DIGITS.get(ones, 0)


# a version glued to the name it versions on the facts side ("mcore0.12.1 + torch2.9.0"): the
# version a PR states, though a sentence's `fp16` or `Qwen2.5` states no figure
_GLUED_VERSION = re.compile(r"(?<=[A-Za-z])\d+\.\d+(?:\.\d+)+(?![\d.])")


def numbers_in(text: str) -> set[str]:
    """The normalised values of every figure in `text` (the facts side)."""
    glued = {value for found in _GLUED_VERSION.findall(text) for value in normalised(found)}
    return {value for figure in figures(text) for value in figure.values} | glued


def values_of_kind(text: str, kind: str) -> set[str]:
    """The values `text` states as multipliers (`2x`, `2 倍`, twice) or percentages."""
    return {v for figure in figures(text) if figure.kind == kind for v in figure.values}


def without_code(text: str) -> str:
    """`text` with its backticked spans blanked out."""
    return _BACKTICK.sub(" ", text)


def _is_path(token: str, roots: frozenset[str]) -> bool:
    if not _HAS_LETTER.search(token):
        return False
    if re.search(rf"\.(?:{EXTENSIONS})$", token):
        return True
    segments = [s for s in token.split("/") if s]
    return token.count("/") >= MIN_PATH_SLASHES or (bool(segments) and segments[0] in roots)


_KEY_VALUE = re.compile(r"^([A-Za-z_][\w.\-]*)\s*(?::|=)\s*([\w.\-]+)$")


def setting_said(token: str, where: str) -> bool:
    """A quoted `key: value` or `key=value` that a line of `where` (lower-cased) sets: the key
    beside that value (`key: str = "left"`, `key="left"`, `key == "left"`, `key: left`)."""
    match = _KEY_VALUE.match(token.strip())
    if match is None:
        return False
    key, value = (re.escape(g.lower()) for g in match.groups())
    setting = rf"{key}(?:\s*:\s*[\w\[\], ]+?)?\s*(?::|==?)\s*[\"']?{value}[\"']?(?![\w.\-])"
    return re.search(setting, where) is not None


def identifiers(text: str, roots: frozenset[str] = frozenset()) -> list[str]:
    """What a sentence quotes as code: backticked spans, paths, dotted modules, snake_case,
    camelCase and letter+digit names (`fp16`, `Qwen3`). `roots` are the first path segments of
    the week's files, so `verl/utils` is a path while `CI/CD` is two words."""
    found = [m.group(1).strip() for m in _BACKTICK.finditer(text)]
    rest = _BACKTICK.sub(" ", text)
    for match in _PATH.finditer(rest):
        token = match.group(0).strip(".")
        if _is_path(token, roots):
            found.append(token)
            rest = rest.replace(match.group(0), " ", 1)
    for match in _MODEL.finditer(rest):
        found.append(match.group(0))
        rest = rest.replace(match.group(0), " ", 1)
    for pattern in (_DOTTED, _SNAKE, _CAMEL, _ALNUM):
        for match in pattern.finditer(rest):
            token = match.group(0)
            if pattern is _DOTTED and min(len(s) for s in token.split(".")) < MIN_SEGMENT:
                continue
            found.append(token)
    return list(dict.fromkeys(t for t in found if t))


# "此前新增", "previously added": an earlier PR's doing, not the cited one's
_EARLIER = re.compile(
    r"(?:此前|之前|先前|早先|原先)\s*$|\b(?:previously|earlier|formerly)\s+$", re.IGNORECASE
)
EARLIER_REACH = 14


def earlier_doing(text: str, start: int) -> bool:
    """The verb at `start` is told of an earlier time ("此前新增 X"), not of the PR cited."""
    return _EARLIER.search(text[max(0, start - EARLIER_REACH) : start]) is not None
