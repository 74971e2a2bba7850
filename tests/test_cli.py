"""`verl-week` as a user runs it: a real subprocess, fake GitHub on 127.0.0.1 by settings."""

from __future__ import annotations

import json
import os
import pty
import re
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest

from service.render.links import signing_key, token_is_valid
from tests.fakes.github import FakeGitHub
from tests.github.conftest import TOKEN, week_data
from tests.processes import run_cli as run
from tests.processes import spawn

ROOT = Path(__file__).resolve().parents[1]


pytestmark = pytest.mark.process


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub(token=TOKEN)
    fake.serve_week(week_data("2026-W04"))
    with fake.running():
        yield fake


def github_env(github: FakeGitHub, tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        "GITHUB_API_URL": github.url,
        "GITHUB_GRAPHQL_URL": github.graphql_url,
        "GITHUB_TOKEN": TOKEN,
        "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite",
        "GITHUB_MAX_WAIT_SECONDS": "2",
        **extra,
    }


def test_sample_digest_markdown_has_every_section(tmp_path: Path) -> None:
    result = run(["digest", "--sample"], tmp_path)
    assert result.returncode == 0, result.stderr
    for section in (
        "执行摘要",
        "本周重点变化",
        "模块与主题趋势",
        "风险观察",
        "重点 PR 速览",
        "后续建议",
        "参与讨论",
    ):
        assert f"## {section}" in result.stdout
    assert (tmp_path / "data" / "verl-week.db").exists()  # default DATABASE_URL, folder created


def test_sample_digest_english_and_every_format(tmp_path: Path) -> None:
    english = run(["digest", "--sample", "--lang", "en"], tmp_path)
    assert "## Executive summary" in english.stdout
    as_json = json.loads(run(["digest", "--sample", "--format", "json"], tmp_path).stdout)
    assert as_json["week"] == "2026-W04"
    assert len(as_json["prs"]) == 22
    slack = json.loads(run(["digest", "--sample", "--format", "slack"], tmp_path).stdout)
    assert slack["blocks"][0]["type"] == "header"
    feishu = json.loads(run(["digest", "--sample", "--format", "feishu"], tmp_path).stdout)
    assert feishu["schema"] == "2.0"
    out = tmp_path / "week.html"
    assert (
        run(["digest", "--sample", "--format", "html", "--output", str(out)], tmp_path).returncode
        == 0
    )
    HTMLParser().feed(out.read_text())
    assert "pull/4280" in out.read_text()


def test_risks_and_pr_answers(tmp_path: Path) -> None:
    risks = run(["risks", "--sample", "--severity", "high", "--lang", "en"], tmp_path)
    assert risks.returncode == 0, risks.stderr
    assert "[high]" in risks.stdout
    assert "4280" in risks.stdout
    pr = run(["pr", "#4280", "--sample", "--lang", "en"], tmp_path)
    assert "Importance" in pr.stdout
    assert "Score factors" in pr.stdout


