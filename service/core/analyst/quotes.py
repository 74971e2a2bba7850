"""The evidence a model gives with a sentence: quotes copied from the data of the PRs it cites,
each looked up in that PR's data.

A quote is found when, normalised (case, whitespace, markup, quotes and arrows), it is
- a changed line with its side (`+path: line`, `-path: line`, or `+line`): on that side of the
  diff of that file (a line only on the other side is a wrong side, not a quote);
- a `config_changes` entry (`file key: old → new`, `key: + new`): one of the parsed changes;
- else part of what the PR says: its title, summary lines, cleaned body, review notes, risk
  evidence, modules or paths.
A quote's side says how its values may be told: a removed line's values are old values.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from service.core.analyst.config_changes import ConfigChange
from service.core.analyst.evidence import PeriodEvidence
from service.core.analyst.facts import PeriodFacts, PRFacts
from service.core.risks.base import changed_texts

QUOTE_SHOWN = 80
MIN_QUOTE_CHARS = 3
_MARKUP = re.compile(r"[`*_\"'“”‘’「」]+")
_ARROW = re.compile(r"\s*(?:->|=>|⟶|→)\s*")
_SPACE = re.compile(r"\s+")
_ELLIPSIS = re.compile(r"\s*(?:…|\.\.\.)\s*")
# a PR reference in any of the forms the data had or has (`#6350`, `owner/name#6350`, a link
# to the PR): the prompt told links as `#N` and, before that, stripped them
_REF = re.compile(
    r"(?:https?://github\.com/)?(?:[\w.\-]+/[\w.\-]+)?(?:#|/pull/|/issues/)\d+", re.IGNORECASE
)
_NOT_WORD = re.compile(r"[\W_]+")
# `+path: line`: a path has a slash or a file extension
_DIFF = re.compile(
    r"^(?P<side>[+-])\s*(?:(?P<path>[\w.\-/]*(?:/|\.\w{1,8})[\w.\-/]*):\s)?(?P<line>.*)$"
)


@dataclass(frozen=True)
class Quote:
    """One quote of a sentence's evidence and where it was found (`where` empty: not found,
    `reason` says why). `side` is `+` / `-` for a changed line, `config` for a config change,
    `text` for what the PR says."""

    pr: int
    text: str
    side: str = "text"
    where: str = ""
    reason: str = ""
    change: ConfigChange | None = None

    @property
    def found(self) -> bool:
        return bool(self.where)

    @property
    def short(self) -> str:
        return self.text if len(self.text) <= QUOTE_SHOWN else self.text[: QUOTE_SHOWN - 1] + "…"

    def shown(self) -> str:
        """`#4106 config_changes: "rollout.yaml mode: sync → async"` (for the audit)."""
        return f'#{self.pr} {self.where or self.side}: "{self.short}"'


def norm(text: str) -> str:
    """Text as quotes are compared: NFKC, lower case, no markup or quote marks, one arrow,
    whitespace collapsed, no trailing full stop."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = _ARROW.sub(" → ", _MARKUP.sub("", text))
    return _SPACE.sub(" ", text).strip(" .。;；,，:：")


def loose(text: str) -> str:
    """Text as a quote is compared when it differs from the data only in how PR references,
    spaces and punctuation are written (`#4775 , in` / `#4775, in`; `Reverts owner/name#6350`
    / `Reverts #6350`; `Previous PR is reverted` where the link was stripped)."""
    return _NOT_WORD.sub("", _REF.sub(" ", text))


def _contains(haystack: str, quote: str) -> bool:
    """Every part of `quote` (cut at an ellipsis) is in `haystack`, in order."""
    at = 0
    for part in (p for p in _ELLIPSIS.split(quote) if p):
        found = haystack.find(part, at)
        if found < 0:
            return False
        at = found + len(part)
    return True


@dataclass
class _PRData:
    """One PR's data, normalised once: what it says, and its changed lines per file by side."""

    said: str
    lines: dict[str, tuple[list[str], list[str]]]  # path → (removed, added)
    config: tuple[ConfigChange, ...]
    unchanged: tuple[str, ...] = ()  # the patches' unchanged lines
    _loose: str | None = None

    @property
    def loose_said(self) -> str:
        if self._loose is None:
            self._loose = "\n".join(loose(line) for line in self.said.splitlines())
        return self._loose


def _said(pr: PRFacts, evidence: PeriodEvidence) -> str:
    own = evidence.pr(pr.number)
    risks = [e for r in pr.risks for e in r.evidence]
    parts = [pr.title, pr.excerpt, *pr.summary, *pr.review_notes, *risks, *pr.modules, *pr.paths]
    parts += [own.text if own else "", *pr.failing_checks]
    return "\n".join(norm(p) for p in parts if p)


