"""`verl-week digest` with no terminal (stderr a pipe, as in a container or CI): progress as log
lines every PROGRESS_LOG_SECONDS, PRs fetched of total and the stage, instead of a bar."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.fakes.github import FakeGitHub
from tests.processes import run_cli as run
from tests.test_cli import github, github_env

pytestmark = pytest.mark.process

__all__ = ["github"]  # the fixture, shared with test_cli
LINE = re.compile(r"INFO service\.observe\.progress .*PRs fetched (\d+) of (\d+|\?), stage (\w+)$")


def test_digest_without_a_terminal_logs_progress_lines(github: FakeGitHub, tmp_path: Path) -> None:
    env = github_env(github, tmp_path, PROGRESS_LOG_SECONDS="0.01", LOG_LEVEL="INFO")
    result = run(["digest", "--week", "2026-W04", "--format", "json"], tmp_path, **env)
    assert result.returncode == 0, result.stderr
    assert "\r" not in result.stderr  # no bar drawn into a log
    lines = [m.groups() for m in map(LINE.search, result.stderr.splitlines()) if m]
    stages = [stage for _done, _total, stage in lines]
    assert "collecting" in stages
    assert stages[-1] == "done"
    assert stages.count("done") == 1  # the heartbeat stops with the build
    counted = [(int(done), int(total)) for done, total, _stage in lines if total != "?"]
    assert counted, result.stderr
    assert [done for done, _ in counted] == sorted(done for done, _ in counted)
    last_done, last_total = counted[-1]
    assert last_done == last_total > 0  # every PR the collector fetched one by one


def test_progress_interval_is_checked(tmp_path: Path) -> None:
    result = run(["digest", "--sample"], tmp_path, PROGRESS_LOG_SECONDS="0")
    assert result.returncode == 2
    assert "PROGRESS_LOG_SECONDS" in result.stderr
    assert "Traceback" not in result.stderr
