"""A PR's one-line gist: what its body says it does, cut only at a sentence or clause boundary,
or, when the body says nothing beyond the title, what its files show (a catalog statement)."""

from __future__ import annotations

import re
from collections import Counter

from service.core.models import FileChange, FileStatus, PullRequest, Statement
from service.core.titles import parse_title

# verl's PR template: the first section says what the PR does
_WHAT_HEADING = re.compile(
    r"^\s*#{1,6}\s*\**\s*what does this pr do\b.*$", re.IGNORECASE | re.MULTILINE
)
_HEADING = re.compile(r"^\s*#{1,6}\s", re.MULTILINE)
# fenced blocks (closed, or running to the end of a cut-off body) are no gist; inline code spans
# may wrap a line but never hold a blank one
_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.DOTALL | re.MULTILINE)
_CODE_SPAN = re.compile(r"(?<!`)(`{1,2})(?!`)((?:(?!\n\s*\n).)+?)(?<!`)\1(?!`)", re.DOTALL)
# a link to an issue or PR of GitHub reads as its number
_GITHUB_REF = re.compile(r"https?://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/(\d+)[^\s)\]>]*")
_HTML = re.compile(r"<!--.*?-->|<[^<>]*>", re.DOTALL)
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
# citation artefacts pasted from chat assistants: `[web:69]`, `[cite: 3]`, `【4†source】`, `[^2]`
_CITATION = re.compile(r"\[(?:[a-z_]+:\s*\d+(?:,\s*\d+)*|\^\d+)\]|【\d+†[^】]*】", re.IGNORECASE)
_EMPHASIS = re.compile(r"(\*\*|__)(.*?)\1")
_ITALIC = re.compile(r"(?<![\w*])\*(?![\s*])([^*\n]+?)(?<!\s)\*(?![\w*])")
_SPACE = re.compile(r"\s+")
# a URL never takes the `)` that closes the parenthesis it was written in
_URL = re.compile(r"(?:https?://|www\.)[^\s)\]>]+")
_EMPTY_PARENS = re.compile(r"\(\s*[:;,.]?\s*\)")
_DANGLING = re.compile(r"\s*[:;,]\s*(?=\))")
_LIST_MARK = re.compile(r"^(?:[-*•+]|\d{1,2}[.)]|\[[ xX]\])\s+")
_BOLD_LINE = re.compile(r"^(\*\*|__)[^*_]+\1:?$")  # `**Summary**` is a heading, not a gist
_THIS_PR = re.compile(r"(?<=[.!?。] )(?:this (?:pr|pull request|change)|we)\b", re.IGNORECASE)
_CJK = re.compile(r"[\u3400-\u9fff]")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# placeholders for code spans while the text is cleaned (private-use characters)
_HOLD = "\ue000{}\ue001"
_HELD = re.compile("\ue000(\\d+)\ue001")

GIST_MAX_CHARS = 120
# shorter than this ("As title", "N/A", "To fix the issue") says nothing the title does not
GIST_MIN_CHARS = 20
GIST_MIN_WORDS = 5
# a cut keeps at least this share of the limit, else it falls back to a weaker boundary
MIN_CUT_SHARE = 3
ELLIPSIS = "…"
SENTENCE_ENDS = ".!?。！？"
CLAUSE_ENDS = ";；,，:：、"
OPENERS = {"(": ")", "（": "）", "[": "]", "「": "」", "“": "”"}
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.")
# boundary strengths: a sentence end beats a clause end beats a space
SENTENCE, CLAUSE, WORD = 2, 1, 0
FILES_KEY = "narrative.files"


# --- the body's own words ---------------------------------------------------------------


def _section_text(body: str) -> str:
    heading = _WHAT_HEADING.search(body)
    if not heading:
        return ""
    rest = body[heading.end() :]
    following = _HEADING.search(rest)
    return rest[: following.start()] if following else rest


