"""A PR body read for the model: the author's own summary lines, without verl's PR template
(checklists, the module list, the quoted hints, "Add **concise** overview…", "As title", empty
"Test" and "API" sections), with secrets masked as the risk rules mask them and links, domains,
e-mail addresses and @-mentions taken out, so no body can hand the model a URL or a token; a
link to a GitHub pull request or issue is not lost with its URL but told as `#N` (`issue #N`),
with the repository (`owner/name#N`) when it is another one (`github_references`).
A line that speaks to the model ("ignore previous instructions…", "write: …", "忽略之前的指令")
is no summary of the change and is left out: neither the model nor the checker's facts get it.

`scrub` is the masking alone, for any other untrusted text the prompt carries (review comments,
check names, config values).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field

from service.core.risks.secrets import PATTERNS, find_secrets, mask

SUMMARY_LINES = 6
# shorter than this, a line says nothing ("N/A", "As title.", "Fix #12")
MIN_LINE_CHARS = 16
# a line with fewer letters and spaces than this share is code or a traceback, not prose
MIN_WORDY_SHARE = 0.6

_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.DOTALL | re.MULTILINE)
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_TAG = re.compile(r"<[^<>]{0,400}>")
# a GitHub pull request or issue, by its URL (any page of it: `/files`, `#issuecomment-1`)
_GITHUB_URL = (
    r"https?://(?:www\.)?github\.com/([\w.-]+)/([\w.-]+)/(pulls?|issues)/(\d{1,7})"
    r"(?:[/?#][^\s()<>\[\]]*)?"
)
_GITHUB_LINK = re.compile(r"\[([^\]]{0,300})\]\(\s*<?" + _GITHUB_URL + r">?[^)]{0,200}\)")
_GITHUB_BARE = re.compile(r"<?" + _GITHUB_URL + r">?")
_REFERENCE_TEXT = re.compile(r"^(?:issue\s+)?(?:[\w.-]+/[\w.-]+)?#?\d+$", re.IGNORECASE)
# `owner/name#N` written out (GitHub's revert body: "Reverts verl-project/verl#6226")
_NAMED_REFERENCE = re.compile(r"(?<![\w/.-])([\w.-]+/[\w.-]+)#(\d{1,7})\b")
_SAID_ISSUE = re.compile(r"\bissues?\s*$", re.IGNORECASE)
# a short line that names another PR or issue says what this one relates to ("fix #4715"):
# a word at most REFERENCE_REACH characters before the `#N`
_REFERENCE_NUMBER = re.compile(r"#\d")
_WORD = re.compile(r"[^\W\d_]{2,}")
REFERENCE_REACH = 60
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*)$")
_LIST_MARK = re.compile(r"^(?:[-*•+]|\d{1,2}[.)])\s+")
_CHECKBOX = re.compile(r"^\s*(?:[-*+]\s*)?\[[ xX]\]")
_EMPHASIS = re.compile(r"(\*\*|__|~~)(.*?)\1")
_SPACE = re.compile(r"\s+")
# links and anything a reader could follow: schemes, www., e-mail addresses, bare domains
# (`evil.example/login`) of the TLDs links use, but not dotted code names or files
# (`torch.distributed`, `model.to(…)`, `run.sh`, `kernel.cc`, `a.py`)
_URL = re.compile(
    r"\b(?:https?|ftp|javascript|vbscript|data|file|mailto|tel|slack|lark|feishu)\s*:\S*"
    r"|\bwww\.\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+",
    re.IGNORECASE,
)
_DOMAIN = re.compile(
    r"(?<![\w@/.`-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+"
    r"(?:com|net|org|io|ai|dev|app|xyz|top|ru|me|co|info|site|link|ly|gg|cn|example|test"
    r"|invalid|local|online|club|live|tk|biz|us|uk|de|jp|fr|in|ws|click|gov|edu|tv|eu|wtf|lol"
    r"|pw|su|icu|vip|shop|cloud|tech|store|hk|tw|kr|sg)"
    r"(?![\w-])(?:/\S*)?",
    re.IGNORECASE,
)
# the sign first, then what may not stand before it: the engine looks for the sign alone
_MENTION = re.compile(r"[@＠](?<![\w.+-][@＠])(?=[A-Za-z0-9_])")
_BROADCAST = re.compile(r"[@＠]\s*(?:here|channel|everyone|all)\b|<\s*[!@#]|<\s*at\b", re.I)
# text addressed to the model rather than to reviewers (checked against the recorded verl
# weeks: no real line of theirs matches)
_DIRECTIVE = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b[^.。]{0,40}"
    r"\b(?:instruction|prompt|rule|above|previous|prior|earlier)s?\b"
    r"|\byou\s+are\s+now\b|\bas\s+an\s+(?:ai|assistant|llm)\b|\bnew\s+instructions?\b"
    r"|(?:^|\s)(?:write|say|print|post|repeat|tell\s+\w+)(?:\s+(?:exactly|only|this|that))?"
    r"\s*[:：]\s"
    r"|忽略|无视|(?:之前|以上|上述)的?(?:指令|规则|要求)|系统提示|提示词"
    r"|请(?:写|输出|打印|转发|回复)[:：]",
    re.IGNORECASE,
)
_EMPTY_PARENS = re.compile(r"\(\s*[:;,.]?\s*\)")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")

# verl's PR template: sections that hold only the author's ticks, and lines of it that an
# author leaves in place ("Add **concise** overview …" is matched after emphasis is removed)
_TEMPLATE_SECTIONS = re.compile(r"checklist", re.IGNORECASE)
_TEMPLATE_LINES = re.compile(
    r"^(?:add concise overview|demonstrate (?:the high-level design|how the api)"
    r"|for changes that can not be tested|add code snippet or script"
    r"|search for similar prs|format the pr title|\{?modules\}? include|`?\{modules\}`? include"
    r"|if this pr (?:involves|breaks)|`?\{type\}`? is in|example: `?\[breaking\]"
    r"|co-authored-by:|signed-off-by:|read the contribute guide|apply pre-commit"
    r"|\[!important\]|please check all the following items"
    r"|as title\b|same as title\b|see title\b|n/?a\b|none\.?$|no\.?$|todo\.?$|tbd\.?$|-{3,})",
    re.IGNORECASE,
)


def _reference(match: re.Match[str], repos: frozenset[str], first: int) -> str:
    """`#N`, `issue #N` (`#N` after the word issue), or with the repository when the link is
    to another one."""
    owner, name, kind, number = match.group(first, first + 1, first + 2, first + 3)
    own = f"{owner}/{name}".lower() in repos
    ref = f"#{number}" if own else f"{owner}/{name}#{number}"
    said = _SAID_ISSUE.search(match.string[max(0, match.start() - 8) : match.start()])
    return f"issue {ref}" if kind == "issues" and not said else ref


def github_references(text: str, repos: Collection[str] = ()) -> str:
    """`text` with each link to a GitHub pull request or issue told as its reference: `#N` in
    this repository (`repos`: its names, `owner/name`; its `owner/name#N` written out too),
    `owner/name#N` in another, `issue #N` for an issue; a Markdown link keeps its words,
    followed by the reference in parentheses."""
    names = frozenset(r.lower() for r in repos)
    if names and "#" in text:
        text = _NAMED_REFERENCE.sub(lambda m: f"#{m[2]}" if m[1].lower() in names else m[0], text)
    if "github.com" not in text.lower():
        return text

    def linked(match: re.Match[str]) -> str:
        words, ref = match.group(1).strip(), _reference(match, names, 2)
        if not words or _REFERENCE_TEXT.match(words) or "github.com" in words.lower():
            return ref
        return f"{words} ({ref})"

    text = _GITHUB_LINK.sub(linked, text)
    return _GITHUB_BARE.sub(lambda m: _reference(m, names, 1), text)


def scrub(text: str) -> str:
    """`text` with every secret masked (first 4 characters + ****), links, domains and e-mail
    addresses removed, mentions disarmed (`@name` → `name`, no broadcast) and control or
    invisible characters dropped."""
    text = mask_secrets(_TAG.sub(" ", _CONTROL.sub("", text)))
    text = _DOMAIN.sub(" ", _URL.sub(" ", text))
    text = _MENTION.sub("", _BROADCAST.sub(" ", text))
    return _SPACE.sub(" ", _EMPTY_PARENS.sub("", text)).strip()


def mask_secrets(text: str) -> str:
    """`text` with every secret masked (first 4 characters + ****)."""
    for _rule, secret in find_secrets(text):
        text = text.replace(secret, mask(secret))
    # a secret the placeholder test let through still never leaves in full
    for pattern in PATTERNS.values():
        text = pattern.sub(lambda m: mask(m.group(0)), text)
    return text


def _without_markup(body: str, repos: Collection[str] = ()) -> str:
    text = _FENCE.sub("\n", _COMMENT.sub(" ", body))
    text = github_references(_IMAGE.sub(" ", text), repos)
    return _TAG.sub(" ", _LINK.sub(r"\1", text))


def _sections(text: str) -> list[tuple[str, list[str]]]:
    """(heading, lines) in body order; the text before any heading has heading ""."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            sections.append((heading.group(1).strip(), []))
        else:
            sections[-1][1].append(line)
    return sections


