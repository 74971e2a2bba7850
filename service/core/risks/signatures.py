"""Python API changes callers meet without an error message of their own, read hunk by hunk.

Each hunk of a core module (not a test) is read on both of its sides, old and new, so a
signature split over lines is whole even when the patch changes one of them. Rules:
- ``renamed_symbol``: a public top-level ``def``/``class`` (or a method of a public class) gives
  way, in the same hunk, to one of another name with the same parameters (or bases), and no file
  of the PR defines the old name again or leaves an alias (``Old = New``): callers of the old
  name fail with an ImportError or AttributeError.
- ``required_argument``: a public function, method or constructor (``__init__``) gains a
  parameter without a default: every existing call without it fails with a TypeError.
- ``code_default_changed``: a parameter default, or a default of a class field (dataclass,
  pydantic model) outside the config files `config_changes` reads, changes value: callers that
  relied on it silently get the new behaviour.
Private names (``_x``) are not API; a function the PR adds is new, not changed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from difflib import SequenceMatcher

from service.core.models import EvidenceSide, FileChange, FileStatus, PullRequest
from service.core.risks.base import Context, Line, line_of

CODE_SUFFIX = ".py"
MAX_SIGNATURE_LINES = 40
SIMILAR_NAMES = 0.6
MAX_ARGUMENTS = 3
INDENT = 4  # a method's indent below its class
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@ ?(.*)$")
_DEF = re.compile(r"^(\s*)(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)\s*([(:])")
_CLASS_LINE = re.compile(r"^(\s*)class\s+([A-Za-z_]\w*)")
_FIELD = re.compile(r"^(\s+)([A-Za-z]\w*)\s*:\s*[^=]+?=\s*(.+?)\s*$")
_NAME = re.compile(r"^\**([A-Za-z_]\w*)")
_COMMENT = re.compile(r"\s+#.*$")
_OPEN, _CLOSE = "([{", ")]}"
_IMPLICIT = frozenset({"self", "cls"})


@dataclass(frozen=True)
class Side:
    """One side of a hunk: its lines in file order, and which of them the patch changes."""

    lines: tuple[Line, ...]
    changed: frozenset[int]  # indexes into `lines`
    header: str


@dataclass(frozen=True)
class Signature:
    kind: str  # def or class
    name: str
    indent: int
    owner: str | None  # the enclosing class of a method
    params: tuple[Param, ...]
    start: int  # index of the def line in its side
    end: int  # index of its last line

    @property
    def label(self) -> str:
        return f"{self.owner}.{self.name}" if self.owner else self.name


@dataclass(frozen=True)
class Param:
    name: str
    default: str | None
    starred: bool
    at: int  # index of the line that holds it in its side


@dataclass(frozen=True)
class SignatureChange:
    """One change callers meet: `rule`, its label, and the old and new line (path, Line)."""

    rule: str
    label: str
    old: tuple[str, Line]
    new: tuple[str, Line]


_REMOVED, _ADDED, _CONTEXT = EvidenceSide.REMOVED, EvidenceSide.ADDED, EvidenceSide.CONTEXT


def _sides(patch: str) -> Iterator[tuple[Side, Side]]:
    """(old side, new side) of each hunk of a patch (its Lines made as `parse_patch` makes
    them: all fields in order, not through the NamedTuple's keyword defaults)."""
    old: list[Line] = []
    new: list[Line] = []
    old_changed: set[int] = set()
    new_changed: set[int] = set()
    header = ""
    old_no = new_no = 0
    started = False
    for raw in patch.splitlines():
        match = _HUNK.match(raw) if raw.startswith("@") else None
        if match:
            if started:
                yield _pair(old, old_changed, new, new_changed, header)
            old, new, old_changed, new_changed = [], [], set(), set()
            old_no, new_no, header = int(match.group(1)), int(match.group(2)), match.group(3)
            started = True
            continue
        sign, text = raw[:1], raw[1:]
        if sign == "-":
            old_changed.add(len(old))
            old.append(line_of((old_no, text, None, "", _REMOVED, False, 0, None)))
            old_no += 1
        elif sign == "+":
            new_changed.add(len(new))
            new.append(line_of((new_no, text, None, "", _ADDED, False, 0, None)))
            new_no += 1
        elif sign in (" ", ""):  # context: cited by its new-file number, as the parser does
            line = line_of((new_no, text, None, "", _CONTEXT, False, 0, None))
            old.append(line)
            new.append(line)
            old_no += 1
            new_no += 1
    if started:
        yield _pair(old, old_changed, new, new_changed, header)


def _pair(
    old: list[Line], old_changed: set[int], new: list[Line], new_changed: set[int], header: str
) -> tuple[Side, Side]:
    return (
        Side(tuple(old), frozenset(old_changed), header),
        Side(tuple(new), frozenset(new_changed), header),
    )


def _split_params(text: str, first: int, ends: list[int]) -> tuple[Param, ...]:
    """Top-level comma-separated parameters of `text` (what is inside the parentheses);
    `ends[i]` is where line `first + i` ends in `text`."""
    params: list[Param] = []
    depth, start = 0, 0
    for index, char in enumerate([*text, ","]):
        if char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
        elif char == "," and depth == 0:
            segment = text[start:index]
            lead = len(segment) - len(segment.lstrip())
            params += _param(segment, first + _line_of(start + lead, ends))
            start = index + 1
    return tuple(params)


def _line_of(offset: int, ends: list[int]) -> int:
    for index, end in enumerate(ends):
        if offset < end:
            return index
    return len(ends) - 1


def _param(text: str, at: int) -> list[Param]:
    """One parameter (`name: T = default`, `*args`, a bare `*`)."""
    stripped = text.strip()
    match = _NAME.match(stripped)
    if not match:
        return [Param("*", None, True, at)] if stripped == "*" else []
    depth, default = 0, None
    for index, char in enumerate(stripped):
        if char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
        elif char == "=" and depth == 0:
            default = " ".join(stripped[index + 1 :].split())
            break
    return [Param(match.group(1), default, stripped.startswith("*"), at)]


def _signature(side: Side, index: int) -> Signature | None:
    """The def or class that starts at line `index` of the side, when the side shows it all."""
    first = side.lines[index].text
    # most lines hold neither word, and cost no match to find out (~200,000 at 2,046 PRs)
    match = _DEF.match(first) if "def" in first or "class" in first else None
    if not match:
        return None
    indent, kind, name = len(match.group(1)), match.group(2), match.group(3)
    owner = _owner(side, index, indent) if indent else None
    if kind == "class" and match.group(4) == ":":
        return Signature(kind, name, indent, owner, (), index, index)
    texts: list[str] = []
    ends: list[int] = []
    depth = 0
    for offset, line in enumerate(side.lines[index : index + MAX_SIGNATURE_LINES]):
        text = _COMMENT.sub("", line.text)
        if offset == 0:
            text = text[text.index("(") + 1 :]
            depth = 1
        for position, char in enumerate(text):
            depth += (char in _OPEN) - (char in _CLOSE)
            if depth == 0:
                texts.append(text[:position])
                ends.append(sum(len(t) + 1 for t in texts))
                joined = " ".join(texts)
                params = _split_params(joined, index, ends)
                return Signature(kind, name, indent, owner, params, index, index + offset)
        texts.append(text)
        ends.append(sum(len(t) + 1 for t in texts))
    return None


def _owner(side: Side, index: int, indent: int) -> str | None:
    """The class a method at `indent` sits in: the nearest less-indented line above it in the
    hunk, else the hunk header's scope; None when that is no class (a nested function)."""
    for line in reversed(side.lines[:index]):
        text = line.text
        if text.strip() and len(text) - len(text.lstrip()) < indent:
            found = _CLASS_LINE.match(text)
            return found.group(2) if found and len(found.group(1)) + INDENT == indent else None
    found = _CLASS_LINE.match(side.header)
    return found.group(2) if found and indent == INDENT else None


def _signatures(side: Side) -> dict[tuple[int, str | None, str], Signature]:
    found = {}
    for index in range(len(side.lines)):
        signature = _signature(side, index)
        if signature is not None and (signature.indent == 0 or signature.owner):
            found[(signature.indent, signature.owner, signature.name)] = signature
    return found


def _public(signature: Signature) -> bool:
    if signature.owner and signature.owner.startswith("_"):
        return False
    return signature.name == "__init__" or not signature.name.startswith("_")


def _touched(side: Side, signature: Signature) -> bool:
    return any(signature.start <= i <= signature.end for i in side.changed)


def _argument_changes(
    path: str, old_side: Side, new_side: Side, old: Signature, new: Signature
) -> Iterator[SignatureChange]:
    before = {p.name: p for p in old.params}
    # a parameter renamed (`keys` → `key`) is not one more to pass: only a longer list of
    # required parameters is
    grown = _required(new) > _required(old)
    required: list[Param] = []
    keyword_only = False
    for param in new.params:
        keyword_only = keyword_only or param.starred
        if param.starred or param.name in _IMPLICIT:
            continue
        was = before.get(param.name)
        if was is None and param.default is None and grown:
            required.append(param)
        elif was is not None and was.default and param.default and was.default != param.default:
            label = f"{new.label}({param.name}={was.default} → {param.default})"
            old_line, new_line = old_side.lines[was.at], new_side.lines[param.at]
            yield SignatureChange("code_default_changed", label, (path, old_line), (path, new_line))
    if required:
        # no ", " inside: a list of labels is ", "-joined
        names = " ".join(f"+{p.name}" for p in required[:MAX_ARGUMENTS])
        more = " …" if len(required) > MAX_ARGUMENTS else ""
        label = f"{new.label}({names}{more})"
        old_line, new_line = old_side.lines[old.start], new_side.lines[required[0].at]
        yield SignatureChange("required_argument", label, (path, old_line), (path, new_line))


def _required(signature: Signature) -> int:
    return sum(
        1
        for p in signature.params
        if p.default is None and not p.starred and p.name not in _IMPLICIT
    )


def _field_defaults(side: Side) -> dict[tuple[str, str], tuple[int, str]]:
    """(class, field) → (line index, default) of the class fields the side shows."""
    found = {}
    for index, line in enumerate(side.lines):
        text = line.text
        if "=" not in text or ":" not in text:  # no field with a default: most lines
            continue
        match = _FIELD.match(_COMMENT.sub("", text) if "#" in text else text)
        if not match or "(" in text.split(":", 1)[0]:
            continue
        owner = _owner(side, index, len(match.group(1)))
        if owner and not owner.startswith("_"):
            found[(owner, match.group(2))] = (index, " ".join(match.group(3).split()))
    return found


def _field_changes(path: str, old_side: Side, new_side: Side) -> Iterator[SignatureChange]:
    before = _field_defaults(old_side)
    for key, (index, value) in _field_defaults(new_side).items():
        was = before.get(key)
        if was is None or was[1] == value or index not in new_side.changed:
            continue
        label = f"{key[0]}.{key[1]}: {was[1]} → {value}"
        old_line, new_line = old_side.lines[was[0]], new_side.lines[index]
        yield SignatureChange("code_default_changed", label, (path, old_line), (path, new_line))


def _renames(
    path: str,
    olds: dict[tuple[int, str | None, str], Signature],
    news: dict[tuple[int, str | None, str], Signature],
    sides: tuple[Side, Side],
) -> Iterator[SignatureChange]:
    gone = [s for key, s in olds.items() if key not in news and _public(s)]
    added = [s for key, s in news.items() if key not in olds]
    for old in gone:
        shape = [p.name for p in old.params]
        twin = next(
            (
                new
                for new in added
                if (new.kind, new.indent, new.owner) == (old.kind, old.indent, old.owner)
                and [p.name for p in new.params] == shape
                and _alike(sides, old, new)
            ),
            None,
        )
        if twin is not None:
            old_line, new_line = sides[0].lines[old.start], sides[1].lines[twin.start]
            label = f"{old.label} → {twin.name}"
            yield SignatureChange("renamed_symbol", label, (path, old_line), (path, new_line))


def _alike(sides: tuple[Side, Side], old: Signature, new: Signature) -> bool:
    """A rename keeps the name's gist (one name holds the other, or most of it), or, for a
    class, its bases."""
    a, b = old.name.lower(), new.name.lower()
    if a in b or b in a or SequenceMatcher(None, a, b).ratio() >= SIMILAR_NAMES:
        return True
    bases = _bases(sides[0].lines[old.start].text)
    return old.kind == "class" and bool(bases) and bases == _bases(sides[1].lines[new.start].text)


def _bases(text: str) -> str:
    return text.split("(", 1)[1] if "(" in text else ""


def _file_changes(path: str, patch: str) -> Iterator[SignatureChange]:
    for old_side, new_side in _sides(patch):
        if not old_side.changed and not new_side.changed:
            continue
        olds, news = _signatures(old_side), _signatures(new_side)
        for key, new in news.items():
            old = olds.get(key)
            if old is None or not _public(new) or new.kind != "def":
                continue
            if _touched(old_side, old) or _touched(new_side, new):
                yield from _argument_changes(path, old_side, new_side, old, new)
        yield from _field_changes(path, old_side, new_side)
        yield from _renames(path, olds, news, (old_side, new_side))


def _watched(change: FileChange, context: Context) -> bool:
    profile = context.profile
    return (
        change.status == FileStatus.MODIFIED
        and change.path.endswith(CODE_SUFFIX)
        and profile.is_core(change.path)
        and not profile.is_test(change.path)
        and bool(change.patch)
    )


def _kept_alive(name: str, pr: PullRequest, context: Context) -> bool:
    """Whether the PR defines `name` again or leaves an alias for it somewhere."""
    alias = re.compile(rf"^\s*(?:(?:async\s+)?def\s+|class\s+)?{re.escape(name)}\b\s*[(:=]")
    reexport = re.compile(rf"\bas\s+{re.escape(name)}\b")
    for change in pr.files:
        for text in context.changed(change)[1]:
            if alias.match(text) or reexport.search(text):
                return True
    return False


def signature_changes(pr: PullRequest, context: Context) -> list[SignatureChange]:
    """Renamed symbols without an alias, new required arguments and changed defaults of the
    PR's core modules; config files are `config_changes`' (its defaults are reported there)."""
    found: list[SignatureChange] = []
    for change in pr.files:
        if _watched(change, context):
            config = context.profile.is_config_definition(change.path)
            found += [
                c
                for c in _file_changes(change.path, change.patch or "")
                if not (config and c.rule == "code_default_changed")
            ]
    return [
        c
        for c in found
        if c.rule != "renamed_symbol"
        or not _kept_alive(c.label.split(" → ")[0].rsplit(".", 1)[-1], pr, context)
    ]
