"""What a catalog parameter holds (PR numbers, identifiers, people, a change type …), read from
its name and value, so that a Speaker shows each the way its target writes it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from service.core.mentions import is_pr_param
from service.core.models import Digest
from service.render import escape
from service.render.speaking.naming import pr_ref_text

# A plain-text PR list as older digests wrote it: `#6200, #6162` or `#1, #2, …(+3)`.
_PR_LIST_TEXT = re.compile(r"#\d+(?:\s*[,、]\s*#\d+)*(?:\s*[,、]\s*…\s*\(\+\d+\))?")
PR_NUMBER = re.compile(r"#(\d+)")
_NAME_KEY = re.compile(r"[\W_]+")
# Parameters that name identifiers (paths, modules, symbols, commands): shown as code.
CODE_PARAMS = frozenset(
    {
        "path",
        "paths",
        "top_path",
        "folder",
        "module",
        "modules",
        "names",
        "targets",
        "command",
        "settings",
        "place",
        "target",
    }
)
# A statement parameter holding a PR number whose point (gist or files) the sentence shows.
POINT_PARAM = "point"
# A statement parameter holding logins, shown as people with their names and PR counts.
PEOPLE_PARAM = "logins"
TOTAL_SUFFIX = "_total"
# A parameter holding a change type (`feat`), shown by its name in the language (report.type).
TYPE_PARAM = "type"
# a chat sentence's list of PRs, unlinked
PLAIN_LIST_SEP = ", "

ParamValue = str | int | float | list[int] | list[str]


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_pr_list(value: object) -> bool:
    if isinstance(value, str):
        return bool(_PR_LIST_TEXT.fullmatch(value.strip()))
    return isinstance(value, list) and all(is_int(v) for v in value)


def is_pr_value(name: str, value: object) -> bool:
    """Whether a parameter names PRs (and so renders as `#N` links)."""
    if name.endswith(TOTAL_SUFFIX) or name == POINT_PARAM:
        return False
    return (is_int(value) and is_pr_param(name)) or _is_pr_list(value)


def plain_number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else round(value, 2)


def plain_prs(numbers: list[int]) -> str:
    """PR numbers as a chat line writes them, unlinked: `#1, #2`."""
    return PLAIN_LIST_SEP.join(pr_ref_text(n) for n in numbers)


def plain_param(value: Any, escape_text: Callable[[str], str]) -> Any:
    """A chat sentence's parameter: strings escaped, lists joined (PR numbers as `#N`),
    numbers as they are."""
    if isinstance(value, str):
        return escape_text(value)
    if isinstance(value, list):
        return PLAIN_LIST_SEP.join(
            pr_ref_text(item) if isinstance(item, int) else escape_text(str(item)) for item in value
        )
    return value


def same_person(login: str, name: str | None) -> bool:
    """Whether a display name only respells the login (`Chi-Zhang` / `Chi Zhang`)."""
    if not name:
        return True
    return _NAME_KEY.sub("", login).lower() == _NAME_KEY.sub("", name).lower()


def repo_web_url(digest: Digest) -> str:
    """The repository's web page on its own GitHub host (github.com or an Enterprise one), as
    the API's PR URLs give it: `https://HOST/<repo>`; '' when no PR URL says."""
    repo = digest.repos[0].repo if digest.repos else digest.repo  # a family's: its primary's
    suffix = re.compile(rf"^(https?://[^\s/]+(?:/[^\s]*)?/{re.escape(repo)})/pull/\d+$")
    for pr in digest.prs:
        match = suffix.match(escape.safe_url(pr.url))
        if match:
            return match.group(1)
    return ""


class Strict(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        raise KeyError(f"catalog placeholder {{{key}}} has no value")


def prs_in(params: dict[str, Any], used: set[str]) -> set[int]:
    """PR numbers the sentence names through the placeholders it uses."""
    out: set[int] = set()
    for name in used & set(params):
        value = params[name]
        if not is_pr_value(name, value):
            continue
        if isinstance(value, str):
            out.update(int(n) for n in PR_NUMBER.findall(value))
        elif isinstance(value, list):
            out.update(int(v) for v in value)
        else:
            out.add(int(value))
    return out
