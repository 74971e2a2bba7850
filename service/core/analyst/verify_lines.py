"""What the verifier is shown beside each sentence: the lines of the PRs it cites that hold
what the sentence names (a setting, a function, a class, a file, a model, a device) and the
values and figures it states, searched in the whole of each patch and of the body, each line
with its side (`+` added, `-` removed: a value there is the old one; `body`) and file.

A PR's body is its author's description, often written before review changed the code; the
changed lines are what merged. Without them a verifier can only check a sentence against the
facts the writing model was shown (a body cut to an excerpt, a few changed lines), and answers
"not enough information" for a true sentence whose proof is further down the patch, or lets a
name the merged code renamed pass. The lines are chosen by the sentence's own terms: each
term's best line first (a line holding more of them, or a longer one, is better), then the
other side of each term (old and new value), then the best of the rest; at most
LINES_PER_SENTENCE lines and SENTENCE_CHARS characters a sentence, so a batch stays bounded.
A line the PR changes the same way in several files (`rollout_token_veto_threshold=1e-4,` in
five tests) is shown once with the other files named (`also_in`): copies used to fill the
list, and the lines further down, which held the proof, never made it.
A changed line that opens a block (`if x <= 0:`, `def f():`, a YAML key with children) comes
with the next changed line of its file and side: what the condition does (`raise …`) is the
fact a sentence such as "fails fast on …" states. Beside the lines, the files of the cited PRs
the sentence names that were created, deleted or renamed ("removes score_assembler.py",
"#59 created it").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from service.core.analyst.evidence import PeriodEvidence, PREvidence, SourceLine
from service.core.analyst.facts import ELLIPSIS

LINES_PER_SENTENCE = 12
ALSO_IN = 6  # other files listed beside a line the PR changes the same way in each
SENTENCE_CHARS = 2_400
LINE_CHARS = 200
MIN_NAME = 4
MAX_TERMS = 16
# matches read of one PR for one sentence: a common word in a huge patch stays cheap
MAX_MATCHES = 4_000
SIDES = ("+", "-", "body")
# a file name's last part is no key nested in YAML
_EXTENSIONS = frozenset({"yaml", "yml", "json", "toml", "py", "sh", "md", "txt", "cfg", "ini"})

_ASCII_BEFORE = r"(?<![A-Za-z0-9_.])"  # a CJK character next to a name is no part of it
_ASCII_AFTER = r"(?![A-Za-z0-9_])"
_BACKTICKED = re.compile(r"`([^`\n]{2,120})`")
# snake_case, dotted.keys, CamelCase, camelCase and path/like names: what code calls things;
# product and device names (SGLang, vLLM, LoRA, FSDP, H100, Qwen2.5, A100)
_NAME = re.compile(
    _ASCII_BEFORE + r"(?:[A-Za-z_][\w-]*(?:[._/][\w-]+)+"
    r"|[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+"
    r"|[a-z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+"
    r"|[A-Za-z][a-z]*[A-Z][A-Za-z0-9]*"
    r"|[A-Za-z]+\d[A-Za-z0-9]*)" + _ASCII_AFTER,
    re.ASCII,
)
# a value: a version, a decimal, an exponent, a number of two digits or more; not `#123`
_FIGURE = re.compile(
    r"(?<![A-Za-z0-9_.#])(?:v?\d+(?:\.\d+)+(?:[a-z]+\d*)?|\d+(?:\.\d+)?e-?\d+|\d{2,})"
    r"(?![A-Za-z0-9_]|\.\d)"
)


def names_of(text: str) -> list[str]:
    """The code names a sentence uses, lower-cased, most telling first: each backticked span
    then its last part (YAML nests what a dotted key names), then identifier-like words."""
    found: list[str] = []
    for span in _BACKTICKED.findall(text):
        found += [span, *_NAME.findall(span)]
    found += _NAME.findall(text)
    out: list[str] = []
    for name in found:
        name = name.strip().strip(".,:;").lower()
        last = name.rsplit(".", 1)[-1]
        nested = "." in name and "/" not in name and last not in _EXTENSIONS
        parts = [name, last] if nested else [name]
        out += [p for p in parts if len(p) >= MIN_NAME and not p.isdigit()]
    return list(dict.fromkeys(out))


def figures_of(text: str) -> list[str]:
    """The values a sentence states (`3e-5`, `0.4`, `512`, `v0.18.0`, `1.3.0rc13`), not PR
    numbers nor single digits: a value claim is checked on the line that sets the value."""
    return list(dict.fromkeys(f.lower() for f in _FIGURE.findall(text)))


def _term(term: str, figure: bool) -> str:
    escaped = re.escape(term)
    return rf"(?<![a-z0-9_.]){escaped}(?![a-z0-9_]|\.\d)" if figure else escaped


def _terms(text: str) -> list[tuple[str, re.Pattern[str]]]:
    """The sentence's names then its values, each with its pattern in lower-cased text."""
    names = [(n, re.compile(_term(n, figure=False))) for n in names_of(text)]
    figures = [(f, re.compile(_term(f, figure=True))) for f in figures_of(text)]
    return [*names, *figures][:MAX_TERMS]


