"""`verl-week serve` as a real subprocess against FakeGitHub, FakeSlack and FakeFeishu on
127.0.0.1. The fake GitHub serves recorded verl weeks shifted into the `last` week relative to
the real current date, so the start-up catch-up (empty database: `last` is owed) builds and
posts it."""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import requests

from service.core.models import WeekWindow
from service.core.weeks import parse_week
from tests.conftest import WEEKS
from tests.fakes.asgi import free_port
from tests.fakes.feishu import FakeFeishu, serve_feishu
from tests.fakes.github import FakeGitHub
from tests.fakes.signing import sign_slack
from tests.fakes.slack import BOT_TOKEN, FakeSlack, form_body, running_fake_slack

REPO = "volcengine/verl"
TZ = "Asia/Shanghai"
GITHUB_TOKEN = "ghp_e2eTestToken0123456789abcdef"
SLACK_SECRET = "e2e-slack-signing-secret-42"
FEISHU_SECRET = "e2e-feishu-app-secret-17"
FEISHU_TOKEN = "e2e-feishu-verification-9"
SLACK_ADMIN = "UADMIN"
FEISHU_ADMIN = "ou_admin"
SCHEDULE = "0 0 * * MON"  # the `last` week's own tick (Monday 00:00) has always passed
START_SECONDS = 60.0
WAIT_SECONDS = 90.0
PORT_ATTEMPTS = 3
ROOT = Path(__file__).resolve().parents[2]


def wait_for(condition: Callable[[], bool], seconds: float = WAIT_SECONDS, what: str = "") -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met in time: {what}")
        time.sleep(0.05)


def last_window() -> WeekWindow:
    return parse_week("last", TZ, datetime.now(UTC))


def _stamp(value: str, delta: timedelta) -> str:
    moment = datetime.fromisoformat(value.replace("Z", "+00:00")) + delta
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def shifted_pulls(labels: tuple[str, ...] = ("2026-W04",)) -> list[dict[str, Any]]:
    """The PRs of recorded weeks, merge and creation times moved into the `last` week."""
    target = last_window()
    pulls = []
    for label in labels:
        data = json.loads((WEEKS / f"{label}.json").read_text(encoding="utf-8"))
        source = parse_week(label, data.get("timezone", TZ), datetime.now(UTC))
        delta = target.start - source.start
        for raw in data["pulls"]:
            pr = copy.deepcopy(raw)
            pr["merged_at"] = _stamp(raw["merged_at"], delta)
            pr["created_at"] = _stamp(raw["created_at"], delta)
            pulls.append(pr)
    return pulls


@dataclass
class Fakes:
    github: FakeGitHub
    slack: FakeSlack
    feishu: FakeFeishu

    def slack_posts(self) -> int:
        return len(self.slack.calls("chat.postMessage"))

    def slack_updates(self) -> int:
        return len(self.slack.calls("chat.update"))

    def feishu_creates(self) -> int:
        return len(self.feishu.api.calls("POST", "/open-apis/im/v1/messages"))

    def feishu_patches(self) -> int:
        return sum(1 for r in self.feishu.api.requests if r.method == "PATCH")


@pytest.fixture
def fakes() -> Iterator[Fakes]:
    github = FakeGitHub(REPO, token=GITHUB_TOKEN)
    with (
        github.running(),
        running_fake_slack() as slack,
        serve_feishu(app_secret=FEISHU_SECRET) as feishu,
    ):
        yield Fakes(github, slack, feishu)


