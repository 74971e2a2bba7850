"""What a PR does to users' settings: config keys removed, moved or renamed, defaults changed.

A setting is a key of a YAML config or a field of a config dataclass (the profile's
``config_definitions``). Each one a patch shows is read with its place:
- YAML: the chain of parent keys the patch shows (the hunk header names the top-level key; a
  parent outside the hunk is not seen), and whether that chain is known to be whole (every
  level from the file's top is visible, one indent step each);
- a dataclass field: its class (and the class's bases, from ``class Name(Base):``).

What the PR does with them:
- ``default_changed``: the same setting (same file, same chain, same hunk; or same class and
  field) is removed with one value and added with another. Interpolations (``${…}``) are not
  values: a default that now follows another key is not a new default.
- ``renamed``: one setting removed and another added at the same place of the same file, with
  the same value, the old name defined nowhere else in the PR and the new one new.
- ``moved``: a name removed in one place and added in another, both places known: YAML
  chains both whole and different (judged in the generated, composed copies when the PR has
  them, since a key moved between source files may land at the same composed path), or a field
  that leaves one class for another that is not its base or subclass.
- ``removed``: the name is defined nowhere in the PR's configs any more.
Generated copies of a config count once, through their source: an item already found in a
source config is not repeated from a generated copy.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import pairwise

from service.core.models import EvidenceSide, FileChange, FileStatus, PullRequest
from service.core.profile import RepoProfile
from service.core.risks.base import Context, Line, ParsedPatch

YAML_SUFFIXES = (".yaml", ".yml")
CODE_SUFFIX = ".py"
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@ ?(.*)$")
_YAML_KEY = re.compile(r"^(\s*)([A-Za-z][\w.-]*)\s*:(?:\s+(.*))?$")
# `    name: type = default` in a class body (a dataclass or pydantic field)
_FIELD = re.compile(r"^ {4}([A-Za-z]\w*)\s*:\s*[^\s=][^=]*?(?:=\s*(.*))?$")
_CLASS = re.compile(r"^class\s+([A-Za-z]\w*)\s*(?:\(([^)]*)\))?\s*:")
_COMMENT = re.compile(r"\s+#.*$")
_WORDS = {"true": "true", "false": "false", "null": "null", "~": "null", "none": "None"}
NEAR = 2  # lines apart, on their own sides, for a removed and an added line to be one edit


@dataclass(frozen=True)
class Setting:
    """One key or field as a line of the patch shows it."""

    path: str  # the file
    chain: tuple[str, ...]  # YAML: parent keys seen; field: (class name,)
    name: str
    value: str  # normalised; "" for a YAML parent (a key with no value)
    line: Line
    whole: bool  # the chain is known to reach the top of the file (a field's always does)
    bases: tuple[str, ...] = ()
    hunk: int = 0

    @property
    def dotted(self) -> str:
        """`a.b.name` when the chain is whole, else the name alone."""
        return ".".join((*self.chain, self.name)) if self.whole and self.chain else self.name

    @property
    def is_yaml(self) -> bool:
        return self.path.endswith(YAML_SUFFIXES)


@dataclass(frozen=True)
class SettingChange:
    """One thing the PR does to a setting: `rule` is removed, moved, renamed or
    default_changed; `new` is None for a removal."""

    rule: str
    old: Setting
    new: Setting | None = None

    @property
    def label(self) -> str:
        """How the item reads: `name`, `old → new`, or `name: a → b`."""
        if self.new is None:
            return self.old.dotted
        if self.rule == "default_changed":
            return f"{self.old.dotted}: {self.old.value} → {self.new.value}"
        return f"{self.old.dotted} → {self.new.dotted}"


def normalise(value: str | None) -> str:
    """A YAML or Python default as text to compare: comment, quotes and case of words gone."""
    text = _COMMENT.sub("", value or "").strip().rstrip(",")
    if len(text) > 1 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    return _WORDS.get(text.lower(), text)


def _is_interpolated(value: str) -> bool:
    return "${" in value


# --- reading settings out of a patch --------------------------------------------------------


class _Side:
    """The YAML parents open on one side of a hunk, as the patch shows them."""

    def __init__(self, header: str) -> None:
        top = _YAML_KEY.match(header)
        self.stack: list[tuple[int, str]] = []
        if top and not top.group(1) and not (top.group(3) or "").strip():
            self.stack.append((0, top.group(2)))

    def place(self, indent: int, name: str, has_value: bool) -> tuple[tuple[str, ...], list[int]]:
        while self.stack and self.stack[-1][0] >= indent:
            self.stack.pop()
        chain = tuple(key for _, key in self.stack)
        indents = [i for i, _ in self.stack] + [indent]
        if not has_value:
            self.stack.append((indent, name))
        return chain, indents


def _whole(indents: list[int], step: int) -> bool:
    return indents[0] == 0 and all(b - a == step for a, b in pairwise(indents))


def _yaml_step(patch: str) -> int:
    """The file's indent step: the smallest indent of a key line in the patch, at most 2 (a patch
    that shows only deeper keys of a 2-space file would otherwise pass for a 4-space one)."""
    indents = [len(m.group(1)) for raw in patch.splitlines() if (m := _YAML_KEY.match(raw[1:]))]
    return min([i for i in indents if i] + [2])


def _yaml_settings(change: FileChange) -> tuple[list[Setting], list[Setting]]:
    """(removed, added) YAML keys of one patch, each with the parents its side shows."""
    patch = change.patch or ""
    step = _yaml_step(patch)
    removed: list[Setting] = []
    added: list[Setting] = []
    old = new = hunk = 0
    sides = {"-": _Side(""), "+": _Side("")}
    for raw in patch.splitlines():
        sign, text = raw[:1], raw[1:]
        header = _HUNK.match(raw) if sign == "@" else None
        if header:
            old, new, hunk = int(header.group(1)), int(header.group(2)), hunk + 1
            sides = {"-": _Side(header.group(3)), "+": _Side(header.group(3))}
            continue
        if sign == "\\":
            continue
        match = _YAML_KEY.match(text) if not text.lstrip().startswith(("#", "-")) else None
        if match:
            indent, name = len(match.group(1)), match.group(2)
            value = normalise(match.group(3))
            for side_sign in ("-", "+") if sign == " " else (sign,):
                chain, indents = sides[side_sign].place(indent, name, bool(value))
                if sign == " ":
                    continue
                if sign == "-":
                    line = Line(old, text, at=new, side=EvidenceSide.REMOVED, hunk=hunk)
                else:
                    line = Line(new, text, side=EvidenceSide.ADDED, hunk=hunk)
                whole = _whole(indents, step)
                found = Setting(change.path, chain, name, value, line, whole, hunk=hunk)
                (removed if sign == "-" else added).append(found)
        old += bool(sign) and sign in "- "
        new += bool(sign) and sign in "+ "
    return removed, added


def _field_settings(lines: Iterable[Line], path: str) -> list[Setting]:
    found: list[Setting] = []
    for line in lines:
        owner = _CLASS.match(line.scope)
        match = _FIELD.match(line.text) if owner and not line.in_string else None
        if owner is None or match is None or match.group(1).startswith("_"):
            continue
        bases = tuple(b.strip().split(".")[-1] for b in (owner.group(2) or "").split(",") if b)
        value = normalise(match.group(2))
        chain = (owner.group(1),)
        found.append(Setting(path, chain, match.group(1), value, line, True, bases, line.hunk))
    return found


def settings_of(change: FileChange, parsed: ParsedPatch) -> tuple[list[Setting], list[Setting]]:
    """(removed, added) settings of one config file; `parsed` is its patch, parsed."""
    if change.path.endswith(YAML_SUFFIXES):
        return _yaml_settings(change)
    if change.path.endswith(CODE_SUFFIX):
        return (
            _field_settings(parsed.removed, change.path),
            _field_settings(parsed.added, change.path),
        )
    return [], []


# --- what the PR did ----------------------------------------------------------------------


def _same_place(a: Setting, b: Setting) -> bool:
    if a.is_yaml:
        return (a.path, a.chain, a.line.text.find(a.name), a.hunk) == (
            b.path,
            b.chain,
            b.line.text.find(b.name),
            b.hunk,
        )
    return a.chain == b.chain


def _near(removed: Setting, added: Setting) -> bool:
    at = removed.line.at if removed.line.at is not None else removed.line.number
    return removed.path == added.path and abs(at - added.line.number) <= NEAR


def _default_changes(removed: list[Setting], added: list[Setting]) -> Iterator[SettingChange]:
    for old in removed:
        for new in added:
            if old.name != new.name or not _same_place(old, new):
                continue
            values = (old.value, new.value)
            if all(values) and old.value != new.value and not any(map(_is_interpolated, values)):
                yield SettingChange("default_changed", old, new)
            break


def _related(a: Setting, b: Setting) -> bool:
    """Whether two fields' classes are one class, or base and subclass (a field moved up to a
    base class is still set the same way)."""
    return a.chain == b.chain or a.chain[0] in b.bases or b.chain[0] in a.bases


def _moved(old: Setting, new: Setting) -> bool:
    if old.is_yaml != new.is_yaml:
        return False
    if old.is_yaml:
        return old.whole and new.whole and old.chain != new.chain and bool(old.chain + new.chain)
    return not _related(old, new)


@dataclass(frozen=True)
class FileSettings:
    """The settings one config file of the PR loses and gains."""

    path: str
    removed: list[Setting]
    added: list[Setting]

    @property
    def is_yaml(self) -> bool:
        return self.path.endswith(YAML_SUFFIXES)


@dataclass(frozen=True)
class ConfigFiles:
    """A PR's config files split the way the rules read them."""

    sources: list[FileSettings]
    generated: list[FileSettings]
    # the patches of the PR's other files (not generated), read only to tell a default the
    # generated copy changes alone (a stale copy regenerated) from one the PR really changes
    patches: tuple[str, ...] = ()

    def judged(self) -> list[FileSettings]:
        """Where a name's presence is decided: config classes, and the generated (composed)
        YAML when the PR has it, else the source YAML."""
        fields = [f for f in self.sources if not f.is_yaml]
        return fields + (self.generated or [f for f in self.sources if f.is_yaml])