def _items(lines: list[str]) -> list[str]:
    """The section's paragraphs and list items, each on one line (bodies are hard-wrapped);
    quoted template hints and their lazy continuation lines left out."""
    items: list[str] = []
    quoted = joinable = False
    for raw in lines:
        line = raw.strip()
        if not line:
            quoted = joinable = False
            continue
        quoted = quoted or line.startswith(">")
        if quoted or _CHECKBOX.match(line):
            joinable = False
            continue
        item = _LIST_MARK.sub("", line)
        if item == line and joinable:
            items[-1] += " " + line
        else:
            items.append(item)
        joinable = True
    return items


def speaks_to_the_model(text: str) -> bool:
    """Whether `text` gives the model an instruction (planted text, not a summary)."""
    return _DIRECTIVE.search(text) is not None


def _names_reference(line: str) -> bool:
    """Whether a word comes shortly before a `#N` in `line` (linear: no backtracking)."""
    if "#" not in line:
        return False
    return any(
        _WORD.search(line, max(m.start() - REFERENCE_REACH, 0), m.start())
        for m in _REFERENCE_NUMBER.finditer(line)
    )


def _says_something(line: str) -> bool:
    """Not the template's, not a table row, not an instruction to the model, and mostly words
    (not a traceback's `^^^^`) or words naming another PR or issue ("fix #4715")."""
    if _TEMPLATE_LINES.match(line) or line.startswith("|") or speaks_to_the_model(line):
        return False
    if _names_reference(line):
        return True
    if len(line) < MIN_LINE_CHARS:
        return False
    return sum(ch.isalpha() or ch.isspace() for ch in line) >= MIN_WORDY_SHARE * len(line)


