"""The lock files follow pyproject.toml: every dependency (and extra) is pinned there, inside the
range pyproject allows, with hashes; CI and the image install from them (`make lock` rewrites
them after a dependency changes)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PIN = re.compile(r"^([A-Za-z0-9_.-]+)==([^\s;\\]+)", re.MULTILINE)
LOCKS = {
    "runtime.lock": ("postgres", "fast", "shellcheck"),
    "dev.lock": ("dev", "postgres"),
}


def pins(text: str) -> dict[str, str]:
    return {canonicalize_name(name): version for name, version in PIN.findall(text)}


def wanted(extras: tuple[str, ...]) -> list[Requirement]:
    """The requirements of the project with `extras`; an extra naming the project's own extras
    (`verl-week[fast,shellcheck]` in dev) brings theirs."""
    project = PYPROJECT["project"]
    found = [Requirement(r) for r in project["dependencies"]]
    todo, seen = list(extras), set()
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for requirement in map(Requirement, project["optional-dependencies"][extra]):
            if canonicalize_name(requirement.name) == canonicalize_name(project["name"]):
                todo += sorted(requirement.extras)
            else:
                found.append(requirement)
    return found


@pytest.mark.parametrize(("lock", "extras"), LOCKS.items())
def test_every_requirement_is_pinned_within_its_range(lock: str, extras: tuple[str, ...]) -> None:
    locked = pins((ROOT / "requirements" / lock).read_text(encoding="utf-8"))
    for requirement in wanted(extras):
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{requirement.name} is not in {lock}: run `make lock`"
        assert requirement.specifier.contains(locked[name], prereleases=True), (
            f"{lock} pins {name}=={locked[name]}, outside {requirement.specifier}: run `make lock`"
        )


@pytest.mark.parametrize("lock", LOCKS)
def test_every_pin_has_a_hash(lock: str) -> None:
    text = (ROOT / "requirements" / lock).read_text(encoding="utf-8")
    blocks = re.split(r"\n(?=[A-Za-z0-9_.-]+==)", text.split("\n", 2)[2])
    for block in blocks:
        assert "--hash=sha256:" in block, block.splitlines()[0]


def test_web_server_packages_have_upper_bounds() -> None:
    for requirement in wanted(()):
        upper = [s for s in requirement.specifier if s.operator in ("<", "<=", "~=", "==")]
        assert upper, f"{requirement.name} has no upper bound"
