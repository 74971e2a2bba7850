"""A PR's point as facts, in no language: what kind of change, on what (modules, the public
classes and functions it adds or removes, the config keys it re-defaults or removes, the file or
folder it changes) and the reason its text states (a known problem word, an issue it fixes).
Each fact is a catalog statement (`narrative.point.*`), so a zh report says it in Chinese and an
en report in English, identifiers kept as they are; no body text is ever quoted.

Also whether a PR only touches comments and docstrings: such a PR changes nothing for users."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from service.core.models import FileChange, FileStatus, PullRequest, Statement
from service.core.profile import RepoProfile
from service.core.risks.base import Line, ParsedPatch, parse_patch
from service.core.risks.config_changes import SettingChange, config_changes, read_configs

KEY = "narrative.point"
CODE_SUFFIX = ".py"
TEXT_SUFFIXES = (".md", ".rst", ".txt")
# top-level public definitions (methods are details)
_DEFINITION = re.compile(r"^(?:async\s+)?(?:def|class)\s+([A-Za-z]\w*)\s*[(:]")
_COMMENT_LINE = re.compile(r"^\s*(?:#.*)?$")
_QUOTES = ('"""', "'''", 'r"""', "r'''")
KINDS = frozenset({"feat", "fix", "refactor", "perf", "docs", "test", "ci", "chore", "revert"})
MAX_NAMES = 2
REASON_KINDS = frozenset({"fix", "perf", "revert"})
MAX_MODULES = 3
MAX_SETTINGS = 2
# reasons a PR's title or body states, by the words that state them, in the order they are told
REASONS = (
    ("oom", re.compile(r"\boom\b|out of memory", re.IGNORECASE)),
    ("hang", re.compile(r"\bhangs?\b|\bhanging\b|deadlock|\bstuck\b", re.IGNORECASE)),
    # `\Berror\b`: "error" ending a longer word (`ValueError`), as `\w+error\b` says it without
    # trying every start of every word
    ("crash", re.compile(r"\bcrash|\btraceback\b|\braises?\s+\w*error|\Berror\b", re.I)),
    (
        "accuracy",
        re.compile(r"\bprecision\b|\baccuracy\b|\bnumerical|\bnan\b|\bmismatch", re.IGNORECASE),
    ),
    ("memory", re.compile(r"peak memory|memory (?:usage|footprint)|memory leak", re.IGNORECASE)),
    ("speed", re.compile(r"speed ?up|\bfaster\b|throughput|latency", re.IGNORECASE)),
    ("compat", re.compile(r"compatib|newer version|\bdeprecat", re.IGNORECASE)),
)
# the same patterns (all written in lower case) for a lowered ASCII text: ignoring case there is
# only A-Z against a-z, and a case-sensitive search is several times quicker
_REASONS_LOWERED = tuple((name, re.compile(pattern.pattern)) for name, pattern in REASONS)
# modules of a title that say the PR is about tests, docs or CI, not the code beside them
BESIDE_CODE_MODULES = frozenset({"tests", "test", "ci", "doc", "docs"})
_REVERTS = re.compile(r"\breverts?\s+(?:[\w.-]+/[\w.-]+)?#(\d{1,7})\b", re.IGNORECASE)
_FIXES = re.compile(r"\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?)\s*:?\s+#(\d+)", re.IGNORECASE)
# the template's own words hold no reason of the author's
_TEMPLATE_TEXT = re.compile(r"^###\s*Checklist.*", re.IGNORECASE | re.MULTILINE | re.DOTALL)


def _code_files(pr: PullRequest, profile: RepoProfile) -> list[FileChange]:
    return [f for f in pr.files if f.path.endswith(CODE_SUFFIX) and not profile.is_test(f.path)]


def _definitions(lines: tuple[Line, ...]) -> list[str]:
    return [
        m.group(1) for line in lines if not line.in_string and (m := _DEFINITION.match(line.text))
    ]


def _defined(
    files: list[FileChange], patches: dict[str, ParsedPatch]
) -> tuple[list[str], list[str]]:
    """Public top-level names added and removed (a name both removed and added moved or was
    edited: neither)."""
    added: list[str] = []
    removed: list[str] = []
    for f in files:
        parsed = patches[f.path]
        added += _definitions(parsed.added)
        removed += _definitions(parsed.removed)
    both = set(added) & set(removed)
    new = [n for n in dict.fromkeys(added) if n not in both]
    gone = [n for n in dict.fromkeys(removed) if n not in both]
    return new, gone


def _names(key: str, names: list[str]) -> Statement:
    params: dict[str, str | int | float | list[int] | list[str]] = {
        "names": names[:MAX_NAMES],
        "count": len(names),
    }
    more = "_more" if len(names) > MAX_NAMES else ""
    return Statement(key=f"{KEY}.{key}{more}", params=params)


def _settings_statement(name: str, labels: list[str]) -> Statement:
    params: dict[str, str | int | float | list[int] | list[str]] = {
        "settings": labels[:MAX_SETTINGS],
        "count": len(labels),
    }
    more = "_more" if len(labels) > MAX_SETTINGS else ""
    return Statement(key=f"{KEY}.{name}{more}", params=params)


# a file's patch parsed: `parse_patch` anew, or a build's Context.parsed (each patch once)
Parse = Callable[[FileChange], ParsedPatch]


def parse_file(change: FileChange) -> ParsedPatch:
    """`change`'s patch parsed anew (with no build's parsed patches at hand)."""
    return parse_patch(change.patch)


