"""Breaking changes: declared in the title, or public modules, settings and functions removed.

Rules and severities:
- ``declared`` (high): the title carries ``[BREAKING]`` (or ``type!:``);
  ``declared_removal`` (high) when such a PR also removes public API (listed in the evidence).
- ``removed_module`` (medium): a public Python module (the profile's ``public_modules``) is
  deleted, or deleted and renamed ones together; ``renamed_module`` (medium) when the PR only
  renames them. Either way ``import old.path`` now fails. Evidence: the old path.
- ``removed_config_key`` (medium): a key of a YAML config or a field of a config dataclass (the
  profile's ``config_definitions``) is removed or renamed, and no config of the PR defines that
  name again: configs and command lines that set it now fail. Generated copies of a config (the
  profile's ``generated``) count once, through their source. Evidence: the removed line.
- ``removed_symbol`` (medium): a top-level ``def name(`` or ``class Name``, or a method
  ``def name(`` of a public class, disappears from a core module and no file of the PR defines
  that name again (a move or a rewrite is not a removal). Names starting with ``_`` are private
  and ignored; nested functions are not API. Evidence: the removed line (old file).
Reverts are skipped: they take back what a recent PR added, which the follow-up detector reports.
A PR declared breaking is reported once, by a declared rule; otherwise one risk per rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from service.core.models import (
    Evidence,
    FileChange,
    FileStatus,
    PullRequest,
    Risk,
    RiskKind,
    Severity,
)
from service.core.risks.base import (
    Context,
    Line,
    RuleSet,
    evidence,
    line_evidence,
    make_risk,
)
from service.core.titles import parse_title

CODE_SUFFIX = ".py"
YAML_SUFFIXES = (".yaml", ".yml")
_DEFINITION = re.compile(r"^(?:async\s+)?(?:def|class)\s+([A-Za-z]\w*)\s*[(:]")
_METHOD = re.compile(r"^ {4}(?:async\s+)?def\s+([A-Za-z]\w*)\s*\(")
_CLASS = re.compile(r"^class\s+([A-Za-z]\w*)\b")
_ANY_DEFINITION = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)")
# `  key: value` or `  - key: value` in YAML (not a comment, not inside a block string)
_YAML_KEY = re.compile(r"^\s*(?:-\s+)?([A-Za-z][\w.-]*)\s*:(?:\s|$)")
# `    name: type = default` in a class body: a dataclass (or pydantic) field
_FIELD = re.compile(r"^ {4}([A-Za-z]\w*)\s*:\s*[^\s=][^=]*(?:=.*)?$")
MAX_NAMES = 5


@dataclass(frozen=True)
class Removal:
    """One removed piece of public API: its name and the evidence."""

    name: str
    proof: Evidence


def _core_code(change: FileChange, context: Context) -> bool:
    profile = context.profile
    return (
        change.path.endswith(CODE_SUFFIX)
        and profile.is_core(change.path)
        and not profile.is_test(change.path)
    )


# --- modules ------------------------------------------------------------------------------


def removed_modules(pr: PullRequest, context: Context) -> list[FileChange]:
    """Public Python modules the PR deletes (a rename is reported by `renamed_modules`)."""
    return [
        change
        for change in pr.files
        if change.status == FileStatus.REMOVED and context.profile.is_public_module(change.path)
    ]


def renamed_modules(pr: PullRequest, context: Context) -> list[FileChange]:
    """Renames whose old path was a public module: its import path is gone."""
    return [
        change
        for change in pr.files
        if change.status == FileStatus.RENAMED
        and change.previous_path
        and change.previous_path != change.path
        and context.profile.is_public_module(change.previous_path)
    ]


def _module_removal(module: FileChange, context: Context) -> Removal:
    """A deleted module, quoting its first public definition when the patch shows one."""
    removed = context.parsed(module).removed
    first = next((line for line in removed if _DEFINITION.match(line.text)), None)
    found = line_evidence(module.path, first) if first else evidence(module.path, None, module.path)
    return Removal(module.path, found)


def _rename_removal(module: FileChange) -> Removal:
    old = module.previous_path or module.path
    return Removal(f"{old} → {module.path}", evidence(old, None, f"{old} → {module.path}"))


# --- configuration keys -------------------------------------------------------------------


def _is_code(line: Line) -> bool:
    return not line.in_string and not line.text.lstrip().startswith("#")


def _name_pattern(change: FileChange) -> re.Pattern[str] | None:
    """What a key (YAML) or a field (config class) looks like in this config file."""
    if change.path.endswith(YAML_SUFFIXES):
        return _YAML_KEY
    if change.path.endswith(CODE_SUFFIX):
        return _FIELD
    return None


def _may_remove_a_name(change: FileChange, context: Context) -> bool:
    """Whether a removed line of the change looks like a key or a field (a look at the raw
    text, before the patch is parsed)."""
    pattern = _name_pattern(change)
    return pattern is not None and any(pattern.match(t) for t in context.changed(change)[0])


def _config_names(change: FileChange, lines: tuple[Line, ...]) -> list[tuple[str, Line]]:
    """(key, line) for YAML keys and config-class fields among `lines` of one config file."""
    pattern = _name_pattern(change)
    if pattern is None:
        return []
    found = []
    for line in lines:
        match = pattern.match(line.text) if _is_code(line) else None
        if match and not match.group(1).startswith("_"):
            if pattern is _FIELD and not _CLASS.match(line.scope):
                continue
            found.append((match.group(1), line))
    return found


def _names_in(
    changes: list[FileChange], context: Context, *, removed: bool
) -> list[tuple[str, FileChange, Line]]:
    found: list[tuple[str, FileChange, Line]] = []
    for change in changes:
        parsed = context.parsed(change)
        lines = parsed.removed if removed else parsed.added
        found.extend((name, change, line) for name, line in _config_names(change, lines))
    return found


def _gone_keys(changes: list[FileChange], context: Context) -> set[str]:
    """Names the files lose and do not define again."""
    added = {name for name, _, _ in _names_in(changes, context, removed=False)}
    return {name for name, _, _ in _names_in(changes, context, removed=True)} - added


def removed_config_keys(pr: PullRequest, context: Context) -> list[Removal]:
    """Config keys and fields that the PR's configs no longer define, once per name.

    When the PR also updates generated copies of the configs (the composed, complete config),
    they decide which YAML keys are really gone: a key removed from one file but still composed
    in from another is not removed. The evidence cites the source file's line when it has one."""
    profile = context.profile
    configs = [c for c in pr.files if profile.is_config_definition(c.path)]
    if not any(_may_remove_a_name(change, context) for change in configs):
        return []
    yaml = [c for c in configs if c.path.endswith(YAML_SUFFIXES)]
    fields = [c for c in configs if c.path.endswith(CODE_SUFFIX)]
    generated = [c for c in yaml if profile.is_generated(c.path)]
    gone = _gone_keys(generated or yaml, context) | _gone_keys(fields, context)
    ordered = sorted(
        _names_in(configs, context, removed=True),
        key=lambda item: (profile.is_generated(item[1].path), item[1].path, item[2].number),
    )
    found: dict[str, Removal] = {}
    for name, change, line in ordered:
        if name in gone and name not in found:
            found[name] = Removal(name, line_evidence(change.path, line))
    return list(found.values())


