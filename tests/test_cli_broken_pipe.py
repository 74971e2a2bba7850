"""`verl-week digest | head`: a reader that leaves early is no internal error (no traceback, no
incident id), the command just stops, as other command-line tools do."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.process  # `verl-week digest` piped into a reader that leaves
def test_a_closed_pipe_stops_the_digest_quietly(tmp_path: Path) -> None:
    env = os.environ | {"PYTHONPATH": str(ROOT), "DATABASE_URL": f"sqlite:///{tmp_path}/w.db"}
    reader, writer = os.pipe()
    os.close(reader)  # the reader is gone before the first line is written
    try:
        done = subprocess.run(
            [sys.executable, "-m", "service", "digest", "--sample", "--no-llm"],
            stdout=writer,
            stderr=subprocess.PIPE,
            env=env,
            cwd=tmp_path,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        os.close(writer)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "internal error" not in done.stderr
