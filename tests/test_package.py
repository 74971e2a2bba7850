"""The package as a team installs it: the wheel built from this tree, installed the way pipx does
(its own virtual environment, the console script on its bin/), runs `--version` and a sample
digest (Markdown and JSON) from outside the source tree, with its metadata (licence, authors,
classifiers) in the wheel. `make pipx-check` (CI) installs it with pipx itself.

Offline: the dependencies come from the running environment's site-packages through a path file
appended after the new environment's own, so the project itself can only come from the wheel."""

from __future__ import annotations

import email
import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from service import __version__

pytestmark = [pytest.mark.slow, pytest.mark.e2e]
ROOT = Path(__file__).resolve().parents[1]
APACHE_HEADING = "Apache License\n                           Version 2.0, January 2004"


def _run(args: list[str | Path], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, f"{args}: {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", dist, ROOT], cwd=dist)
    (built,) = dist.glob("verl_week-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A pipx-style install: a fresh venv holding only the wheel; returns its bin/ directory."""
    venv = tmp_path_factory.mktemp("pipx") / "verl-week"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], cwd=venv.parent)
    python = venv / "bin" / "python"
    _run(
        [sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", wheel],
        cwd=venv.parent,
    )
    site = Path(
        _run(
            [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], cwd=venv
        ).strip()
    )
    (site / "zz_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return venv / "bin"


def _clean_env() -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")
    return {k: v for k, v in os.environ.items() if k in keep}


def test_wheel_carries_the_licence_and_complete_metadata(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        fields = email.message_from_bytes(archive.read(metadata))
        (licence,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        licence_text = archive.read(licence).decode()
    assert APACHE_HEADING in licence_text
    assert "END OF TERMS AND CONDITIONS" in licence_text
    assert fields["Name"] == "verl-week"
    assert fields["Version"] == __version__
    assert fields["License-Expression"] == "Apache-2.0"
    assert fields["Author"] or fields["Author-email"]
    assert fields["Keywords"]
    assert "Programming Language :: Python :: 3.11" in (fields.get_all("Classifier") or [])
    assert fields["Requires-Python"] == ">=3.11"
    assert fields["Description-Content-Type"] == "text/markdown"
    assert any(n == "service/templates/report/report.html.j2" for n in names)


def test_installed_console_script_prints_its_version(installed: Path, tmp_path: Path) -> None:
    out = _run([installed / "verl-week", "--version"], cwd=tmp_path, env=_clean_env())
    assert out.strip() == f"verl-week {__version__}"


def test_installed_package_runs_the_sample_digest_from_the_wheel(
    installed: Path, tmp_path: Path
) -> None:
    env = _clean_env() | {"DATABASE_URL": f"sqlite:///{tmp_path / 'week.db'}"}
    where = _run(
        [installed / "python", "-c", "import service; print(service.__file__)"], tmp_path, env
    )
    assert Path(where.strip()).is_relative_to(installed.parent), where
    digest = _run([installed / "verl-week", "digest", "--sample", "--no-llm"], tmp_path, env)
    assert digest.startswith("# volcengine/verl 周报 · 2026 年第 4 周")
    assert "合入 PR：22" in digest


def test_installed_package_writes_the_sample_digest_as_json(
    installed: Path, tmp_path: Path
) -> None:
    env = _clean_env() | {"DATABASE_URL": f"sqlite:///{tmp_path / 'week.db'}"}
    out = _run(
        [installed / "verl-week", "digest", "--sample", "--no-llm", "--format", "json"],
        tmp_path,
        env,
    )
    digest = json.loads(out)
    assert (digest["repo"], digest["week"], digest["stats"]["prs"]) == (
        "volcengine/verl",
        "2026-W04",
        22,
    )
