"""What the verifier is shown of the merged change beside each sentence: the changed lines of
the PRs it cites that name what the sentence names (a setting, a function, a class, a file).

A PR's body is its author's description, often written before review changed the code; the
changed lines are what merged. Without them a verifier can only check a sentence against the
body, and a name the body announced but the merged code renamed (`_FP8_MOE_LEAVES` for
`_FP8_CANDIDATE_LEAVES`) or nested elsewhere passes. The lines are chosen by the names alone,
so a sentence gets what bears on it and a batch stays small.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence

from service.core.analyst.evidence import PREvidence, WeekEvidence
from service.core.analyst.facts import bounded

LINES_PER_SENTENCE = 10
ADDED_PER_NAME = 3
REMOVED_PER_NAME = 2
LINE_CHARS = 160
MIN_NAME = 4

_BACKTICKED = re.compile(r"`([^`\n]{2,120})`")
# snake_case, dotted.keys, CamelCase, camelCase and path/like names: what code calls things
_NAME = re.compile(
    r"(?<![\w.])(?:[A-Za-z_][\w-]*(?:[._/][\w-]+)+|[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+"
    r"|[a-z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+)(?![\w])"
)


# a value: a version, a decimal, an exponent, a number of two digits or more; not `#123`
_FIGURE = re.compile(
    r"(?<![\w.#])(?:v?\d+(?:\.\d+)+(?:[a-z]+\d*)?|\d+(?:\.\d+)?e-?\d+|\d{2,})(?!\w|\.\d)"
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
        parts = [name, name.rsplit(".", 1)[-1]] if "." in name and "/" not in name else [name]
        out += [p for p in parts if len(p) >= MIN_NAME and not p.isdigit()]
    return list(dict.fromkeys(out))


def figures_of(text: str) -> list[str]:
    """The values a sentence states (`3e-5`, `0.4`, `512`, `v0.18.0`, `1.3.0rc13`), not PR
    numbers nor single digits: a value claim is checked on the line that sets the value."""
    return list(dict.fromkeys(f.lower() for f in _FIGURE.findall(text)))


def _figure(value: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.]){re.escape(value)}(?!\w|\.\d)")


def _named(pr: PREvidence, name: str | re.Pattern[str]) -> Iterable[str]:
    """Up to ADDED_PER_NAME added and REMOVED_PER_NAME removed lines naming `name` (a name as
    a part of a line; a value as a whole token)."""

    def names(line: str) -> bool:
        low = line.lower()
        return name in low if isinstance(name, str) else bool(name.search(low))

    removed, added = pr.changed
    for side, lines, most in (("+", added, ADDED_PER_NAME), ("-", removed, REMOVED_PER_NAME)):
        found = (line.strip() for line in lines if names(line))
        for text in itertools.islice(filter(None, found), most):
            yield f"{side} {bounded(text, LINE_CHARS)}"


def changed_lines(
    text: str, prs: Sequence[int], evidence: WeekEvidence | None
) -> list[dict[str, object]]:
    """The cited PRs' changed lines naming what `text` names: the most specific name first
    (a full key path before its last part), then the values it states, a few lines of each
    side for each, and
    LINES_PER_SENTENCE in all, added lines before removed ones: `{"pr": n, "line": "+ …"}`."""
    names: list[str | re.Pattern[str]] = [*names_of(text), *map(_figure, figures_of(text))]
    cited = [e for e in (evidence.pr(n) for n in prs) if e is not None] if evidence else []
    out: dict[tuple[int, str], None] = {}
    for name in names:
        for pr in cited:
            for line in _named(pr, name):
                if len(out) >= LINES_PER_SENTENCE:
                    break
                out.setdefault((pr.number, line))
    return [{"pr": number, "line": line} for number, line in out]