def _settings(changes: list[SettingChange]) -> list[Statement]:
    """Config keys re-defaulted (`name: old → new`), renamed or moved; then those removed."""
    changed = [c.label for c in changes if c.new is not None]
    removed = [c.label for c in changes if c.new is None]
    out = [_settings_statement("settings", changed)] if changed else []
    return out + ([_settings_statement("settings_removed", removed)] if removed else [])


def _beside_code(path: str, profile: RepoProfile) -> bool:
    """Tests, docs and CI: what goes with a change of code, not the change itself."""
    return profile.is_test(path) or profile.is_doc(path) or profile.is_ci(path)


def _where(pr: PullRequest, profile: RepoProfile, *, code_first: bool) -> Statement | None:
    """Where the PR changes: its one file, else the folder most of its lines changed in,
    counting its own code before its tests, docs and CI when `code_first` (a PR changing code
    and the tests of it is about the code, even when the tests hold more lines)."""
    files = pr.files
    if not files:
        return None
    if len(files) == 1:
        return Statement(key=f"{KEY}.file", params={"path": files[0].path})
    lines: Counter[str] = Counter()
    code = [f for f in files if not _beside_code(f.path, profile)] if code_first else []
    for f in code or files:
        folder = f.path.rpartition("/")[0]
        lines[f"{folder}/" if folder else f.path] += f.additions + f.deletions + 1
    folder = min(lines, key=lambda k: (-lines[k], k))
    return Statement(key=f"{KEY}.files", params={"count": len(files), "folder": folder})


def _reason_found(text: str) -> str | None:
    """The first of REASONS whose pattern `text` holds."""
    if text.isascii():
        lowered = text.lower()
        return next((name for name, p in _REASONS_LOWERED if p.search(lowered)), None)
    return next((name for name, pattern in REASONS if pattern.search(text)), None)


def _reason(pr: PullRequest, kind: str) -> Statement | None:
    """The problem a fix, speed-up or revert states it answers, and the issue it fixes; a
    feature's text names problems it does not have (tests, caveats), so only its issue."""
    text = f"{pr.title}\n{_TEMPLATE_TEXT.sub('', pr.body or '')}"
    found = _reason_found(text) if kind in REASON_KINDS else None
    fixes = [int(n) for n in _FIXES.findall(text) if int(n) != pr.number]
    if fixes and found:
        return Statement(key=f"{KEY}.reason_issue.{found}", params={"issue": f"#{fixes[0]}"})
    if fixes:
        return Statement(key=f"{KEY}.reason_issue.other", params={"issue": f"#{fixes[0]}"})
    if found:
        return Statement(key=f"{KEY}.reason.{found}")
    return None


def pr_facts(
    pr: PullRequest,
    profile: RepoProfile,
    change_type: str,
    modules: list[str],
    parsed: Parse = parse_file,
    settings: list[SettingChange] | None = None,
) -> list[Statement]:
    """The PR's point as statements: kind of change on which modules, then what it adds,
    removes or re-defaults, then (when nothing more precise) where it changes, then why.
    `parsed`: how a file's patch is parsed (a build passes the patches its risks parsed);
    `settings`: the PR's setting changes when the build has them already (else read here)."""
    kind = change_type if change_type in KINDS else "other"
    head = Statement(
        key=f"{KEY}.kind.{kind}" + ("" if modules else "_bare"),
        params={"modules": modules[:MAX_MODULES]} if modules else {},
    )
    code = [f for f in _code_files(pr, profile) if f.status != FileStatus.RENAMED]
    patches = {f.path: parsed(f) for f in code}
    new, gone = _defined(code, patches)
    facts = [head]
    reverted = _REVERTS.search(pr.body or "") if kind == "revert" else None
    if reverted is not None:  # a revert's point is what it takes back
        facts.append(Statement(key=f"{KEY}.reverts", params={"reverted": int(reverted.group(1))}))
    if settings is None:
        settings = config_changes(read_configs(pr, profile, parsed))
    facts += _settings(settings)
    if new:
        facts.append(_names("added", new))
    if gone:
        facts.append(_names("removed", gone))
    # a PR about tests, docs or CI by its title is told by where those change
    code_first = kind != "test" and not set(modules) <= BESIDE_CODE_MODULES
    if len(facts) == 1 and (where := _where(pr, profile, code_first=code_first)) is not None:
        facts.append(where)
    reason = _reason(pr, kind)
    if reason is not None:
        facts.append(reason)
    return facts


def _comment_line(text: str, in_string: bool) -> bool:
    stripped = text.strip()
    return in_string or stripped.startswith(_QUOTES) or bool(_COMMENT_LINE.match(text))


def comment_only(pr: PullRequest, parsed: Parse = parse_file) -> bool:
    """Whether the PR changes Python comments and docstrings only (and perhaps prose files):
    at least one Python file, every changed line of every Python file a comment, a docstring
    or blank, no other kind of file."""
    code = [f for f in pr.files if f.path.endswith(CODE_SUFFIX)]
    if not code or any(not f.patch for f in code):
        return False
    if any(not f.path.endswith((CODE_SUFFIX, *TEXT_SUFFIXES)) for f in pr.files):
        return False
    if any(f.status in (FileStatus.ADDED, FileStatus.REMOVED) for f in code):
        return False
    return all(comment_only_patch(parsed(f)) for f in code)


def comment_only_patch(parsed: ParsedPatch) -> bool:
    """Whether every changed line of a Python patch is a comment, a docstring or blank."""
    lines = (*parsed.added, *parsed.removed)
    return bool(lines) and all(_comment_line(line.text, line.in_string) for line in lines)
