"""The `verl-week` process leaves its heap to the OS at exit (`cli.console`: no collector pass
over what the command made): what it wrote is whole, its database sound for the next run."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[1]
RUN = (
    "import gc, sys\n"
    "from service.cli import console\n"
    "sys.argv = ['verl-week', 'digest', '--sample', '--no-llm', '--format', 'json',"
    " '--output', 'out.json']\n"
    "code = console()\n"
    "print(code, gc.get_freeze_count() > 0)\n"
)


def _run(cwd: Path) -> str:
    env = os.environ | {"PYTHONPATH": str(ROOT), "DATABASE_URL": f"sqlite:///{cwd / 'w.db'}"}
    done = subprocess.run(
        [sys.executable, "-c", RUN], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_process_ends_with_its_heap_frozen_and_its_output_whole(tmp_path: Path) -> None:
    assert _run(tmp_path) == "0 True"
    first = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    with sqlite3.connect(tmp_path / "w.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert _run(tmp_path) == "0 True"  # the stored digest, read by the next process
    again = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert {**again, "generated_at": None} == {**first, "generated_at": None}


def test_python_m_service_still_runs_the_command_line(tmp_path: Path) -> None:
    env = os.environ | {"PYTHONPATH": str(ROOT), "DATABASE_URL": f"sqlite:///{tmp_path / 'w.db'}"}
    done = subprocess.run(
        [sys.executable, "-m", "service", "--version"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0
    assert done.stdout.startswith("verl-week ")
