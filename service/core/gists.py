"""A PR's one-line gist: what its body says it does, cut only at a sentence or clause boundary,
or, when the body says nothing beyond the title, what its files show (a catalog statement).

The body is read the way a reviewer reads it: the answer to the template's "What does this PR
do?", else an Overview / Main feature / Key changes / Summary section, else the text before
the template, else any other section the author wrote (never the checklists or the test
section); the template's hints (`> Add **concise** overview…`, `> Demonstrate…`) are not the
author's words, other block quotes are. A list becomes a short clause list, its label
("Key changes:") dropped."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from service.core.models import FileChange, FileStatus, PullRequest, ScoredPR, Statement
from service.core.titles import parse_title

# a Markdown heading, or a line that is only a bold label (`**Overview**`)
_HEADING = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+(.*?)[ \t#]*|\*\*([^*\n]{1,60})\*\*:?[ \t]*)$", re.M)
# sections that say what the PR does, in the order they are read
_SAYS_WHAT = re.compile(
    r"^\W*(what does this pr do|overview|main features?|key changes|summary|motivation|"
    r"description|changes)\b",
    re.IGNORECASE,
)
# the template's own sections: the author's words are never in these
_TEMPLATE_ONLY = re.compile(
    r"^\W*(checklist before (starting|submitting)|tests?\b|testing\b)", re.IGNORECASE
)
# the template's hints: its first one word for word (authors write on right after it), the
# others as a block quote starting so, with its lazy continuation lines
CONCISE_HINT = (
    "Add **concise** overview of what this PR aims to achieve or accomplish.",
    "Reference related GitHub issues and PRs that help with the review.",
)


def _spaced_words(text: str) -> str:
    return r"\s+".join(re.escape(w) for w in re.split(r"\s+", text))


_CONCISE_HINT = re.compile(
    rf"^[ \t]*>[ \t]*{_spaced_words(CONCISE_HINT[0])}(?:\s+{_spaced_words(CONCISE_HINT[1])})?",
    re.IGNORECASE | re.MULTILINE,
)
_HINT = re.compile(
    r"^[ \t]*>[ \t]*(?:for changes that can not be tested|"
    r"demonstrate (?:how the api|the high-level design)|\[!important\]|please check all)"
    r"[^\n]*(?:\n(?![ \t]*\n)(?![ \t]*#)[^\n]*)*",
    re.IGNORECASE | re.MULTILINE,
)
_CHECKBOX = re.compile(r"^\[[ xX]\]\s")
_QUOTE_MARK = re.compile(r"^[ \t]*>[ \t]?", re.MULTILINE)
# the template's words an author kept or echoed ("as title. Reference related GitHub issues")
_BOILERPLATE = re.compile(
    r"\b(?:same )?as (?:the )?title\b[.。;,]?|reference related github issues(?: and prs)?"
    r"(?: that help with the review)?[.:]?",
    re.IGNORECASE,
)
# a title GitHub cut ("…") goes on at the start of the body: that is no body text
_TITLE_TAIL = re.compile(r"\A…[^\n]*(?:\n(?![ \t]*\n)[^\n]*)*")
# a short first line that only labels the list under it ("Summary", "Key changes:")
LABEL_WORDS = 3
# paragraphs of one section read before giving up on it
PARAGRAPHS_READ = 3
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
_SPACE_BEFORE_STOP = re.compile(r"(?<=\w) +([,;:.!?](?=\s|$))")
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

# words of every path: no sign that a file is what the title is about
_PATH_WORDS = frozenset(
    {"verl", "py", "md", "yaml", "sh", "json", "tests", "test", "docs", "utils"}
)
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


def _sections(body: str) -> list[tuple[str, str]]:
    """(heading, text) of each part of the body, the text before the first heading first."""
    out: list[tuple[str, str]] = []
    heading, last = "", 0
    for match in _HEADING.finditer(body):
        out.append((heading, body[last : match.start()]))
        heading, last = (match.group(1) or match.group(2) or "").strip(), match.end()
    out.append((heading, body[last:]))
    return out


def _readable(body: str) -> Iterator[str]:
    """The parts of the body that may say what the PR does, in the order they are read (each
    cleaned of the template's hints when it is read: the first part often holds the gist)."""
    text = _FENCE.sub("", _TITLE_TAIL.sub("", body.lstrip()))
    sections = [(h, t) for h, t in _sections(text) if not _TEMPLATE_ONLY.match(h)]
    wanted = [t for h, t in sections if h and _SAYS_WHAT.match(h)]
    preamble = [t for h, t in sections if not h]
    rest = [t for h, t in sections if h and not _SAYS_WHAT.match(h)]
    parts = (*wanted, *preamble, *rest)
    return (_QUOTE_MARK.sub("", _HINT.sub("", _CONCISE_HINT.sub("", t))) for t in parts)


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


def _paragraphs(text: str) -> list[list[str]]:
    """The text's paragraphs, each as its list items (or one item), lines joined."""
    out: list[list[str]] = []
    items: list[str] = []
    checklist = False
    for raw in [*text.splitlines(), ""]:
        line = raw.strip()
        if not line:
            if items:
                out.append(items)
            items = []
            continue
        if _BOLD_LINE.match(line):
            continue
        item = _LIST_MARK.sub("", line)
        if _CHECKBOX.match(item):
            checklist = True
            continue  # the template's checklist, ticked or not
        if checklist and item == line:
            continue  # a checklist item's continuation line
        checklist = False
        if item != line or not items:
            items.append(item)
        else:
            items[-1] += " " + line
    return out


def _clean_items(items: list[str], held: list[str]) -> list[str]:
    """The items as plain text; a line addressed to a summariser (planted text) is left out,
    and links, domains, secrets and mentions are taken out of the rest, as for the model."""
    # imported here: the report, which shows gists, does not make them (~15 ms of patterns)
    from service.core.analyst.body import mask_secrets, scrub, speaks_to_the_model

    out = []
    for item in items:
        line = _SPACE.sub(" ", _ITALIC.sub(r"\1", _EMPHASIS.sub(r"\2", item))).strip()
        line = _SPACE_BEFORE_STOP.sub(r"\1", line)  # "abstraction #4775 , in this pr"
        whole = _HELD.sub(lambda m: held[int(m.group(1))], line)
        if not speaks_to_the_model(whole):
            # code spans keep their `<…>` (types, tracebacks): only their secrets are masked
            out.append(_HELD.sub(lambda m: mask_secrets(held[int(m.group(1))]), scrub(line)))
    return [item for item in out if item]


def _paragraph_lists(text: str) -> Iterator[list[str]]:
    """The first paragraphs of a part of the body as their list items, markup removed (each
    paragraph's items cleaned when it is read)."""
    held_text, held = _hold_code(text)
    cleaned = _BOILERPLATE.sub("", _clean_markup(held_text))
    items = (_clean_items(p, held) for p in _paragraphs(cleaned)[:PARAGRAPHS_READ])
    return (c for c in items if c)


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


def _clause_list(items: list[str], title: set[str]) -> str:
    """Items as one line: a first item that restates the title or only labels the list is
    dropped; a lead ending in ':' introduces the rest; the rest are clauses joined by '; '."""
    items = list(items)
    while items and _words(items[0]) <= title:
        items.pop(0)
    if len(items) > 1 and len(items[0].split()) <= LABEL_WORDS:
        items.pop(0)  # "Summary", "Key changes:" label the list
    if len(items) > 1 and items[0].endswith((":", "：")):
        lead = items.pop(0)
        return lead + " " + _clause_list(items, set())
    heads = [i.rstrip(";.") for i in items[:-1]]
    return "; ".join([*heads, *items[-1:]])


def _gist_of_items(items: list[str], title: str) -> str:
    gist = _clause_list(items, _words(title))
    this_pr = _THIS_PR.search(gist)
    if this_pr and this_pr.start() > 0:  # context first, then "This PR adds …": take the latter
        gist = gist[this_pr.start() :]
    gist = shorten(gist).rstrip("。.")
    return "" if says_nothing(gist.removesuffix(ELLIPSIS), title) else gist


def gist_of(pr: PullRequest) -> str:
    """What the body says the PR does, in one line (no closing full stop, the catalogs
    punctuate around it), or "" when it says nothing beyond the title."""
    for part in _readable(pr.body or ""):
        for items in _paragraph_lists(part):
            gist = _gist_of_items(items, pr.title)
            if gist:
                return gist
    return ""


def title_point(title: str) -> str:
    """What the title says the PR does, without its `[modules] type:` prefix (a revert: the
    whole title, which says what it takes back)."""
    parsed = parse_title(title)
    return (parsed.description or title).strip().rstrip("。.")


def adds_to_title(pr: ScoredPR) -> bool:
    """Whether what the files show says something the title does not: a folder is no point,
    and a file named by the title's own words adds nothing."""
    statement = pr.files_gist
    if statement is None or statement.key.endswith(".many"):
        return False
    path = str(statement.params.get("path", "")).replace("_", " ")
    return not (_words(path) - _PATH_WORDS) & _words(pr.title.replace("_", " "))


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
