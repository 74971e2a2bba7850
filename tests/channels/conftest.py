"""The service wired from Settings exactly as `verl-week serve` wires it (wiring.build_pipeline,
wiring.build_app), on 127.0.0.1 against FakeGitHub (the real 2026-W04 verl week, with labels a
maintainer might set), FakeSlack and FakeFeishu; `verl-week post` runs as a real subprocess on
the same database. Two Slack channels and two Feishu chats in two languages."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import requests

from service import wiring
from service.core.weeks import parse_week
from service.jobs import Pipeline, build_week
from service.settings import Settings
from tests.fakes import feishu_events
from tests.fakes.asgi import run_app
from tests.fakes.feishu import FakeFeishu, serve_feishu
from tests.fakes.github import FakeGitHub
from tests.fakes.signing import sign_slack
from tests.fakes.slack import BOT_TOKEN, FakeSlack, form_body, running_fake_slack
from tests.github.conftest import TOKEN, week_data

ROOT = Path(__file__).resolve().parents[2]
REPO = "volcengine/verl"
WEEK = "2026-W04"
TZ = "Asia/Shanghai"
SLACK_SECRET = "chan-slack-signing-3f9a1c"
FEISHU_APP_SECRET = "chan-feishu-app-secret-7b2e"
FEISHU_TOKEN = "chan-feishu-verify-5d1c"
SLACK_ADMIN = "UADMIN"
FEISHU_ADMIN = "ou_admin"
USER = "UPLAIN"
FEISHU_USER = "ou_reader"
BASE_URL = "http://reports.test"
# git history records no labels: these are the ones the fake GitHub serves
LABELS = {4280: ["breaking", "vllm"], 4885: ["npu"], 4938: ["NPU", "ckpt"]}
WAIT_SECONDS = 15.0
CJK = re.compile(r"[\u4e00-\u9fff]")


def chinese(text: str) -> bool:
    return CJK.search(text) is not None


def wait_for(condition: Callable[[], bool], seconds: float = WAIT_SECONDS) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.02)


@dataclass
class Wired:
    """The running service, its settings (as environment variables too) and the fakes."""

    url: str
    env: dict[str, str]
    settings: Settings
    pipeline: Pipeline
    github: FakeGitHub
    slack: FakeSlack
    feishu: FakeFeishu
    folder: Path

    def cli(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        """`python -m service …` with the service's settings in its environment."""
        base = {k: v for k, v in os.environ.items() if not k.upper().endswith("_PROXY")}
        done = subprocess.run(
            [sys.executable, "-m", "service", *args],
            cwd=self.folder,
            env={**base, "PYTHONPATH": str(ROOT), **self.env, **env},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        for secret in (TOKEN, BOT_TOKEN, SLACK_SECRET, FEISHU_APP_SECRET, FEISHU_TOKEN):
            assert secret not in done.stdout + done.stderr
        return done

    def build_week(self) -> None:
        """Collect and store the week in-process (no posting), as `post` would first."""
        build_week(self.pipeline, REPO, parse_week(WEEK, TZ, datetime.now(UTC)))

    def slash(self, text: str, *, channel: str = "C_EN", user: str = USER) -> dict[str, Any]:
        """A signed /verl-week to POST /slack/events; the acknowledgement's message."""
        body = form_body(
            {
                "team_id": "T0001",
                "channel_id": channel,
                "user_id": user,
                "command": "/verl-week",
                "text": text,
                "api_app_id": "A0001",
                "response_url": self.slack.response_url(),
                "trigger_id": "1.2.3",
            }
        )
        response = requests.post(
            f"{self.url}/slack/events",
            data=body,
            headers=sign_slack(body, SLACK_SECRET),
            timeout=15,
        )
        assert response.status_code == 200, response.text
        answer: dict[str, Any] = response.json()
        return answer

    def feishu_say(
        self, text: str, *, chat_id: str = "oc_group1", sender: str = FEISHU_USER
    ) -> dict[str, Any]:
        """A message to the bot in a group; the card it replies with."""
        event = feishu_events.message_event(
            f"@_user_1 {text}", token=FEISHU_TOKEN, sender=sender, chat_id=chat_id
        )
        message_id = event["event"]["message"]["message_id"]
        response = requests.post(f"{self.url}/feishu/events", json=event, timeout=15)
        assert response.status_code == 200, response.text
        wait_for(lambda: bool(self.feishu.replies(message_id)))
        return self.feishu.replies(message_id)[0].card


def service_env(
    github: FakeGitHub, slack: FakeSlack, feishu: FakeFeishu, folder: Path
) -> dict[str, str]:
    return {
        "GITHUB_API_URL": github.url,
        "GITHUB_GRAPHQL_URL": github.graphql_url,
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_MAX_WAIT_SECONDS": "2",
        "DATABASE_URL": f"sqlite:///{folder}/verl-week.db",
        "DIGEST_REPOS": REPO,
        "DIGEST_LANGUAGE": "zh",
        "DIGEST_TIMEZONE": TZ,
        "PUBLIC_BASE_URL": BASE_URL,
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SLACK_SECRET,
        "SLACK_API_URL": slack.api_url,
        "SLACK_CHANNELS": "C_ZH,C_EN:en",
        "FEISHU_APP_ID": feishu.app_id,
        "FEISHU_APP_SECRET": FEISHU_APP_SECRET,
        "FEISHU_BASE_URL": feishu.url,
        "FEISHU_VERIFICATION_TOKEN": FEISHU_TOKEN,
        "FEISHU_CHAT_IDS": "oc_group1,oc_group2:en",
        "FEISHU_WEBHOOK_URL": feishu.hook_url,
        "FEISHU_WEBHOOK_LANGUAGE": "en",
        "ADMIN_USERS": f"{SLACK_ADMIN},{FEISHU_ADMIN}",
    }


def settings_of(env: dict[str, str]) -> Settings:
    return Settings(_env_file=None, **{k.lower(): v for k, v in env.items()})  # type: ignore[call-arg]


def labelled_github() -> FakeGitHub:
    fake = FakeGitHub(REPO, token=TOKEN)
    for raw in week_data(WEEK)["pulls"]:
        fake.add_pr(raw, labels=LABELS.get(raw["number"], []))
    return fake


@contextmanager
def wired_service(folder: Path, **overrides: str) -> Iterator[Wired]:
    github = labelled_github()
    with (
        github.running(),
        running_fake_slack() as slack,
        serve_feishu(app_secret=FEISHU_APP_SECRET) as feishu,
    ):
        for channel in ("C_ZH", "C_EN", "C_SUB", "C_OTHER"):
            slack.add_channel(channel)
        feishu.chats.add("oc_group3")
        env = {**service_env(github, slack, feishu, folder), **overrides}
        settings = settings_of(env)
        pipeline = wiring.build_pipeline(settings)
        app = wiring.build_app(settings, pipeline)
        with run_app(app) as url:
            yield Wired(url, env, settings, pipeline, github, slack, feishu, folder)
        pipeline.store.engine.dispose()


@pytest.fixture
def wired(tmp_path: Path) -> Iterator[Wired]:
    with wired_service(tmp_path) as service:
        yield service


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Wired]:
    """One service per module with the week already built (for read-only command tests)."""
    with wired_service(tmp_path_factory.mktemp("built")) as service:
        service.build_week()
        yield service


def card_text(payload: Any) -> str:
    """Every string of a message or card, for looking things up in it."""
    return json.dumps(payload, ensure_ascii=False)


def pr_numbers(text: str) -> list[int]:
    """`#4280`-style PR numbers in the order they appear (each once)."""
    return list(dict.fromkeys(int(n) for n in re.findall(r"#(\d{4})\b", text)))
