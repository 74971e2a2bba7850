"""The defaults a PR's changed lines give names, read from the code that defines them: a
shell fallback (`${MAX_NUM_SEQS:-32}`), a getter's fallback (`.get("max_concurrent", 1)`,
`getattr(cfg, "x", None)`, `os.getenv("X", "8")`), a keyword default (`default=""`,
`field(default=4)`, `default_factory=lambda: [0, 5]`) on a line that names the option, an
annotated field or parameter (`prefix: str = ""`), a config file's key (`x: null` in a yaml),
or a docstring's "`x` (int): … Default: 1".

`defaults(files, side)` maps each name (lower case, its last dotted part) to the values the
lines of that side give it, as `structure.value` compares them ("None" and "null" alike).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from service.core.analyst.structure import value

# `${NAME:-value}` or `${NAME:=value}`; a fallback to another variable is no value
_SHELL = re.compile(r"\$\{(\w+):[-=]([^${}]*)\}")
# `.get("name", value)`, `getattr(obj, "name", value)`, `getenv("NAME", "value")`
_GETTER = re.compile(
    r"""(?:\.get|\bgetattr|\bgetenv)\(\s*(?:[\w.\[\]]+\s*,\s*)?["']([\w.\-]+)["']\s*,\s*"""
    r"""(\[[^\]\n]*\]|"[^"\n]*"|'[^'\n]*'|[^,()\s]+)\s*\)"""
)
# a keyword default on a line: `default=value`, `default_factory=lambda: value`
_KEYWORD = re.compile(
    r"""\bdefault(?:_factory\s*=\s*lambda\s*:|\s*=)\s*"""
    r"""(\[[^\]\n]*\]|"[^"\n]*"|'[^'\n]*'|[^,()\s]+)"""
)
# the option a line defines: `"--name"` of an argument parser, or the key it starts with
_OPTION = re.compile(r"""["']--?([\w\-]+)["']""")
_LEADING_KEY = re.compile(r"""^\s*["']?([A-Za-z_][\w\-]*)["']?\s*[:=]""")
# `name: type = value` (a field or a parameter with its annotation)
_ANNOTATED = re.compile(
    r"""^\s*([A-Za-z_]\w*)\s*:\s*[^=\n]{1,80}?=\s*"""
    r"""(\[[^\]\n]*\]|"[^"\n]*"|'[^'\n]*'|[^,()\s#]+)\s*,?\s*(?:#.*)?$"""
)
# `name: value` in a config file
_YAML = re.compile(r"""^\s*([A-Za-z_][\w\-]*)\s*:\s*(\[[^\]\n]*\]|[^\s#\[{][^#\n]*?)\s*(?:#.*)?$""")
# a docstring's `name (type): … Default: value`
_DOC = re.compile(
    r"""^\s*[-*]?\s*`*([A-Za-z_]\w*)`*\s*\([^)\n]{0,40}\)\s*:.*?\bdefault\s*(?:is|:|=)?\s*"""
    r"""(\[[^\]\n]*\]|"[^"\n]*"|'[^'\n]*'|[^\s,;()]+?)\.?(?:\s|$|[,;(])""",
    re.IGNORECASE,
)
_CONFIG_FILE = re.compile(r"\.ya?ml$")
_CODE_FILE = re.compile(r"\.py$")


def _name(raw: str) -> str:
    return raw.lower().lstrip("-").replace("-", "_").rsplit(".", 1)[-1]


def _line_defaults(path: str, line: str) -> Iterator[tuple[str, str]]:
    """(name, value) each default the line gives."""
    for found in _SHELL.finditer(line):
        if found[2].strip():
            yield _name(found[1]), value(found[2])
    for found in _GETTER.finditer(line):
        yield _name(found[1]), value(found[2])
    keyword = _KEYWORD.search(line)
    option = (_OPTION.search(line) or _LEADING_KEY.match(line)) if keyword else None
    if keyword and option:
        yield _name(option[1]), value(keyword[1])
    yield from _file_defaults(path, line)


def _file_defaults(path: str, line: str) -> Iterator[tuple[str, str]]:
    """(name, value) a line of code gives as a field's, parameter's or documented default,
    or a line of a config file as a key's."""
    if _CODE_FILE.search(path):
        annotated = _ANNOTATED.match(line)
        if annotated and "(" not in annotated[2]:
            yield _name(annotated[1]), value(annotated[2])
        doc = _DOC.match(line)
        if doc:
            yield _name(doc[1]), value(doc[2])
    elif _CONFIG_FILE.search(path):
        key = _YAML.match(line)
        if key:
            yield _name(key[1]), value(key[2])


def defaults(
    files: Sequence[tuple[str, Sequence[str], Sequence[str]]], side: str
) -> dict[str, set[str]]:
    """Each name the `side` ("+" added, "-" removed) of the files' changed lines gives a
    default, with its values."""
    out: dict[str, set[str]] = {}
    for path, removed, added in files:
        for line in added if side == "+" else removed:
            for name, said in _line_defaults(path.lower(), line):
                out.setdefault(name, set()).add(said)
    return out


def holds(said: str, values: set[str]) -> bool:
    """`said` (as `structure.value` gives it) is one of `values`, or a member of a list
    one of them is (`5` of `[0, 5]`)."""
    if said in values:
        return True
    token = rf"(?<![\w.\-]){re.escape(said)}(?![\w.])"
    return any(v.startswith("[") and re.search(token, v) for v in values)