def _hold_code(text: str) -> tuple[str, list[str]]:
    """Code spans swapped for placeholders, so markup cleaning leaves what they quote alone."""
    held: list[str] = []

    def keep(match: re.Match[str]) -> str:
        held.append(" ".join(match.group(0).split()))
        return _HOLD.format(len(held) - 1)

    return _CODE_SPAN.sub(keep, text), held


def _clean_markup(text: str) -> str:
    text = _GITHUB_REF.sub(r"#\1", _IMAGE.sub("", _HTML.sub("", text)))
    text = _URL.sub("", _LINK.sub(r"\1", _CITATION.sub("", text)))
    return _EMPTY_PARENS.sub("", _DANGLING.sub("", text))


def _paragraph_items(text: str) -> list[str]:
    """The first paragraph that is not the template's hint, as list items (or one item)."""
    items: list[str] = []
    quoted = False  # a `>` line and its lazy continuation lines are the template's hint
    fenced = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("```"):  # code is no gist: a fence ends the paragraph
            if items:
                break
            fenced = not fenced
            continue
        if fenced:
            continue
        if not line:
            quoted = False
            if items:
                break
            continue
        quoted = quoted or line.startswith(">")
        if quoted or _BOLD_LINE.match(line):
            continue
        item = _LIST_MARK.sub("", line)
        if item != line or not items:
            items.append(item)
        else:
            items[-1] += " " + line
    return items


def _first_paragraph(text: str) -> list[str]:
    """The first real paragraph as its list items (or one item), each in one line, markup
    removed."""
    held_text, held = _hold_code(_FENCE.sub("", text))
    out = []
    for item in _paragraph_items(_clean_markup(held_text)):
        line = _SPACE.sub(" ", _ITALIC.sub(r"\1", _EMPHASIS.sub(r"\2", item))).strip()
        out.append(_HELD.sub(lambda m: held[int(m.group(1))], line))
    return [item for item in out if item]


# --- cutting ------------------------------------------------------------------------------


def _is_sentence_end(text: str, i: int) -> bool:
    ch = text[i]
    if ch not in SENTENCE_ENDS:
        return False
    if ch in "。！？":
        return True
    followed = i + 1 == len(text) or text[i + 1].isspace()
    previous = text[i - 1] if i else " "
    if not followed or previous in ".…" or previous.isdigit() or previous.isspace():
        return False  # "..." is no sentence end, nor "v0.6." in a version
    return not any(text[: i + 1].endswith(a) for a in _ABBREVIATIONS)


def _is_clause_end(text: str, i: int) -> bool:
    ch = text[i]
    if ch not in CLAUSE_ENDS:
        return False
    return ch in "；，：、" or i + 1 == len(text) or text[i + 1].isspace()


def boundaries(text: str) -> list[tuple[int, int]]:
    """(end index, strength) of every place the text may be cut: sentence ends, clause ends and
    spaces, none of them inside parentheses, brackets, quotes or `code`."""
    out: list[tuple[int, int]] = []
    closers: list[str] = []
    in_code = False
    for i, ch in enumerate(text):
        if ch == "`":
            in_code = not in_code
            continue
        if in_code:
            continue
        if ch in OPENERS:
            closers.append(OPENERS[ch])
        elif closers and ch == closers[-1]:
            closers.pop()
        if closers:
            continue
        if _is_sentence_end(text, i):
            out.append((i + 1, SENTENCE))
        elif _is_clause_end(text, i):
            out.append((i, CLAUSE))
        elif ch.isspace():
            out.append((i, WORD))
    return out


def _balanced_prefix(text: str) -> str:
    """`text` up to its first bracket or backtick that never closes (a URL removed from
    "(tested up to 0.16: https://…)" leaves one)."""
    closers: list[tuple[str, int]] = []
    in_code: int | None = None
    for i, ch in enumerate(text):
        if ch == "`":
            in_code = None if in_code is not None else i
        elif in_code is None and ch in OPENERS:
            closers.append((OPENERS[ch], i))
        elif in_code is None and closers and ch == closers[-1][0]:
            closers.pop()
    starts = [i for _, i in closers] + ([in_code] if in_code is not None else [])
    return text[: min(starts)] if starts else text