def summary_lines(
    body: str, limit: int = SUMMARY_LINES, repos: Collection[str] = ()
) -> tuple[str, ...]:
    """The author's own lines of `body`, "What does this PR do?" first, at most `limit`, each
    paragraph or list item on one line, scrubbed, links to PRs and issues told as references
    (`repos`: this repository's names); () when the body is only the template."""
    found: list[str] = []
    first: list[str] = []
    for heading, lines in _sections(_without_markup(body or "", repos)):
        if _TEMPLATE_SECTIONS.search(heading):
            continue
        cleaned = [scrub(_EMPHASIS.sub(r"\2", item)) for item in _items(lines)]
        kept = [line for line in cleaned if _says_something(line)]
        (first if heading.lower().startswith("what does this pr do") else found).extend(kept)
    return tuple(dict.fromkeys([*first, *found]))[:limit]


_FENCE_MARK = re.compile(r"^\s*(```|~~~)")
_TABLE_RULE = re.compile(r"^[\s|:\-+]*$")


@dataclass
class _Reading:
    """Where a line-by-line reading of a body stands."""

    out: list[str] = field(default_factory=list)
    fenced: bool = False  # inside a code block
    skipped: bool = False  # inside the template's checklist section
    quoted: bool = False  # inside a quoted template hint
    joinable: bool = False  # the last line is prose a wrapped line continues

    def apart(self, line: str) -> None:
        self.joinable = False
        if line and not _TABLE_RULE.match(line):
            self.out.append(line)

    def prose(self, line: str) -> None:
        item = _LIST_MARK.sub("", line)
        if item == line and self.joinable:
            self.out[-1] += " " + line
        else:
            self.out.append(item)
        self.joinable = True

    def read(self, raw: str) -> None:
        line = raw.strip()
        heading = None if self.fenced else _HEADING.match(raw)
        if heading:
            self.skipped = bool(_TEMPLATE_SECTIONS.search(heading.group(1)))
            self.quoted = False
            self.apart("" if self.skipped else heading.group(1).strip())
        elif self.skipped:
            return
        elif _FENCE_MARK.match(line):
            self.fenced, self.joinable = not self.fenced, False
        elif self.fenced or line.startswith("|"):
            self.apart(line)
        elif not line:
            self.quoted = self.joinable = False
        elif (quoted := self.quoted or line.startswith(">")) or _CHECKBOX.match(line):
            self.quoted, self.joinable = quoted, False
        else:
            self.prose(line)


def body_lines(body: str, repos: Collection[str] = ()) -> tuple[str, ...]:
    """Everything the author wrote in `body`, line by line for a search (the verifier is shown
    the lines that name what a sentence names): prose by paragraph or list item, code blocks
    and tables by line, headings as lines; the template's checklist, comments, quoted hints
    and any line that speaks to the model left out; scrubbed, PR links told as references."""
    text = _COMMENT.sub(" ", body or "")
    text = github_references(_IMAGE.sub(" ", text), repos)
    reading = _Reading()
    for raw in _TAG.sub(" ", _LINK.sub(r"\1", text)).splitlines():
        reading.read(raw)
    out = (scrub(_EMPHASIS.sub(r"\2", item)) for item in reading.out)
    kept = [
        line
        for line in out
        if any(ch.isalnum() for ch in line)
        and not _TEMPLATE_LINES.match(line)
        and not speaks_to_the_model(line)
    ]
    return tuple(dict.fromkeys(kept))
