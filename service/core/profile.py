"""RepoProfile: core paths, path→module map, weights, categories and path patterns, from TOML."""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from service.errors import ConfigError

GENERIC = "generic"
# git's list of submodules: the migration detector reads it (a directory may become a submodule)
GITMODULES = ".gitmodules"


class ModulePath(BaseModel):
    """`pattern` → `module`; `{N}` in module is the N-th path segment (1-based)."""

    model_config = ConfigDict(extra="forbid")
    pattern: str
    module: str


class CategoryRule(BaseModel):
    """A key-change category; a PR matches when any of its conditions hold (first rule wins)."""

    model_config = ConfigDict(extra="forbid")
    name: str
    types: list[str] = Field(default_factory=list)
    modules: list[str] = Field(default_factory=list)
    title_keywords: list[str] = Field(default_factory=list)
    min_deleted_files: int | None = None


class PathPatterns(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tests: list[str] = Field(default_factory=list)
    docs: list[str] = Field(default_factory=list)
    scripts: list[str] = Field(default_factory=list)
    examples: list[str] = Field(default_factory=list)
    ci: list[str] = Field(default_factory=list)
    configs: list[str] = Field(default_factory=list)
    # importable library code: deleting or renaming one of these modules breaks `import`
    public_modules: list[str] = Field(default_factory=list)
    # where users' settings are defined (YAML keys, fields of config dataclasses): a key removed
    # or renamed here breaks the configs and command lines that set it
    config_definitions: list[str] = Field(default_factory=list)
    # generated copies of other files (counted once, through their source)
    generated: list[str] = Field(default_factory=list)


class RepoProfile(BaseModel):
    """What the analysis knows about one repository; verl's ships as the default."""

    model_config = ConfigDict(extra="forbid")
    name: str
    repos: list[str] = Field(default_factory=list)
    title_modules: list[str] = Field(default_factory=list)
    title_types: list[str] = Field(default_factory=list)
    module_aliases: dict[str, str] = Field(default_factory=dict)
    core_paths: list[str] = Field(default_factory=list)
    # code whose patch the checker reads beside the detectors' paths: a sentence about a helper
    # outside the core (`verl/utils/…`) is judged on its merged lines
    source_paths: list[str] = Field(default_factory=list)
    patterns: PathPatterns = Field(default_factory=PathPatterns)
    module_paths: list[ModulePath] = Field(default_factory=list)
    module_weights: dict[str, float] = Field(default_factory=dict)
    type_weights: dict[str, float] = Field(default_factory=dict)
    categories: list[CategoryRule] = Field(default_factory=list)
    # change type / label → canonical type (`doc` → `docs`, label `bug` → `fix`)
    type_aliases: dict[str, str] = Field(default_factory=dict)
    # type → words of an untyped title that imply it (the earliest word in the title wins)
    type_keywords: dict[str, list[str]] = Field(default_factory=dict)
    # the project's own environment variables (`VERL_`): one the code stops reading is breaking
    env_prefixes: list[str] = Field(default_factory=list)

    def is_core(self, path: str) -> bool:
        return matches_any(path, self.core_paths)

    def is_test(self, path: str) -> bool:
        return matches_any(path, self.patterns.tests)

    def is_doc(self, path: str) -> bool:
        return matches_any(path, self.patterns.docs)

    def is_script(self, path: str) -> bool:
        return matches_any(path, self.patterns.scripts)

    def is_example(self, path: str) -> bool:
        return matches_any(path, self.patterns.examples)

    def is_ci(self, path: str) -> bool:
        return matches_any(path, self.patterns.ci)

    def is_config(self, path: str) -> bool:
        return matches_any(path, self.patterns.configs)

    def is_public_module(self, path: str) -> bool:
        """A Python module users import: under the public paths, not a test or an example,
        not private (`_name.py`; a package's `__init__.py` is the package itself)."""
        name = path.rsplit("/", 1)[-1]
        return (
            path.endswith(".py")
            and (name == "__init__.py" or not name.startswith("_"))
            and matches_any(path, self.patterns.public_modules)
            and not self.is_test(path)
            and not self.is_example(path)
        )

    def is_config_definition(self, path: str) -> bool:
        return matches_any(path, self.patterns.config_definitions) and not self.is_test(path)

    def is_generated(self, path: str) -> bool:
        return matches_any(path, self.patterns.generated)

    def needs_patch(self, path: str) -> bool:
        """Whether a content detector or the checker reads this path (so the collector fetches
        its patch): the checker and the verifier judge a sentence about any PR on its merged
        lines, and a test or a helper outside the core paths (`verl/utils/…`) has no other
        proof ("adds a CPU test for the groupwise helpers"; a constant review renamed)."""
        return (
            path == GITMODULES
            or matches_any(path, self.source_paths)
            or self.is_test(path)
            or self.is_core(path)
            or self.is_doc(path)
            or self.is_script(path)
            or self.is_example(path)
            or self.is_ci(path)
            or self.is_config(path)
            or self.is_config_definition(path)
        )

    def module_for_path(self, path: str) -> str:
        for rule in self.module_paths:
            if path_matches(path, rule.pattern):
                return _fill_segments(rule.module, path)
        return "misc"

    def module_weight(self, module: str) -> float:
        return self.module_weights.get(module, self.module_weights.get("misc", 0.3))

    def canonical_module(self, module: str) -> str:
        return canonical_name(module, self.module_aliases)

    def module_names(self) -> frozenset[str]:
        """Every module name the profile knows (aliases included); path-derived `{N}` names
        are known only from the PRs that produce them."""
        static = [r.module for r in self.module_paths if "{" not in r.module]
        names = [*self.title_modules, *self.module_weights, *self.module_aliases, *static]
        return frozenset(names) | frozenset(self.module_aliases.values())


def canonical_name(module: str, aliases: Mapping[str, str]) -> str:
    """A module name as the profile writes it: lower case, `_` for `-` and spaces, aliased."""
    name = module.strip().lower().replace("-", "_").replace(" ", "_")
    return aliases.get(name, name)


def _fill_segments(template: str, path: str) -> str:
    parts = path.split("/")

    def segment(match: re.Match[str]) -> str:
        index = int(match.group(1)) - 1
        return parts[index] if 0 <= index < len(parts) - 1 else "misc"

    return re.sub(r"\{(\d+)\}", segment, template)


@functools.lru_cache(maxsize=512)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def path_matches(path: str, pattern: str) -> bool:
    """Glob match where `*` stays within a segment and `**` spans segments."""
    return _glob_regex(pattern).match(path) is not None


@functools.lru_cache(maxsize=128)
def _any_regex(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{_glob_regex(pattern).pattern})" for pattern in patterns))


def matches_any(path: str, patterns: list[str]) -> bool:
    """Whether any of the globs matches (one regex for the whole list)."""
    return bool(patterns) and _any_regex(tuple(patterns)).match(path) is not None


def parse_profile(text: str, source: str) -> RepoProfile:
    """Parse and validate one profile TOML; errors name the source."""
    try:
        return RepoProfile.model_validate(tomllib.loads(text))
    except (tomllib.TOMLDecodeError, ValidationError) as exc:
        first = str(exc).splitlines()[0]
        raise ConfigError(f"invalid repo profile {source}: {first}") from None


@functools.lru_cache(maxsize=8)
def builtin_profiles() -> tuple[RepoProfile, ...]:
    """The profiles shipped in service/data/profiles."""
    folder = resources.files("service.data").joinpath("profiles")
    found = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            found.append(parse_profile(entry.read_text(encoding="utf-8"), entry.name))
    return tuple(found)


def load_profile(repo: str, extra_dirs: tuple[Path, ...] = ()) -> RepoProfile:
    """The profile for `repo`: a TOML in `extra_dirs` naming it, a shipped one, or the generic."""
    candidates: list[RepoProfile] = []
    for folder in extra_dirs:
        for path in sorted(folder.glob("*.toml")):
            candidates.append(parse_profile(path.read_text(encoding="utf-8"), str(path)))
    candidates.extend(builtin_profiles())
    lowered = repo.lower()
    for profile in candidates:
        if lowered in (r.lower() for r in profile.repos):
            return profile
    return next(p for p in candidates if p.name == GENERIC)