def shorten(text: str, limit: int = GIST_MAX_CHARS) -> str:
    """`text` whole when it fits, else cut at the strongest boundary that keeps at least a
    third of `limit` (sentence, then clause, then word) and ended with "…"."""
    whole = _balanced_prefix(text).rstrip(" ,;:，；：(（")
    if len(whole) <= limit:
        return whole if whole == text.rstrip() else whole + ELLIPSIS
    fits = [(end, strength) for end, strength in boundaries(whole) if 0 < end < limit]
    floor = limit // MIN_CUT_SHARE
    for wanted in (SENTENCE, CLAUSE, WORD):
        ends = [end for end, strength in fits if strength == wanted and end >= floor]
        if ends:
            return whole[: max(ends)].rstrip(" ,;:，；：.。") + ELLIPSIS
    if fits:  # a short lead before a long parenthesis or code span: keep just the lead
        return whole[: max(end for end, _ in fits)].rstrip(" ,;:，；：.。") + ELLIPSIS
    # one unbroken token longer than the limit: nothing better than a hard cut
    return _balanced_prefix(whole[: limit - 1]).rstrip() + ELLIPSIS


# --- says nothing beyond the title ----------------------------------------------------------


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def says_nothing(gist: str, title: str) -> bool:
    """Too short to say anything ("As title.", "fix ci"), or only words of the title."""
    if len(gist) < GIST_MIN_CHARS:
        return True
    if not _CJK.search(gist) and len(gist.split()) < GIST_MIN_WORDS:
        return True
    return _words(gist) <= _words(title) | _words(parse_title(title).description)


def gist_of(pr: PullRequest) -> str:
    """The body's "What does this PR do?" in one line (no closing full stop, the catalogs
    punctuate around it), or "" when it says nothing beyond the title."""
    items = _first_paragraph(_section_text(pr.body or ""))
    title = _words(pr.title)
    while items and _words(items[0]) <= title:  # a first item that restates the title
        items.pop(0)
    heads = [i.rstrip(";.") for i in items[:-1]]
    gist = "; ".join([*heads, *items[-1:]])
    this_pr = _THIS_PR.search(gist)
    if this_pr and this_pr.start() > 0:  # context first, then "This PR adds …": take the latter
        gist = gist[this_pr.start() :]
    gist = shorten(gist).rstrip("。.")
    return "" if says_nothing(gist.removesuffix(ELLIPSIS), pr.title) else gist


# --- what the files show ----------------------------------------------------------------------


def _folder(path: str) -> str:
    head, _, _ = path.rpartition("/")
    return f"{head}/" if head else path


def _busiest_folder(files: list[FileChange]) -> str:
    lines: Counter[str] = Counter()
    for f in files:
        lines[_folder(f.path)] += f.additions + f.deletions + 1
    return min(lines, key=lambda folder: (-lines[folder], folder))


def files_gist(pr: PullRequest) -> Statement | None:
    """What the files show, as `narrative.files.*`: the one file added, changed or removed, or
    the largest added file and the folder most of the lines changed in. None without files."""
    files = pr.files
    if not files:
        return None
    if len(files) == 1:
        only = files[0]
        verb = {FileStatus.ADDED: "one_added", FileStatus.REMOVED: "one_removed"}
        name = verb.get(only.status, "one_changed")
        return Statement(key=f"{FILES_KEY}.{name}", params={"path": only.path})
    params: dict[str, str | int | float | list[int] | list[str]] = {
        "count": len(files),
        "folder": _busiest_folder(files),
    }
    added = [f for f in files if f.status == FileStatus.ADDED]
    if added:
        params["path"] = max(added, key=lambda f: (f.additions, f.path)).path
        return Statement(key=f"{FILES_KEY}.many_added", params=params)
    return Statement(key=f"{FILES_KEY}.many", params=params)
