"""A small shell reader: which variables a script assigns and which it expands, line by line.

It is not a parser. It errs towards "assigned" (a `name=` anywhere counts) so that the unset
variable rule stays quiet unless a name is really never set. shellcheck, when installed, is the
better judge for lower-case names on whole files (it skips upper-case ones as environment).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from service.core.risks.base import Line

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_ASSIGN = re.compile(rf"(?:^|[\s;&|(`]|\$\()({_NAME})(?:\[[^\]]*\])?\+?=")
_DECLARE = re.compile(
    rf"(?:^|[\s;&|(])(?:export|local|declare|typeset|readonly|unset)((?:\s+-\w+)*(?:\s+{_NAME}(?:=\S*)?)+)"
)
_READ_OPTION = r"\s+-\w+(?:\s+(?:'[^']*'|\"[^\"]*\"|\S+))?"
_READ = re.compile(rf"(?:^|[\s;&|(])read((?:{_READ_OPTION})*(?:\s+{_NAME})+)")
_FOR = re.compile(rf"(?:^|[\s;&|(])(?:for|select)\s+({_NAME})\s+in\b")
_GETOPTS = re.compile(rf"\bgetopts\s+(?:'[^']*'|\"[^\"]*\"|\S+)\s+({_NAME})")
_MAPFILE = re.compile(rf"\b(?:mapfile|readarray)(?:\s+-\w+(?:\s+\S+)?)*\s+({_NAME})\b")
_PRINTF_V = re.compile(rf"\bprintf\s+-v\s+({_NAME})")
_DEFAULT_ASSIGN = re.compile(rf"\$\{{({_NAME}):?=")
_SOURCE = re.compile(r"(?:^|[\s;&|])(?:source|\.)\s+([^;&|]+)")
_EXPANSION = re.compile(rf"(?<!\\)\$(?:\{{(#?)({_NAME})([^}}]*)\}}|({_NAME}))")
_TEST_EMPTY = re.compile(rf"-[zn]\s+\"?\$\{{?({_NAME})")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)(\w+)\1")
_SINGLE_QUOTED = re.compile(r"'[^']*'")
_COMMENT = re.compile(r"(?:^|\s)#.*$")
_WORD_LIST = re.compile(_NAME)
_SAFE_OPERATORS = (":-", "-", ":=", "=", ":?", "?", ":+", "+")
# the patterns whose one group is the assigned name
_ONE_NAME = (_ASSIGN, _FOR, _GETOPTS, _MAPFILE, _PRINTF_V, _DEFAULT_ASSIGN)
# a text every match of the patterns above, _DECLARE and _READ holds (readarray and readonly
# hold "read"): a line without any assigns nothing, and costs one search instead of eight
_MAY_ASSIGN = re.compile(
    r"=|for|select|getopts|mapfile|read|printf|export|local|declare|typeset|unset"
)
_SET_U = re.compile(r"^\s*set\s+-[a-zA-Z]*u|^\s*set\s+-o\s+nounset")

# Set by the shell itself, by a login session or by CI runners: never "unset" in a script.
ENVIRONMENT = frozenset(
    {
        "HOME",
        "PWD",
        "OLDPWD",
        "USER",
        "LOGNAME",
        "PATH",
        "SHELL",
        "HOSTNAME",
        "HOSTTYPE",
        "OSTYPE",
        "MACHTYPE",
        "RANDOM",
        "LINENO",
        "SECONDS",
        "BASH",
        "BASH_SOURCE",
        "BASH_VERSION",
        "BASH_REMATCH",
        "BASH_LINENO",
        "BASH_ARGV",
        "BASH_ARGC",
        "FUNCNAME",
        "PIPESTATUS",
        "IFS",
        "PPID",
        "UID",
        "EUID",
        "GROUPS",
        "OPTARG",
        "OPTIND",
        "REPLY",
        "TMPDIR",
        "TERM",
        "LANG",
        "LC_ALL",
        "PS1",
        "PS4",
        "EPOCHSECONDS",
        "EPOCHREALTIME",
        "SHLVL",
        "DIRSTACK",
        "COLUMNS",
        "LINES",
        "CI",
        "BASHPID",
        "HISTFILE",
        "EDITOR",
    }
)
ENVIRONMENT_PREFIXES = ("GITHUB_", "RUNNER_")


@dataclass(frozen=True)
class Use:
    """A variable expanded without a default on a given line."""

    name: str
    line: Line


def _strip_quotes_and_comments(text: str) -> str:
    without_single = _SINGLE_QUOTED.sub("''", text)
    return _COMMENT.sub("", without_single)


def code_lines(lines: Iterable[Line]) -> Iterator[Line]:
    """Lines with comments, single-quoted text and quoted heredoc bodies blanked out."""
    literal_until: str | None = None
    for line in lines:
        if literal_until is not None:
            if line.text.strip() == literal_until:
                literal_until = None
            continue
        heredoc = _HEREDOC.search(line.text)
        if heredoc and heredoc.group(1):
            literal_until = heredoc.group(2)
        yield line.cleaned(_strip_quotes_and_comments(line.text))


def _names_after_keyword(words: str) -> set[str]:
    found = set()
    for word in words.split():
        if word.startswith("-"):
            continue
        match = _WORD_LIST.match(word)
        if match:
            found.add(match.group(0))
    return found


def assigned_names(lines: Iterable[Line]) -> set[str]:
    """Every name the lines assign, declare, export, read, loop over or default-assign."""
    names: set[str] = set()
    for line in lines:
        text = line.text
        if not _MAY_ASSIGN.search(text):
            continue
        for pattern in _ONE_NAME:
            names.update(pattern.findall(text))  # one group: the name
        for words in (*_DECLARE.findall(text), *_READ.findall(text)):
            names.update(_names_after_keyword(words))
    return names


def sourced_files(lines: Iterable[Line]) -> list[str]:
    """The file names (last path component) of `source X` / `. X`."""
    names = []
    for line in lines:
        for match in _SOURCE.finditer(line.text):
            argument = match.group(1).replace('"', "").replace("'", "")
            after_dir = argument.rsplit("/", 1)[-1]  # `$(dirname "$0")/env.sh` → `env.sh`
            words = after_dir.split()
            if words:
                names.append(words[0])
    return names


def _is_plain_use(operator: str) -> bool:
    return not operator.startswith(_SAFE_OPERATORS)


def expanded_names(line: Line) -> Iterator[Use]:
    """Names the line expands with no default, no assign-default and no emptiness test."""
    tested = {m.group(1) for m in _TEST_EMPTY.finditer(line.text)}
    for match in _EXPANSION.finditer(line.text):
        if match.group(4):
            name = match.group(4)
        elif match.group(1) or _is_plain_use(match.group(3)):
            name = match.group(2)
        else:
            continue
        if name not in tested:
            yield Use(name, line)


def guarded_names(lines: Iterable[Line]) -> set[str]:
    """Names expanded somewhere with a default/alternative operator or tested for emptiness:
    the author has thought about them being unset."""
    names: set[str] = set()
    for line in lines:
        names.update(m.group(1) for m in _TEST_EMPTY.finditer(line.text))
        for match in _EXPANSION.finditer(line.text):
            if match.group(2) and not match.group(1) and not _is_plain_use(match.group(3)):
                names.add(match.group(2))
    return names


def is_environment(name: str) -> bool:
    return name in ENVIRONMENT or name.startswith(ENVIRONMENT_PREFIXES)


def uses_nounset(lines: Iterable[Line]) -> bool:
    """Whether the script runs with `set -u` (an unset variable aborts it)."""
    return any(_SET_U.search(line.text) for line in lines)


def is_upper(name: str) -> bool:
    return name.upper() == name
