"""The service wired from Settings exactly as `verl-week serve` wires it (wiring.build_pipeline,
wiring.build_app), on 127.0.0.1 against FakeGitHub (the real 2026-W04 verl week, with labels a
maintainer might set), FakeSlack and FakeFeishu; `verl-week post` runs as a real subprocess on
the same database. Two Slack channels and two Feishu chats in two languages."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import requests

from service import wiring
from service.core.weeks import parse_week
from service.pipeline.jobs import Pipeline, build_week
from service.settings import Settings
from tests.fakes import feishu_events
from tests.fakes.asgi import run_app
from tests.fakes.feishu import FakeFeishu
from tests.fakes.github import FakeGitHub
from tests.fakes.slack import FakeSlack
from tests.github.conftest import week_data
from tests.harness import (
    FEISHU_ADMIN,
    FEISHU_APP_SECRET,
    FEISHU_TOKEN,
    GITHUB_TOKEN,
    REPO,
    SECRETS,
    SLACK_ADMIN,
    SLACK_SECRET,
    TZ,
    Fakes,
    fake_settings,
    running_fakes,
    slack_command,
)
from tests.processes import run_cli
from tests.waiting import wait_for

__all__ = ["FEISHU_ADMIN", "FEISHU_APP_SECRET", "FEISHU_TOKEN", "SLACK_ADMIN", "SLACK_SECRET"]

WEEK = "2026-W04"
USER = "UPLAIN"
FEISHU_USER = "ou_reader"
BASE_URL = "http://reports.test"
# git history records no labels: these are the ones the fake GitHub serves
LABELS = {4280: ["breaking", "vllm"], 4885: ["npu"], 4938: ["NPU", "ckpt"]}
CJK = re.compile(r"[\u4e00-\u9fff]")


def chinese(text: str) -> bool:
    return CJK.search(text) is not None


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
        done = run_cli(args, self.folder, **{**self.env, **env})
        for secret in SECRETS:
            assert secret not in done.stdout + done.stderr
        return done

    def build_week(self) -> None:
        """Collect and store the week in-process (no posting), as `post` would first."""
        build_week(self.pipeline, REPO, parse_week(WEEK, TZ, datetime.now(UTC)))

    def slash(self, text: str, *, channel: str = "C_EN", user: str = USER) -> dict[str, Any]:
        """A signed /verl-week to POST /slack/events; the acknowledgement's message."""
        response = slack_command(self.url, self.slack, text, channel=channel, user=user)
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


def service_env(fakes: Fakes, folder: Path) -> dict[str, str]:
    """Two Slack channels and two Feishu chats in two languages, and the Feishu custom bot."""
    return fake_settings(
        fakes,
        folder,
        GITHUB_MAX_WAIT_SECONDS="2",
        DIGEST_LANGUAGE="zh",
        PUBLIC_BASE_URL=BASE_URL,
        SLACK_CHANNELS="C_ZH,C_EN:en",
        FEISHU_CHAT_IDS="oc_group1,oc_group2:en",
        FEISHU_WEBHOOK_URL=fakes.feishu.hook_url,
        FEISHU_WEBHOOK_LANGUAGE="en",
    )


def settings_of(env: dict[str, str]) -> Settings:
    values: dict[str, Any] = {k.lower(): v for k, v in env.items()}
    return Settings(_env_file=None, **values)


def labelled_github() -> FakeGitHub:
    fake = FakeGitHub(REPO, token=GITHUB_TOKEN)
    for raw in week_data(WEEK)["pulls"]:
        fake.add_pr(raw, labels=LABELS.get(raw["number"], []))
    return fake


@contextmanager
def wired_service(folder: Path, **overrides: str) -> Iterator[Wired]:
    with running_fakes(labelled_github()) as fakes:
        for channel in ("C_ZH", "C_EN", "C_SUB", "C_OTHER"):
            fakes.slack.add_channel(channel)
        fakes.feishu.chats.add("oc_group3")
        env = {**service_env(fakes, folder), **overrides}
        settings = settings_of(env)
        pipeline = wiring.build_pipeline(settings)
        app = wiring.build_app(settings, pipeline)
        with run_app(app) as url:
            yield Wired(
                url, env, settings, pipeline, fakes.github, fakes.slack, fakes.feishu, folder
            )
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