@dataclass
class Serve:
    """One `python -m service serve` process and its captured output."""

    env: dict[str, str]
    folder: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    runs: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def stderr_path(self) -> Path:
        return self.folder / f"serve-{self.runs}.stderr"

    def start(self, *, wait: bool = True) -> Serve:
        for attempt in range(PORT_ATTEMPTS):
            self._launch()
            if not wait:
                return self
            try:
                wait_for(self.healthy, START_SECONDS, f"serve healthy; log:\n{self.log()[-3000:]}")
            except AssertionError:
                if attempt + 1 < PORT_ATTEMPTS and self._port_was_taken():
                    self.port = free_port()  # another xdist worker listens there: move on
                    continue
                raise
            return self
        return self

    def _launch(self) -> None:
        self.runs += 1
        command = [sys.executable, "-m", "service", "serve", "--host", "127.0.0.1",
                   "--port", str(self.port)]  # fmt: skip
        with self.stderr_path.open("wb") as err:
            self.proc = subprocess.Popen(
                command, cwd=self.folder, env=self.env, stdout=err, stderr=subprocess.STDOUT
            )

    def _port_was_taken(self) -> bool:
        exited = self.proc is not None and self.proc.poll() is not None
        return exited and "address already in use" in self.stderr_path.read_text(errors="replace")

    def healthy(self) -> bool:
        if self.proc is not None and self.proc.poll() is not None:
            raise AssertionError(f"serve exited {self.proc.returncode}:\n{self.log()[-3000:]}")
        try:
            return requests.get(f"{self.url}/healthz", timeout=2).status_code == 200
        except requests.ConnectionError:
            return False

    def health(self) -> tuple[int, dict[str, Any]]:
        response = requests.get(f"{self.url}/healthz", timeout=30)
        return response.status_code, response.json()

    def log(self) -> str:
        text = ""
        for n in range(1, self.runs + 1):
            path = self.folder / f"serve-{n}.stderr"
            if path.exists():
                text += path.read_text(encoding="utf-8", errors="replace")
        return text

    def kill(self) -> None:
        """SIGKILL: no shutdown hook, no final write."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=30)

    def stop(self) -> int | None:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()
            return None

    def wait_exit(self, seconds: float = START_SECONDS) -> int:
        assert self.proc is not None
        return self.proc.wait(timeout=seconds)

    # --- platform requests ---------------------------------------------------------------

    def slash(self, fakes: Fakes, text: str, *, user: str = "UPLAIN") -> requests.Response:
        body = form_body(
            {
                "team_id": "T0001",
                "channel_id": "C1",
                "user_id": user,
                "command": "/verl-week",
                "text": text,
                "api_app_id": "A0001",
                "response_url": fakes.slack.response_url(),
                "trigger_id": "1.2.3",
            }
        )
        headers = sign_slack(body, SLACK_SECRET)
        return requests.post(f"{self.url}/slack/events", data=body, headers=headers, timeout=30)

    def feishu_message(self, text: str, *, sender: str = "ou_reader", n: int = 0) -> str:
        """A p2p text message event; returns the message id the reply will point to."""
        message_id = f"om_e2e_{n}_{time.monotonic_ns()}"
        event = {
            "schema": "2.0",
            "header": {
                "event_id": f"ev-{message_id}",
                "event_type": "im.message.receive_v1",
                "token": FEISHU_TOKEN,
                "app_id": "cli_test",
                "tenant_key": "t",
            },
            "event": {
                "sender": {"sender_id": {"open_id": sender}, "sender_type": "user"},
                "message": {
                    "message_id": message_id,
                    "chat_id": "oc_group1",
                    "chat_type": "p2p",
                    "message_type": "text",
                    "content": json.dumps({"text": text}),
                },
            },
        }
        response = requests.post(f"{self.url}/feishu/events", json=event, timeout=30)
        assert response.status_code == 200, response.text
        return message_id


def serve_env(fakes: Fakes, folder: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().endswith("_PROXY")}
    env.update(
        {
            "PYTHONPATH": str(ROOT),
            "GITHUB_API_URL": fakes.github.url,
            "GITHUB_GRAPHQL_URL": fakes.github.graphql_url,
            "GITHUB_TOKEN": GITHUB_TOKEN,
            "GITHUB_MAX_WAIT_SECONDS": "30",
            "SLACK_API_URL": fakes.slack.api_url,
            "SLACK_BOT_TOKEN": BOT_TOKEN,
            "SLACK_SIGNING_SECRET": SLACK_SECRET,
            "SLACK_CHANNELS": "C1",
            "FEISHU_BASE_URL": fakes.feishu.url,
            "FEISHU_APP_ID": fakes.feishu.app_id,
            "FEISHU_APP_SECRET": FEISHU_SECRET,
            "FEISHU_CHAT_IDS": "oc_group1",
            "FEISHU_VERIFICATION_TOKEN": FEISHU_TOKEN,
            "DATABASE_URL": f"sqlite:///{folder}/verl-week.db",
            "DIGEST_SCHEDULE": SCHEDULE,
            "DIGEST_TIMEZONE": TZ,
            "DIGEST_LANGUAGE": "en",
            "DIGEST_REPOS": REPO,
            "ADMIN_USERS": f"{SLACK_ADMIN},{FEISHU_ADMIN}",
            "PUBLIC_BASE_URL": "http://reports.test",
            "LOG_FORMAT": "json",
        }
    )
    env.update(extra)
    return env


@pytest.fixture
def serve(fakes: Fakes, tmp_path: Path) -> Iterator[Serve]:
    process = Serve(serve_env(fakes, tmp_path), tmp_path)
    yield process
    process.stop()