# --- functions and classes ----------------------------------------------------------------


def _defined(texts: tuple[str, ...]) -> set[str]:
    return {m.group(1) for text in texts if (m := _ANY_DEFINITION.match(text))}


def _removed_name(line: Line) -> str | None:
    """`name` for a top-level def/class, `Class.name` for a method of a public class."""
    if line.in_string:
        return None
    top = _DEFINITION.match(line.text)
    if top:
        return top.group(1)
    method = _METHOD.match(line.text)
    owner = _CLASS.match(line.scope)
    if method and owner:
        return f"{owner.group(1)}.{method.group(1)}"
    return None


def removed_symbols(pr: PullRequest, context: Context) -> list[Removal]:
    """Public defs, classes and methods removed from core modules and defined nowhere in the PR
    (a method whose whole class goes is reported as the class)."""
    candidates: list[Removal] = []
    for change in pr.files:
        if change.status == FileStatus.REMOVED or not _core_code(change, context):
            continue
        if not any(_DEFINITION.match(t) or _METHOD.match(t) for t in context.changed(change)[0]):
            continue  # a look at the raw removed lines spares parsing most patches
        for line in context.parsed(change).removed:
            name = _removed_name(line)
            if name:
                candidates.append(Removal(name, line_evidence(change.path, line)))
    if not candidates:
        return []
    added_anywhere = set().union(*(_defined(context.changed(c)[1]) for c in pr.files))
    gone = {r.name for r in candidates if "." not in r.name}
    return [
        r
        for r in candidates
        if r.name.rsplit(".", 1)[-1] not in added_anywhere
        and not ("." in r.name and r.name.split(".", 1)[0] in gone)
    ]


# --- rules --------------------------------------------------------------------------------


def _module_removals(pr: PullRequest, context: Context) -> list[Removal]:
    return [_module_removal(m, context) for m in removed_modules(pr, context)] + [
        _rename_removal(m) for m in renamed_modules(pr, context)
    ]


def all_removals(pr: PullRequest, context: Context) -> list[Removal]:
    """Everything public the PR takes away: modules, config keys, then functions and classes."""
    return (
        _module_removals(pr, context)
        + removed_config_keys(pr, context)
        + removed_symbols(pr, context)
    )


def _names(removals: list[Removal]) -> str:
    return ", ".join(r.name for r in removals[:MAX_NAMES])


def breaking_title(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """The title declares the PR breaking."""
    parsed = parse_title(pr.title)
    if not parsed.breaking or parsed.is_revert:
        return
    removals = all_removals(pr, context)
    yield make_risk(
        RiskKind.BREAKING,
        "declared_removal" if removals else "declared",
        Severity.HIGH,
        [pr.number],
        [evidence(None, None, pr.title), *(r.proof for r in removals)],
        removed=len(removals),
        names=_names(removals),
    )


def _undeclared(pr: PullRequest, rule: str, removals: list[Removal]) -> Risk:
    return make_risk(
        RiskKind.BREAKING,
        rule,
        Severity.MEDIUM,
        [pr.number],
        [r.proof for r in removals],
        count=len(removals),
        names=_names(removals),
    )


def removed_public_api(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """Public modules, config keys or functions disappear without a declared break."""
    parsed = parse_title(pr.title)
    if parsed.breaking or parsed.is_revert:
        return
    deleted = removed_modules(pr, context)
    modules = _module_removals(pr, context)
    if modules:
        yield _undeclared(pr, "removed_module" if deleted else "renamed_module", modules)
    keys = removed_config_keys(pr, context)
    if keys:
        yield _undeclared(pr, "removed_config_key", keys)
    symbols = removed_symbols(pr, context)
    if symbols:
        yield _undeclared(pr, "removed_symbol", symbols)


DETECTOR = RuleSet(RiskKind.BREAKING, (breaking_title, removed_public_api))