@dataclass(frozen=True)
class _Found:
    pr: int
    index: int  # the line's place in the PR's searchable lines
    line: SourceLine
    terms: frozenset[str]
    at: int  # where in the line the first term starts

    @property
    def rank(self) -> tuple[int, int, int, int]:
        """More terms, longer ones, added before removed before body, earlier: better."""
        size = sum(len(t) for t in self.terms)
        return (-len(self.terms), -size, SIDES.index(self.line.side), self.index)


def _found(pr: PREvidence, terms: Sequence[tuple[str, re.Pattern[str]]]) -> list[_Found]:
    """The lines of `pr` holding any of `terms`, with the terms each holds."""
    searchable = pr.searchable
    if not terms or not searchable.lines:
        return []
    alternation = re.compile("|".join(f"(?:{p.pattern})" for _, p in terms))
    hits: dict[int, None] = {}
    for count, match in enumerate(alternation.finditer(searchable.text)):
        if count >= MAX_MATCHES:
            break
        hits.setdefault(searchable.line_at(match.start()))
    out = []
    for index in hits:
        line = searchable.lines[index]
        low = line.text.lower()
        held = [(m.start(), term) for term, p in terms if (m := p.search(low))]
        if held:
            found = frozenset(term for _, term in held)
            out.append(_Found(pr.number, index, line, found, min(at for at, _ in held)))
    return out


def _follower(found: _Found, prs: dict[int, PREvidence]) -> _Found | None:
    """The changed line after `found` in its file and on its side, when `found` opens a block
    (ends with a colon): the body of a condition, a function or a YAML key."""
    if found.line.side == "body" or not found.line.text.rstrip().endswith(":"):
        return None
    lines = prs[found.pr].searchable.lines
    if found.index + 1 >= len(lines):
        return None
    line = lines[found.index + 1]
    if (line.side, line.path) != (found.line.side, found.line.path):
        return None
    return _Found(found.pr, found.index + 1, line, frozenset(), 0)


def _same(found: _Found) -> tuple[int, str, str]:
    return found.pr, found.line.side, found.line.text.strip()


@dataclass
class _Picked:
    """The lines chosen so far, their characters, and for each the other files where its PR
    changes the same line the same way."""

    prs: dict[int, PREvidence]
    out: dict[tuple[int, int], _Found] = field(default_factory=dict)
    also: dict[tuple[int, str, str], list[str]] = field(default_factory=dict)
    chars: int = 0

    def put(self, candidate: _Found) -> bool:
        if (candidate.pr, candidate.index) in self.out:
            return False
        if (same := self.also.get(_same(candidate))) is not None:
            path = candidate.line.path
            if path and len(same) < ALSO_IN and path not in same:
                same.append(path)
            return False
        size = min(len(candidate.line.text), LINE_CHARS) + len(candidate.line.path)
        if len(self.out) >= LINES_PER_SENTENCE or self.chars + size > SENTENCE_CHARS:
            return False
        self.out[(candidate.pr, candidate.index)] = candidate
        self.also[_same(candidate)] = []
        self.chars += size
        return True

    def take(self, candidate: _Found) -> bool:
        if not self.put(candidate):
            return False
        if (follower := _follower(candidate, self.prs)) is not None:
            self.put(follower)
        return True

    def lines(self) -> list[tuple[_Found, list[str]]]:
        return [
            (f, [p for p in self.also[_same(f)] if p != f.line.path]) for f in self.out.values()
        ]


