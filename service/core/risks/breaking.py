"""Breaking changes as users meet them: declared in the title, or found in the diff.

Rules and severities:
- ``declared`` (high): the title carries ``[BREAKING]`` (or ``type!:``), or the PR has the
  ``breaking`` label;
  ``declared_removal`` (high) when the diff also shows what users meet (the items below, listed
  in the evidence).
- ``removed_module`` (medium): a public Python module (the profile's ``public_modules``) is
  deleted: ``import old.path`` now fails. ``renamed_module`` (medium): it is renamed, or
  deleted with every public definition it had moved to one other module: old → new, cited on
  both sides when the patch shows the definitions.
- ``removed_config_key`` (medium): a key of a YAML config or a field of a config dataclass
  (the profile's ``config_definitions``) is gone: configs and command lines that set it fail.
  ``moved_config_key`` (medium): removed under one path and added with the same leaf under
  another, or renamed in place (old → new). ``default_changed`` (medium, a behaviour change):
  the same key keeps its place with another value (old → new). See `config_changes`.
- ``removed_flag`` / ``removed_env`` (medium): a command-line flag, or one of the project's
  environment variables, is removed or renamed (old → new). See `interfaces`.
- ``renamed_symbol``, ``required_argument``, ``code_default_changed`` (medium): a public
  function or class renamed with no alias left, a new parameter without a default, a changed
  default of a parameter or class field in code. See `signatures`.
- ``removed_symbol`` (medium): a top-level ``def name(`` or ``class Name``, or a method of a
  public class, disappears from a core module, no file of the PR defines it again, and another
  file (not a test) of the PR used or documented it: a helper only its own file (or tests)
  called is not what users meet. ``moved_symbol`` (medium): a used top-level definition moves
  to another module (its import path changes: old → new).
Names starting with ``_`` are private and ignored; nested functions are not API.
Reverts are skipped: they take back what a recent PR added, which the follow-up detector reports.
A PR declared breaking is reported once, by a declared rule; otherwise one risk per rule.
Every item cites the old side (removed line, old file) and, when there is one, the new side.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from service.core.classify import BREAKING_LABEL
from service.core.models import (
    Evidence,
    FileChange,
    FileStatus,
    PullRequest,
    Risk,
    RiskKind,
    Severity,
)
from service.core.risks import config_changes, interfaces, signatures
from service.core.risks.base import (
    Context,
    Line,
    RuleSet,
    evidence,
    line_evidence,
    make_risk,
)
from service.core.risks.migration import removed_directories
from service.core.titles import parse_title

CODE_SUFFIX = ".py"
_DEFINITION = re.compile(r"^(?:async\s+)?(?:def|class)\s+([A-Za-z]\w*)\s*[(:]")
_METHOD = re.compile(r"^ {4}(?:async\s+)?def\s+([A-Za-z]\w*)\s*\(")
_CLASS = re.compile(r"^class\s+([A-Za-z]\w*)\b")
_ANY_DEFINITION = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)")
# names a sentence lists (the evidence and the HTML report have the rest)
MAX_NAMES = 3
CONFIG_RULES = {
    "removed": "removed_config_key",
    "moved": "moved_config_key",
    "renamed": "moved_config_key",
    "default_changed": "default_changed",
}


@dataclass(frozen=True)
class Removal:
    """One thing users meet: its name (`old → new` for a move) and the evidence, old side
    first."""

    name: str
    proofs: tuple[Evidence, ...]

    @property
    def proof(self) -> Evidence:
        return self.proofs[0]


def _core_code(change: FileChange, context: Context) -> bool:
    profile = context.profile
    return (
        change.path.endswith(CODE_SUFFIX)
        and profile.is_core(change.path)
        and not profile.is_test(change.path)
    )


def _import_path(path: str) -> str:
    module = path.removesuffix(".py").removesuffix("/__init__")
    return module.replace("/", ".")


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


def _top_definitions(lines: tuple[Line, ...]) -> dict[str, Line]:
    return {
        m.group(1): line
        for line in lines
        if not line.in_string
        and (m := _DEFINITION.match(line.text))
        and not m.group(1).startswith("_")
    }


def _moved_to(
    module: FileChange, pr: PullRequest, context: Context
) -> tuple[FileChange, list[tuple[Line, Line]]] | None:
    """The one module every public definition of a deleted module moved to, with the
    (old, new) line of each; None when they did not all go to one place."""
    gone = _top_definitions(context.parsed(module).removed)
    if not gone:
        return None
    for other in pr.files:
        if (
            other is module
            or other.status == FileStatus.REMOVED
            or not other.path.endswith(CODE_SUFFIX)
        ):
            continue
        if context.profile.is_test(other.path):
            continue
        there = _top_definitions(context.parsed(other).added)
        if set(gone) <= set(there):
            return other, [(gone[name], there[name]) for name in gone]
    return None


def _module_removal(module: FileChange, context: Context) -> Removal:
    """A deleted module, quoting its first public definition when the patch shows one."""
    removed = context.parsed(module).removed
    first = next((line for line in removed if _DEFINITION.match(line.text)), None)
    found = line_evidence(module.path, first) if first else evidence(module.path, None, module.path)
    return Removal(module.path, (found,))


def _rename_removal(module: FileChange) -> Removal:
    old = module.previous_path or module.path
    return Removal(f"{old} → {module.path}", (evidence(old, None, f"{old} → {module.path}"),))


def _moved_module(
    module: FileChange, target: FileChange, pairs: list[tuple[Line, Line]]
) -> Removal:
    proofs: list[Evidence] = []
    for old, new in pairs:
        proofs += [line_evidence(module.path, old), line_evidence(target.path, new)]
    name = f"{_import_path(module.path)} → {_import_path(target.path)}"
    return Removal(name, tuple(proofs))


def _module_changes(pr: PullRequest, context: Context) -> tuple[list[Removal], list[Removal]]:
    """(deleted modules, modules renamed or moved whole): old import paths that now fail."""
    deleted: list[Removal] = []
    moved: list[Removal] = []
    for module in removed_modules(pr, context):
        target = _moved_to(module, pr, context)
        if target is None:
            deleted.append(_module_removal(module, context))
        else:
            moved.append(_moved_module(module, *target))
    moved += [_rename_removal(m) for m in renamed_modules(pr, context)]
    return deleted, moved


# --- configuration keys -------------------------------------------------------------------


def _setting_proofs(change: config_changes.SettingChange) -> tuple[Evidence, ...]:
    old = line_evidence(change.old.path, change.old.line)
    if change.new is None:
        return (old,)
    return (old, line_evidence(change.new.path, change.new.line))


def _config_items(pr: PullRequest, context: Context) -> dict[str, list[Removal]]:
    """Config items by rule: removed, moved (or renamed) and re-defaulted keys."""
    configs = [c for c in pr.files if context.profile.is_config_definition(c.path)]
    if not configs:
        return {}
    # the keys of a directory the PR empties go with it: the migration risk tells that, and
    # "drop these 90 keys from your configs" is no step for a recipe that is gone
    emptied = tuple(folder + "/" for folder in removed_directories(pr))
    found: dict[str, list[Removal]] = {}
    for change in config_changes.of_pr(pr, context):
        if change.rule == "removed" and change.old.path.startswith(emptied or ("\0",)):
            continue
        rule = CONFIG_RULES[change.rule]
        found.setdefault(rule, []).append(Removal(change.label, _setting_proofs(change)))
    return found


# --- flags and environment variables ------------------------------------------------------


def _interface_items(changes: list[interfaces.InterfaceChange]) -> list[Removal]:
    items = []
    for change in changes:
        proofs = [line_evidence(change.old.path, change.old.line)]
        if change.new is not None:
            proofs.append(line_evidence(change.new.path, change.new.line))
        items.append(Removal(change.label, tuple(proofs)))
    return items


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


def _used_elsewhere(name: str, path: str, pr: PullRequest, context: Context) -> bool:
    """Whether a file of the PR other than `path` (tests aside) names it in a changed line:
    its callers had to change, or its documentation did."""
    leaf = name.rsplit(".", 1)[-1]
    word = re.compile(rf"\b{re.escape(leaf)}\b")
    for change in pr.files:
        if change.path == path or context.profile.is_test(change.path):
            continue
        removed, added = context.changed(change)
        for text in (*removed, *added):
            if leaf not in text or not word.search(text):  # most lines: one substring test
                continue
            defined = _ANY_DEFINITION.match(text)
            if not (defined and defined.group(1) == leaf):
                return True
    return False


def _symbol_candidates(pr: PullRequest, context: Context) -> list[tuple[str, FileChange, Line]]:
    found: list[tuple[str, FileChange, Line]] = []
    for change in pr.files:
        if change.status == FileStatus.REMOVED or not _core_code(change, context):
            continue
        if not any(_DEFINITION.match(t) or _METHOD.match(t) for t in context.changed(change)[0]):
            continue  # a look at the raw removed lines spares parsing most patches
        for line in context.parsed(change).removed:
            name = _removed_name(line)
            if name:
                found.append((name, change, line))
    return found


def _new_home(
    name: str, path: str, pr: PullRequest, context: Context
) -> tuple[FileChange, Line] | None:
    """Another module of the PR that now defines the top-level `name`."""
    for other in pr.files:
        if (
            other.path == path
            or other.status == FileStatus.REMOVED
            or not other.path.endswith(CODE_SUFFIX)
        ):
            continue
        if context.profile.is_test(other.path) or name not in _defined(context.changed(other)[1]):
            continue
        line = _top_definitions(context.parsed(other).added).get(name)
        if line is not None:
            return other, line
    return None


def symbol_changes(pr: PullRequest, context: Context) -> tuple[list[Removal], list[Removal]]:
    """(removed, moved) public defs, classes and methods of core modules that another file
    used: a method whose whole class goes is reported as the class."""
    candidates = _symbol_candidates(pr, context)
    if not candidates:
        return [], []
    gone_classes = {name for name, _, _ in candidates if "." not in name}
    removed: list[Removal] = []
    moved: list[Removal] = []
    for name, change, line in candidates:
        if "." in name and name.split(".", 1)[0] in gone_classes:
            continue
        if not _used_elsewhere(name, change.path, pr, context):
            continue
        leaf = name.rsplit(".", 1)[-1]
        if leaf in _defined(context.changed(change)[1]):
            continue  # defined again in its own module: rewritten, not removed
        home = _new_home(name, change.path, pr, context) if "." not in name else None
        old = line_evidence(change.path, line)
        if home is not None:
            target, new_line = home
            label = f"{_import_path(change.path)}.{name} → {_import_path(target.path)}.{name}"
            moved.append(Removal(label, (old, line_evidence(target.path, new_line))))
        elif not any(leaf in _defined(context.changed(c)[1]) for c in pr.files):
            removed.append(Removal(name, (old,)))
    return removed, moved


# --- rules --------------------------------------------------------------------------------


def _signature_items(pr: PullRequest, context: Context) -> dict[str, list[Removal]]:
    """Renamed symbols without an alias, new required arguments, changed code defaults."""
    found: dict[str, list[Removal]] = {}
    for change in signatures.signature_changes(pr, context):
        proofs = (line_evidence(*change.old), line_evidence(*change.new))
        found.setdefault(change.rule, []).append(Removal(change.label, proofs))
    return found


def items_by_rule(pr: PullRequest, context: Context) -> dict[str, list[Removal]]:
    """What users meet in the PR, by rule, in the order the report lists them."""
    deleted, renamed = _module_changes(pr, context)
    symbols, moved_symbols = symbol_changes(pr, context)
    api = _signature_items(pr, context)
    renamed_names = {item.name.split(" → ")[0] for item in api.get("renamed_symbol", [])}
    symbols = [item for item in symbols if item.name not in renamed_names]
    found = {
        **api,
        "removed_module": deleted,
        "renamed_module": renamed,
        **_config_items(pr, context),
        "removed_flag": _interface_items(interfaces.flag_changes(pr, context)),
        "removed_env": _interface_items(interfaces.env_changes(pr, context)),
        "removed_symbol": symbols,
        "moved_symbol": moved_symbols,
    }
    order = (
        "removed_module",
        "renamed_module",
        "moved_config_key",
        "removed_config_key",
        "default_changed",
        "code_default_changed",
        "removed_flag",
        "removed_env",
        "removed_symbol",
        "renamed_symbol",
        "moved_symbol",
        "required_argument",
    )
    return {rule: found[rule] for rule in order if found.get(rule)}


def all_removals(pr: PullRequest, context: Context) -> list[Removal]:
    """Everything the PR changes for users, in rule order."""
    return [item for items in items_by_rule(pr, context).values() for item in items]


def _names(removals: list[Removal]) -> str:
    return ", ".join(r.name for r in removals[:MAX_NAMES])


def _proofs(removals: list[Removal]) -> list[Evidence]:
    return [proof for r in removals for proof in r.proofs]


def declared_breaking(pr: PullRequest) -> bool:
    """The title (`[BREAKING]`, `type!:`) or a `breaking` label declares the PR breaking (as
    its classification says: the digest's `breaking` flag stands for this risk)."""
    labelled = any(label.strip().lower() == BREAKING_LABEL for label in pr.labels or [])
    return parse_title(pr.title).breaking or labelled


def breaking_title(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """The title or a label declares the PR breaking."""
    if not declared_breaking(pr) or parse_title(pr.title).is_revert:
        return
    removals = all_removals(pr, context)
    yield make_risk(
        RiskKind.BREAKING,
        "declared_removal" if removals else "declared",
        Severity.HIGH,
        [pr.number],
        [evidence(None, None, pr.title), *_proofs(removals)],
        removed=len(removals),
        names=_names(removals),
    )


def _undeclared(pr: PullRequest, rule: str, removals: list[Removal]) -> Risk:
    return make_risk(
        RiskKind.BREAKING,
        rule,
        Severity.MEDIUM,
        [pr.number],
        _proofs(removals),
        count=len(removals),
        names=_names(removals),
    )


def removed_public_api(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """What users meet, without a declared break: one risk per rule."""
    if declared_breaking(pr) or parse_title(pr.title).is_revert:
        return
    for rule, items in items_by_rule(pr, context).items():
        yield _undeclared(pr, rule, items)


DETECTOR = RuleSet(RiskKind.BREAKING, (breaking_title, removed_public_api))