def _changed_lines(pr: PRFacts, evidence: PeriodEvidence) -> dict[str, tuple[list[str], list[str]]]:
    collected = evidence.collected.get(pr.number)
    out: dict[str, tuple[list[str], list[str]]] = {}
    if collected is not None:
        for change in collected.files:
            removed, added = changed_texts(change.patch)
            out[change.path.lower()] = ([norm(t) for t in removed], [norm(t) for t in added])
        return out
    for line in pr.lines:  # no patch at hand: the lines the prompt showed
        found = _DIFF.match(line)
        if found and found["path"]:
            removed, added = out.setdefault(found["path"].lower(), ([], []))
            (added if found["side"] == "+" else removed).append(norm(found["line"]))
    return out


class QuoteFinder:
    """Looks quotes up in the week's PR data (each PR's data normalised the first time)."""

    def __init__(self, facts: PeriodFacts, evidence: PeriodEvidence) -> None:
        self.facts = facts
        self.evidence = evidence
        self._data: dict[int, _PRData] = {}

    def _pr(self, pr: PRFacts) -> _PRData:
        if pr.number not in self._data:
            own = self.evidence.pr(pr.number)
            unchanged = tuple(norm(t) for t in own.context.splitlines()) if own else ()
            self._data[pr.number] = _PRData(
                _said(pr, self.evidence), _changed_lines(pr, self.evidence), pr.config, unchanged
            )
        return self._data[pr.number]

    def find(self, number: int, text: str, cited: Sequence[int]) -> Quote:
        pr = self.facts.pr(number)
        if pr is None:
            return Quote(number, text, reason=f"#{number} is not a PR of the week")
        if number not in cited:
            return Quote(number, text, reason=f"#{number} is not a PR the item cites")
        quote = norm(text)
        if len(quote) < MIN_QUOTE_CHARS:
            return Quote(number, text, reason="the quote is empty")
        data = self._pr(pr)
        diff = _DIFF.match(text.strip())
        if diff and norm(diff["line"]):
            return _diff_quote(number, text, diff, data)
        change = _config_quote(quote, data.config)
        if change is not None:
            return Quote(number, text, "config", "config_changes", change=change)
        if _contains(data.said, quote) or _loosely(data, quote):
            return Quote(number, text, "text", "what the PR says")
        if any(line == quote for line in data.unchanged):
            # "while `x` stays at 4": a line the patch shows unchanged, on neither side
            return Quote(number, text, "text", "an unchanged line")
        return Quote(number, text, reason=f"not in #{number}'s data")


def _loosely(data: _PRData, quote: str) -> bool:
    """The quote is in what the PR says but for how references and punctuation are written."""
    parts = [loose(p) for p in _ELLIPSIS.split(quote) if p]
    parts = [p for p in parts if p]
    if sum(len(p) for p in parts) < MIN_QUOTE_CHARS:
        return False
    return any(_contains(line, "…".join(parts)) for line in data.loose_said.splitlines())


def _diff_quote(number: int, text: str, diff: re.Match[str], data: _PRData) -> Quote:
    side, line = diff["side"], norm(diff["line"])
    path = (diff["path"] or "").lower()
    files = [p for p in data.lines if not path or p.endswith(path) or path.endswith(p)]
    if path and not files:
        return Quote(number, text, side, reason=f"#{number} changes no file {diff['path']}")
    for name in files:
        removed, added = data.lines[name]
        if any(_contains(t, line) for t in (added if side == "+" else removed)):
            where = "added line" if side == "+" else "removed line"
            return Quote(number, text, side, f"{where} of {name.rsplit('/', 1)[-1]}")
    for name in files:
        removed, added = data.lines[name]
        if any(_contains(t, line) for t in (removed if side == "+" else added)):
            other = "a removed" if side == "+" else "an added"
            return Quote(number, text, side, reason=f"the line is {other} line, not {side}")
    if _contains(data.said, line):  # `-` read as a list mark: the PR's words
        return Quote(number, text, "text", "what the PR says")
    return Quote(number, text, side, reason=f"no such changed line in #{number}")


def _config_quote(quote: str, changes: Iterable[ConfigChange]) -> ConfigChange | None:
    if ":" not in quote:
        return None
    for change in changes:
        line = norm(change.line())
        if quote in line or line in quote:
            return change
        key_line = norm(change.line().split(" ", 1)[-1])  # without the file's name
        if quote == key_line or (len(quote) > len(change.key) + 2 and quote in key_line):
            return change
    return None


def find_quotes(
    finder: QuoteFinder, evidence: Sequence[tuple[int, str]], cited: Sequence[int]
) -> list[Quote]:
    """Each quote of an item looked up in its PR's data."""
    return [finder.find(number, text, cited) for number, text in evidence]


def quote_reasons(quotes: Sequence[Quote]) -> list[str]:
    """A reason per quote that is not in its PR's data (claim style)."""
    return [f'quote of #{q.pr} "{q.short}": {q.reason}' for q in quotes if not q.found]