def test_digest_from_fake_github_by_settings(github: FakeGitHub, tmp_path: Path) -> None:
    result = run(
        ["digest", "--week", "2026-W04", "--format", "json"],
        tmp_path,
        **github_env(github, tmp_path),
    )
    assert result.returncode == 0, result.stderr
    numbers = {p["number"] for p in json.loads(result.stdout)["prs"]}
    assert numbers == {p["number"] for p in week_data("2026-W04")["pulls"]}
    assert github.calls("POST", "/graphql")
    assert TOKEN not in result.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["digest", "--week", "2026-W99", "--sample"], "not an ISO week"),
        (["digest", "--week", "2030-W01", "--sample"], "2030-W01 has not begun yet"),
        (["post", "--week", "2030-W01", "--sample"], "2030-W01 has not begun yet"),
        (["risks", "--week", "2099-W52", "--sample"], "2099-W52 has not begun yet"),
        (["digest", "--week", "yesterday", "--sample"], "bad week"),
        (["digest", "--week", "1970-W01", "--sample"], "1970-W01 is too early: its trends need"),
        (["digest", "--period", "1970-01", "--sample"], "1970-01 is too early"),
        (["digest", "--since", "1970-01-01", "--until", "1970-01-04"], "is too early"),
        (["digest", "--sample", "--format", "pdf"], "invalid choice"),
        (["digest", "--repo", "foo", "--sample"], "owner/name"),
        (["pr", "abc", "--sample"], "bad PR number"),
        (["post", "--to", "email:me", "--sample"], "bad --to item"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], needle: str) -> None:
    result = run(args, tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert needle in lines[0]
    assert "Traceback" not in result.stderr


def test_bad_setting_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = run(["digest", "--sample"], tmp_path, DIGEST_TIMEZONE="Mars/Olympus")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "verl-week: error: invalid setting DIGEST_TIMEZONE: "
        "expected an IANA timezone such as Asia/Shanghai, got 'Mars/Olympus'"
    )


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("LOG_LEVEL", "verbose", "invalid setting LOG_LEVEL: expected one of DEBUG, INFO, WARNING"),
        ("GITHUB_PATCH_CONCURRENCY", "many", "invalid setting GITHUB_PATCH_CONCURRENCY: "),
        ("HTTP_CACHE_RETENTION_DAYS", "-3", "invalid setting HTTP_CACHE_RETENTION_DAYS: "),
    ],
)
def test_any_invalid_setting_is_one_line_and_exit_2(
    tmp_path: Path, name: str, value: str, expected: str
) -> None:
    result = run(["digest", "--sample"], tmp_path, **{name: value})
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"verl-week: error: {expected}")


