"""The two test tiers hold by rule: a test without `@pytest.mark.process` cannot start Python or
`verl-week` (tests/conftest.py refuses it at the subprocess audit event), a marked one can, and a
tool the service itself runs (shellcheck) is no service process."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.processes import run_cli


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-c", "pass"],
        ["python3", "-c", "pass"],
        ["verl-week", "--version"],
    ],
)
def test_an_unmarked_test_cannot_start_a_service_process(command: list[str]) -> None:
    with pytest.raises(RuntimeError, match=r"mark it @pytest.mark.process"):
        subprocess.run(command, capture_output=True, check=False, timeout=60)


def test_an_unmarked_test_cannot_run_the_cli_helper(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match=r"mark it @pytest.mark.process"):
        run_cli(["--version"], tmp_path)


def test_a_tool_that_is_not_python_still_runs() -> None:
    true = shutil.which("true")
    assert true is not None
    assert subprocess.run([true], check=False, timeout=60).returncode == 0


@pytest.mark.process
def test_a_marked_test_runs_the_cli(tmp_path: Path) -> None:
    done = run_cli(["--version"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("verl-week ")