def _chosen(
    found: list[_Found], terms: Sequence[str], prs: dict[int, PREvidence]
) -> list[tuple[_Found, list[str]]]:
    """Each term's best line, then its best line on a side not shown yet, then the rest by
    rank, each line opening a block with the line after it; within LINES_PER_SENTENCE and
    SENTENCE_CHARS. A line the same PR changes the same way in other files takes no place of
    its own: those files are listed with the first (at most ALSO_IN)."""
    ranked = sorted(found, key=lambda f: f.rank)
    picked = _Picked(prs)
    for term in terms:
        next((picked.take(f) for f in ranked if term in f.terms), None)
    for term in terms:
        shown = {f.line.side for f in picked.out.values() if term in f.terms}
        found_on = (f for f in ranked if term in f.terms and f.line.side not in shown)
        next((picked.take(f) for f in found_on), None)
    for candidate in ranked:
        picked.take(candidate)
    return picked.lines()


def _window(text: str, at: int) -> str:
    """At most LINE_CHARS of `text` around `at` (where the first term stands)."""
    text = text.strip()
    if len(text) <= LINE_CHARS:
        return text
    start = max(0, min(at - LINE_CHARS // 3, len(text) - LINE_CHARS))
    cut = text[start : start + LINE_CHARS - 2].strip()
    before = ELLIPSIS if start > 0 else ""
    after = ELLIPSIS if start + LINE_CHARS - 2 < len(text) else ""
    return f"{before}{cut}{after}"


def _entry(found: _Found, also_in: list[str]) -> dict[str, object]:
    at = max(0, found.at - (len(found.line.text) - len(found.line.text.lstrip())))
    entry: dict[str, object] = {"pr": found.pr, "side": found.line.side}
    if found.line.path:
        entry["file"] = found.line.path
    entry["line"] = _window(found.line.text, at)
    if also_in:
        entry["also_in"] = also_in
    return entry


def _cited(prs: Iterable[int], evidence: PeriodEvidence | None) -> list[PREvidence]:
    if evidence is None:
        return []
    return [e for e in (evidence.pr(n) for n in dict.fromkeys(prs)) if e is not None]


def evidence_lines(
    text: str, prs: Sequence[int], evidence: PeriodEvidence | None
) -> list[dict[str, object]]:
    """The cited PRs' lines holding what `text` names or states, searched in their whole
    patches and bodies: `{"pr": n, "side": "+" | "-" | "body", "file": path, "line": …}`
    (no `file` for a body line; `also_in`: the other files where the PR changes the same line
    the same way), most telling first."""
    terms = _terms(text)
    cited = {pr.number: pr for pr in _cited(prs, evidence)}
    found = [f for pr in cited.values() for f in _found(pr, terms)]
    return [_entry(f, also) for f, also in _chosen(found, [t for t, _ in terms], cited)]


def _names_file(names: Sequence[str], path: str) -> bool:
    """Whether one of a sentence's names is `path`, its end or its file name without suffix."""
    low = path.lower()
    stem = low.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return any(name == stem or (("." in name or "/" in name) and name in low) for name in names)


def file_statuses(
    text: str, prs: Sequence[int], evidence: PeriodEvidence | None
) -> list[dict[str, object]]:
    """The files of the cited PRs that `text` names and that the PR created, deleted or
    renamed: `{"pr": n, "file": path, "status": "added" | "removed" | "renamed from …"}`."""
    names = names_of(text)
    return [
        {"pr": pr.number, "file": path, "status": status}
        for pr in _cited(prs, evidence)
        for path, status in pr.statuses
        if _names_file(names, path)
    ][:LINES_PER_SENTENCE]
