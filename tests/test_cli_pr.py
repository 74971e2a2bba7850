"""`verl-week pr N` as the chat command answers it: without --week it searches every stored
week (no week is collected again); a PR in no digest is one line and exit 2, and with --sample
it says GitHub was not asked (it was not)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.github import FakeGitHub
from tests.github.conftest import TOKEN, week_data
from tests.processes import run_cli as run
from tests.test_cli import github_env

pytestmark = pytest.mark.process


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub(token=TOKEN)
    fake.serve_week(week_data("2026-W03"))
    fake.serve_week(week_data("2026-W04"))
    with fake.running():
        yield fake


def test_pr_without_week_searches_the_stored_weeks(github: FakeGitHub, tmp_path: Path) -> None:
    env = github_env(github, tmp_path)
    for week in ("2026-W03", "2026-W04"):
        built = run(["digest", "--week", week, "--lang", "en", "--no-llm"], tmp_path, **env)
        assert built.returncode == 0, built.stderr
    github.reset_log()
    older = week_data("2026-W03")["pulls"][0]["number"]
    answer = run(["pr", str(older), "--lang", "en"], tmp_path, **env)
    assert answer.returncode == 0, answer.stderr
    assert f"#{older}" in answer.stdout
    assert "2026-W03" in answer.stdout
    # found in a stored week: nothing collected, nothing looked up
    assert github.calls() == []


def test_pr_in_no_digest_is_exit_2_and_sample_does_not_claim_github(tmp_path: Path) -> None:
    result = run(["pr", "99999", "--sample", "--lang", "en"], tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert "#99999" in line
    assert "GitHub was not asked" in line
    assert "could not be found on GitHub" not in line


def test_pr_not_on_github_either_is_exit_2(github: FakeGitHub, tmp_path: Path) -> None:
    env = github_env(github, tmp_path)
    result = run(["pr", "99999", "--week", "2026-W04", "--lang", "en"], tmp_path, **env)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "could not be found on GitHub" in line
    assert github.calls("POST", "/graphql")