def _flat(files: list[FileSettings], removed: bool) -> list[Setting]:
    return [s for f in files for s in (f.removed if removed else f.added)]


def _names(settings: Iterable[Setting]) -> set[str]:
    return {s.name for s in settings}


def _gone(files: ConfigFiles) -> set[str]:
    """Names the configs no longer define: YAML judged in the generated copies when the PR
    has them (a key may move between source files and stay in the composed config)."""
    judged = files.judged()
    yaml = [f for f in judged if f.is_yaml]
    fields = [f for f in judged if not f.is_yaml]
    yaml_gone = _names(_flat(yaml, True)) - _names(_flat(yaml, False))
    return yaml_gone | (_names(_flat(fields, True)) - _names(_flat(fields, False)))


def _renamed_to(
    old: Setting, added: list[Setting], removed_names: set[str], taken: set[str]
) -> Setting | None:
    return next(
        (
            new
            for new in added
            if new.name not in removed_names
            and new.name not in taken
            and new.value
            and new.value == old.value
            and new.chain == old.chain
            and _near(old, new)
        ),
        None,
    )


def _moves(files: ConfigFiles, gone: set[str]) -> Iterator[SettingChange]:
    judged = files.judged()
    removed, added = _flat(judged, True), _flat(judged, False)
    for old in removed:
        if old.name in gone or not (old.value or not old.is_yaml):
            continue
        twins = [new for new in added if new.name == old.name and new.is_yaml == old.is_yaml]
        if twins and all(_moved(old, new) for new in twins):
            yield SettingChange("moved", old, twins[0])