def test_a_dotenv_that_is_not_utf8_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / ".env").write_bytes(b"LOG_LEVEL=\xff\n")
    result = run(["digest", "--sample"], tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("verl-week: error: cannot read the .env file: ")
    assert len(result.stderr.strip().splitlines()) == 1


def _failure(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1, result.stderr
    # one error line; progress log lines of a long retry may precede it (not after it)
    lines = [
        ln for ln in result.stderr.strip().splitlines() if " service.observe.progress " not in ln
    ]
    assert len(lines) == 1, result.stderr
    assert "service.observe.progress" not in result.stderr.strip().splitlines()[-1]
    assert "Traceback" not in result.stderr
    return lines[0]


def test_unknown_repo_is_a_clear_failure(github: FakeGitHub, tmp_path: Path) -> None:
    line = _failure(
        run(
            ["digest", "--repo", "nobody/nothing", "--week", "2026-W04"],
            tmp_path,
            **github_env(github, tmp_path),
        )
    )
    assert "repository nobody/nothing not found" in line


def test_refused_token_is_a_clear_failure(github: FakeGitHub, tmp_path: Path) -> None:
    env = github_env(github, tmp_path, GITHUB_TOKEN="wrong-token-value")
    line = _failure(run(["digest", "--week", "2026-W04"], tmp_path, **env))
    assert "401" in line
    assert "GITHUB_TOKEN" in line
    assert "wrong-token-value" not in line


def test_rate_limit_names_the_reset_time(github: FakeGitHub, tmp_path: Path) -> None:
    github.exhaust_primary(reset_in=7200, times=10)
    line = _failure(run(["digest", "--week", "2026-W04"], tmp_path, **github_env(github, tmp_path)))
    assert "rate limit" in line.lower()
    assert "UTC" in line


def test_unreachable_network_is_a_clear_failure(tmp_path: Path) -> None:
    env = {
        "GITHUB_API_URL": "http://127.0.0.1:9",
        "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite",
    }
    line = _failure(run(["digest", "--week", "2026-W04"], tmp_path, **env))
    assert "127.0.0.1" in line


def test_post_dry_run_lists_destinations_without_posting(tmp_path: Path) -> None:
    result = run(
        ["post", "--sample", "--dry-run", "--to", "slack:#general,feishu-webhook:default"], tmp_path
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("slack:general\tnew\tslack card ")
    assert lines[1].startswith("feishu-webhook:default\tnew\tfeishu card ")


def test_a_repo_profile_from_repo_profiles_dir_needs_no_code(
    github: FakeGitHub, tmp_path: Path
) -> None:
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    generic = (ROOT / "service" / "data" / "profiles" / "generic.toml").read_text()
    custom = (
        generic.replace('name = "generic"', 'name = "mine"')
        .replace("repos = []", 'repos = ["volcengine/verl"]')
        .replace(
            'core_paths = ["src/**", "lib/**", "pkg/**", "internal/**"]', 'core_paths = ["docs/**"]'
        )
    )
    (profiles / "mine.toml").write_text(custom)
    env = github_env(github, tmp_path, REPO_PROFILES_DIR=str(profiles))
    result = run(["digest", "--week", "2026-W04", "--format", "json"], tmp_path, **env)
    assert result.returncode == 0, result.stderr
    prs = {p["number"]: p for p in json.loads(result.stdout)["prs"]}

    def core_points(number: int) -> float:
        return sum(f["points"] for f in prs[number]["factors"] if f["name"] == "core")

    # with this profile docs/ is core and verl/ is not: #4280 (verl/ code) loses its core points
    assert core_points(4280) == 0
    assert core_points(4970) > 0  # fixes links in docs/
    (profiles / "broken.toml").write_text("name = 1\n")
    broken = run(["digest", "--week", "2026-W04"], tmp_path, **env)
    assert broken.returncode == 2
    assert "invalid repo profile" in broken.stderr
    assert len(broken.stderr.strip().splitlines()) == 1


def test_progress_bar_only_when_stderr_is_a_terminal(github: FakeGitHub, tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    args = ["digest", "--week", "2026-W04", "--format", "json"]
    with spawn(
        args, tmp_path, github_env(github, tmp_path), stdout=subprocess.DEVNULL, stderr=follower
    ) as proc:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert proc.wait(timeout=120) == 0
    os.close(leader)
    shown = b"".join(chunks).decode()
    assert "collecting [" in shown
    done = re.findall(r"\] (\d+)/(\d+)", shown)
    assert done
    assert done[-1][0] == done[-1][1]  # the bar ends full (the PRs whose patches were fetched)
    piped = run(
        ["digest", "--week", "2026-W04", "--format", "json"],
        tmp_path,
        **github_env(github, tmp_path),
    )
    assert "collecting [" not in piped.stderr  # no bar: progress log lines instead


def _report_links(stdout: str) -> list[str]:
    return re.findall(r"https?://[^\s\"|>]+/reports/volcengine/verl/[^\s\"|>]+", stdout)


def test_the_public_sample_gets_plain_links_and_signed_access_signs_them(tmp_path: Path) -> None:
    args = ["digest", "--sample", "--format", "slack"]
    plain = run(args, tmp_path, GITHUB_TOKEN="ghp_cliTestToken0123456789abcdefgh")
    assert plain.returncode == 0, plain.stderr
    assert _report_links(plain.stdout)
    assert not any("?t=" in link for link in _report_links(plain.stdout))
    signed = run(args, tmp_path, REPORTS_ACCESS="signed", REPORTS_SIGNING_KEY="cli-key-1234")
    assert signed.returncode == 0, signed.stderr
    assert all("?t=" in link for link in _report_links(signed.stdout))


def test_signed_access_without_a_key_makes_one_and_keeps_it(tmp_path: Path) -> None:
    args = ["digest", "--sample", "--format", "slack", "--lang", "en"]
    first = run(args, tmp_path, REPORTS_ACCESS="signed")
    assert first.returncode == 0, first.stderr
    again = run(args, tmp_path, REPORTS_ACCESS="signed")
    assert again.returncode == 0, again.stderr
    with sqlite3.connect(tmp_path / "data" / "verl-week.db") as conn:
        ((key,),) = conn.execute("SELECT value FROM service_keys").fetchall()
    for result in (first, again):  # both runs signed with the one key the first one stored
        found = re.search(r"/reports/(\w+/\w+)/(\d{4}-W\d\d)\?t=([\w.-]+)", result.stdout)
        assert found, result.stdout[:500]
        repo, week, token = found.groups()
        assert token_is_valid(token, signing_key(key), repo, week, int(time.time()))
    assert key not in first.stderr + again.stderr
