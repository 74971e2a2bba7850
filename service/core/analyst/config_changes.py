"""The config keys a PR's changed lines add, remove or give another default, read from its
patches: YAML keys (dotted by their parents, `rollout.max_num_seqs: 1024 → 256`) and the fields
of Python config dataclasses (`EngineConfig.moe_implementation: "eager" → "fused"`).

Only what a changed line shows: a key whose old and new lines are both in the patch is a
changed default; one on the new side only is added; one on the old side only is removed. The
generated copies verl keeps of its YAML (`_generated_*.yaml`) and CI workflows say nothing of
their own and are skipped. Values are scrubbed like any PR text (a secret in a default is
masked).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from service.core.analyst.body import scrub
from service.core.models import FileChange, PullRequest

VALUE_CHARS = 60
_HUNK = re.compile(r"^@@ [^@]* @@ ?(.*)$")
_YAML_KEY = re.compile(r"^(\s*)([A-Za-z_][\w.-]*)\s*:(?:\s+(.*?))?\s*$")
_YAML_COMMENT = re.compile(r"\s+#.*$")
_PY_FIELD = re.compile(r"^( +)([a-z_]\w*)\s*:\s*([^=#]+?)\s*=\s*(.+?)\s*(?:#.*)?$")
_PY_CLASS = re.compile(r"^class\s+(\w+)")
_SKIPPED = re.compile(r"(?:^|/)_generated_[^/]*$|^(?:\.github|tests|examples)/")
# a key whose parents the hunk does not show (it starts indented) is written `…key`
UNKNOWN_PARENT = "…"
_QUOTED = re.compile(r"^([\"'])(.*)\1$")


@dataclass(frozen=True)
class ConfigChange:
    """One key: its file, dotted name, and its value before and after (None: no such line)."""

    path: str
    key: str
    old: str | None
    new: str | None

    @property
    def kind(self) -> str:
        """`changed` (a new default), `added` or `removed`."""
        if self.old is not None and self.new is not None:
            return "changed"
        return "added" if self.new is not None else "removed"

    def line(self) -> str:
        """`file key: old → new`, `file key: + new` or `file key: - old` (what the prompt
        shows; `file` is the file's name)."""
        name = self.path.rsplit("/", 1)[-1]
        if self.kind == "changed":
            return f"{name} {self.key}: {self.old} → {self.new}"
        if self.kind == "added":
            return f"{name} {self.key}: + {self.new}"
        return f"{name} {self.key}: - {self.old}"


def _value(text: str) -> str:
    value = scrub(_QUOTED.sub(r"\2", _YAML_COMMENT.sub("", text).strip()))
    return value if len(value) <= VALUE_CHARS else value[: VALUE_CHARS - 1] + "…"


def _yaml_sides(patch: str) -> tuple[dict[str, str], dict[str, str]]:
    """Dotted YAML key → value on the old side and on the new side (leaves only)."""
    old: dict[str, str] = {}
    new: dict[str, str] = {}
    stack: list[tuple[int, str]] = []
    for raw in patch.splitlines():
        header = _HUNK.match(raw)
        if header:
            stack = []  # the header names a top-level line, not the chain of parents
            continue
        sign, text = raw[:1], raw[1:]
        found = _YAML_KEY.match(text) if sign in "+- " else None
        if found is None:
            continue
        indent, key, value = len(found.group(1)), found.group(2), found.group(3) or ""
        while stack and stack[-1][0] >= indent:
            stack.pop()
        value = _YAML_COMMENT.sub("", value) if not value.startswith("#") else ""
        if not value:
            stack.append((indent, key))
            continue
        dotted = ".".join([*(k for _, k in stack), key])
        if indent and not stack:
            dotted = UNKNOWN_PARENT + dotted
        if sign == "-":
            old[dotted] = _value(value)
        elif sign == "+":
            new[dotted] = _value(value)
    return old, new


def _python_sides(patch: str) -> tuple[dict[str, str], dict[str, str]]:
    """`Class.field` → default on the old side and on the new side (dataclass fields)."""
    old: dict[str, str] = {}
    new: dict[str, str] = {}
    owner = ""
    for raw in patch.splitlines():
        header = _HUNK.match(raw)
        if header:
            found_class = _PY_CLASS.match(header.group(1))
            owner = found_class.group(1) if found_class else ""
            continue
        sign, text = raw[:1], raw[1:]
        found_class = _PY_CLASS.match(text)
        if found_class:
            owner = found_class.group(1)
            continue
        field = _PY_FIELD.match(text) if sign in "+-" and owner else None
        if field is None or len(field.group(1)) != len("    "):
            continue
        side = old if sign == "-" else new
        side[f"{owner}.{field.group(2)}"] = _value(field.group(4))
    return old, new


def _sides(change: FileChange) -> tuple[dict[str, str], dict[str, str]]:
    path = change.path
    if not change.patch or _SKIPPED.search(path):
        return {}, {}
    if path.endswith((".yaml", ".yml")):
        return _yaml_sides(change.patch)
    if path.endswith(".py") and "config" in path.lower():
        return _python_sides(change.patch)
    return {}, {}


def file_changes(change: FileChange) -> Iterator[ConfigChange]:
    """The config keys one file's patch changes, adds or removes (in key order)."""
    old, new = _sides(change)
    for key in sorted(old.keys() | new.keys()):
        before, after = old.get(key), new.get(key)
        if before != after:
            yield ConfigChange(change.path, key, before, after)


_ORDER = {"changed": 0, "removed": 1, "added": 2}


def config_changes(pr: PullRequest | None) -> tuple[ConfigChange, ...]:
    """Every config key the PR changes: new defaults first, then removed, then added keys;
    a key changed the same way in several files once."""
    if pr is None:
        return ()
    found: Iterable[ConfigChange] = (c for f in pr.files for c in file_changes(f))
    unique: dict[tuple[str, str | None, str | None], ConfigChange] = {}
    for change in found:
        leaf = change.key.rsplit(".", 1)[-1].lstrip(UNKNOWN_PARENT)
        unique.setdefault((leaf, change.old, change.new), change)
    return tuple(sorted(unique.values(), key=lambda c: _ORDER[c.kind]))