def config_changes(files: ConfigFiles) -> list[SettingChange]:
    """Every re-defaulted, removed, renamed or moved setting, sources before generated copies,
    each once (a default change by name and values, anything else by name)."""
    everything = [*files.sources, *files.generated]
    removed, added = _flat(everything, True), _flat(everything, False)
    gone = _gone(files)
    changes: list[SettingChange] = []
    seen: set[tuple[str, ...]] = set()
    taken: set[str] = set()

    def keep(change: SettingChange, key: tuple[str, ...]) -> None:
        if key not in seen:
            seen.add(key)
            changes.append(change)

    for file in everything:
        for found in _default_changes(file.removed, file.added):
            if file in files.generated and not _changed_elsewhere(found.old, files):
                continue  # the generated copy catches up with a default changed before
            value = found.new.value if found.new else ""
            keep(found, ("default", found.old.name, found.old.value, value))
    for old in removed:
        if old.name not in gone or (old.is_yaml and not old.value):
            continue
        new = _renamed_to(old, added, _names(removed), taken)
        if new is not None:
            taken.add(new.name)
        keep(SettingChange("renamed" if new else "removed", old, new), ("name", old.name))
    for found in _moves(files, gone):
        keep(found, ("name", found.old.name))
    return changes


def _changed_elsewhere(setting: Setting, files: ConfigFiles) -> bool:
    """Whether a changed line of a source config or of another file of the PR names
    `setting`: where its new default comes from."""
    if any(setting.name in _names([*f.removed, *f.added]) for f in files.sources):
        return True
    word = re.compile(rf"^[-+].*\b{re.escape(setting.name)}\b", re.MULTILINE)
    return any(word.search(patch) for patch in files.patches)


def of_pr(pr: PullRequest, context: Context) -> list[SettingChange]:
    """`config_changes(read_configs(...))` of `pr` on the build's parsed patches, worked out
    once for its turn: the breaking risk and the PR's points both tell them."""
    found = context.settings.get(pr.number)
    if found is None:
        files = read_configs(pr, context.profile, context.parsed)
        found = context.settings[pr.number] = config_changes(files)
    return found


def read_configs(
    pr: PullRequest,
    profile: RepoProfile,
    parsed: Callable[[FileChange], ParsedPatch],
) -> ConfigFiles:
    """The PR's config files (deleted ones too: their keys are gone) as settings."""
    sources: list[FileSettings] = []
    generated: list[FileSettings] = []
    patches: list[str] = []
    for change in pr.files:
        if not profile.is_config_definition(change.path) or change.status == FileStatus.RENAMED:
            if change.patch and not profile.is_generated(change.path):
                patches.append(change.patch)
            continue
        removed, added = settings_of(change, parsed(change))
        found = FileSettings(change.path, removed, added)
        (generated if profile.is_generated(change.path) else sources).append(found)
    return ConfigFiles(sources, generated, tuple(patches))
