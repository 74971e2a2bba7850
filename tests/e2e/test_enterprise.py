"""GitHub Enterprise: with the API on an Enterprise host (FakeGitHub answering web links on
https://ghe.corp.test) every link in every output comes from the API's own URLs or the
configured host, never github.com: the report in each format, the cards posted to Slack and to
a Feishu webhook, and the command answers, each from a real `verl-week` process."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import WEEKS
from tests.fakes.feishu import FakeFeishu, serve_feishu
from tests.fakes.github import FakeGitHub
from tests.fakes.slack import BOT_TOKEN, FakeSlack, running_fake_slack
from tests.processes import run_service

pytestmark = pytest.mark.e2e

REPO = "corp/trainer"
WEB = "https://ghe.corp.test"
TOKEN = "ghp_enterpriseTestToken0123456789abcd"
WEEK = "2026-W04"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub(REPO, token=TOKEN, web_url=WEB)
    # the recorded verl PRs, as if they had been made on the Enterprise host
    text = (WEEKS / f"{WEEK}.json").read_text(encoding="utf-8")
    fake.serve_week(json.loads(text.replace("github.com", "ghe.corp.test")))
    with fake.running():
        yield fake


@pytest.fixture
def platforms() -> Iterator[tuple[FakeSlack, FakeFeishu]]:
    with running_fake_slack() as slack, serve_feishu() as feishu:
        yield slack, feishu


def run(env: dict[str, str], folder: Path, *args: str) -> str:
    result = run_service(args, folder, env, timeout=180)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "github.com" not in result.stderr
    return result.stdout


def test_no_output_links_to_github_com(
    github: FakeGitHub, platforms: tuple[FakeSlack, FakeFeishu], tmp_path: Path
) -> None:
    slack, feishu = platforms
    env = {
        "DATABASE_URL": f"sqlite:///{tmp_path}/verl-week.db",
        "GITHUB_API_URL": github.url,
        "GITHUB_GRAPHQL_URL": github.graphql_url,
        "GITHUB_WEB_URL": WEB,
        "GITHUB_TOKEN": TOKEN,
        "DIGEST_REPOS": REPO,
        "DIGEST_LANGUAGE": "en",
        "PUBLIC_BASE_URL": "https://reports.corp.test",
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_API_URL": slack.api_url,
        "SLACK_CHANNELS": "C1",
        "FEISHU_WEBHOOK_URL": feishu.hook_url,
    }
    outputs = {
        fmt: run(env, tmp_path, "digest", "--week", WEEK, "--format", fmt)
        for fmt in ("markdown", "html", "json", "slack", "feishu")
    }
    number = min(github.prs)
    outputs["post"] = run(env, tmp_path, "post", "--week", WEEK)
    outputs["pr"] = run(env, tmp_path, "pr", str(number), "--week", WEEK)
    outputs["risks"] = run(env, tmp_path, "risks", "--week", WEEK)
    outputs["slack card"] = json.dumps(slack.messages("C1"), ensure_ascii=False)
    outputs["webhook card"] = json.dumps(feishu.hook_cards, ensure_ascii=False)
    assert len(slack.messages("C1")) == 1
    assert len(feishu.hook_cards) == 1
    for name, text in outputs.items():
        assert "github.com" not in text, name
    pr_link = f"{WEB}/{REPO}/pull/{number}"
    for name in ("markdown", "html", "slack", "feishu", "pr", "slack card"):
        assert pr_link in outputs[name], name
    # the week's merged PRs: GitHub's search of its first to last second, in the week's offset
    merged = "merged%3A2026-01-19T00%3A00%3A00%2B08%3A00..2026-01-25T23%3A59%3A59%2B08%3A00"
    assert f"{WEB}/{REPO}/pulls?q=is%3Apr+is%3Amerged+{merged}" in outputs["markdown"]
