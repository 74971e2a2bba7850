"""deploy/Dockerfile, checked where no Docker daemon runs (CI): one base image of the Python the
locks are compiled for; the build stage builds the wheel from exactly the files it copies; the
runtime stage installs what `make wheel-check` installs, the same way (locked dependencies with
their hashes, then the wheel alone), and runs unprivileged with a healthcheck."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
BASE = "python:3.11-slim"


@dataclass(frozen=True)
class Step:
    stage: int
    keyword: str
    argument: str


def steps(text: str) -> list[Step]:
    """The instructions, continuation lines joined, comments left out, numbered by stage."""
    found: list[Step] = []
    stage = -1
    logical = re.sub(
        r"\\\n\s*",
        " ",
        "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#")),
    )
    for line in logical.splitlines():
        if not line.strip():
            continue
        keyword, _, argument = line.strip().partition(" ")
        if keyword.upper() == "FROM":
            stage += 1
        found.append(Step(stage, keyword.upper(), argument.strip()))
    return found


STEPS = steps(DOCKERFILE.read_text(encoding="utf-8"))


def recipe(target: str) -> list[str]:
    """The command lines of a Makefile target."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")
    body = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", text, re.MULTILINE)
    assert body is not None, target
    return [line.strip() for line in body.group(1).splitlines()]


def pip_install_flags(command: str) -> list[str]:
    """The options of a `pip install` (quiet-ness aside), in order."""
    words = command.split()
    after = words[words.index("install") + 1 :]
    return [w for w in after if w.startswith("-") and w not in ("-q", "--quiet")]


def test_every_stage_is_the_base_image_of_the_locked_python() -> None:
    froms = [s.argument.split()[0] for s in STEPS if s.keyword == "FROM"]
    assert froms == [BASE, BASE]
    minor = re.search(r"python:(\d+\.\d+)", BASE)
    assert minor is not None
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert f"--python-version {minor.group(1)}" in makefile  # the locks' Python
    assert f"IMAGE_PY := python{minor.group(1)}" in makefile  # wheel-check's venv
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["requires-python"] == f">={minor.group(1)}"


def test_the_runtime_stage_installs_as_wheel_check_does() -> None:
    runs = [s.argument for s in STEPS if s.stage == 1 and s.keyword == "RUN"]
    image = [r.split("&&")[0].strip() for r in runs if r.startswith("pip install")]
    ci = [line for line in recipe("wheel-check") if "/bin/pip install" in line]
    assert [pip_install_flags(c) for c in image] == [pip_install_flags(c) for c in ci]
    assert pip_install_flags(image[0]) == ["--require-hashes", "-r"]
    assert image[0].endswith("runtime.lock")
    assert ci[0].endswith("requirements/runtime.lock")
    assert pip_install_flags(image[1]) == ["--no-deps"]
    copies = [s.argument for s in STEPS if s.stage == 1 and s.keyword == "COPY"]
    assert "requirements/runtime.lock /tmp/runtime.lock" in copies


def test_the_image_runs_unprivileged_with_a_healthcheck() -> None:
    final = {s.keyword: s.argument for s in STEPS if s.stage == 1}
    assert final["USER"] == "10001:10001"
    assert "/healthz" in final["HEALTHCHECK"]
    assert final["ENTRYPOINT"] == '["verl-week"]'


def _ignored(path: str) -> bool:
    patterns = (ROOT / "deploy" / "Dockerfile.dockerignore").read_text(encoding="utf-8")
    return any(
        path == p or path.startswith(p.rstrip("/") + "/")
        for p in (line.strip() for line in patterns.splitlines())
        if p and not p.startswith("#")
    )


@pytest.mark.process
def test_the_build_stage_builds_the_wheel_from_the_files_it_copies(tmp_path: Path) -> None:
    """A file the build needs but the stage does not copy (the licence, say) fails here as it
    would in `docker build`."""
    context = tmp_path / "src"
    context.mkdir()
    for step in STEPS:
        if step.stage != 0 or step.keyword != "COPY":
            continue
        *sources, target = step.argument.split()
        for source in sources:
            assert (ROOT / source).exists(), source
            assert not _ignored(source), f"{source} is left out by Dockerfile.dockerignore"
            into = context / target if target != "./" else context / source
            if (ROOT / source).is_dir():
                shutil.copytree(ROOT / source, into, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy(ROOT / source, into if target != "./" else context / source)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), "."],
        cwd=context,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    [wheel] = tmp_path.glob("verl_week-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.endswith("/licenses/LICENSE") for n in names)
    assert "service/templates/strings/en/commands.toml" in names
