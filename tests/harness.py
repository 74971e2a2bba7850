"""The whole service against its fakes, shared by every suite that runs it: FakeGitHub, FakeSlack
and FakeFeishu on 127.0.0.1 (`Fakes`), the settings that point the service at them
(`fake_settings`), and the signed requests Slack and Feishu send (`slack_command`,
`feishu_message`). A suite runs the service in-process (tests/channels: `wiring.build_app` under
uvicorn in a thread) or as processes (tests/e2e, tests/faults, tests/connect:
`tests.processes.ServiceProcess`)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

from tests.fakes.feishu import FakeFeishu, serve_feishu
from tests.fakes.github import FakeGitHub
from tests.fakes.signing import sign_slack
from tests.fakes.slack import BOT_TOKEN, FakeSlack, form_body, running_fake_slack

REPO = "volcengine/verl"
TZ = "Asia/Shanghai"
GITHUB_TOKEN = "ghp_harnessTestToken0123456789ab"
SLACK_SECRET = "harness-slack-signing-3f9a1c"
FEISHU_APP_SECRET = "harness-feishu-app-secret-7b2e"
FEISHU_TOKEN = "harness-feishu-verify-5d1c"
SLACK_ADMIN = "UADMIN"
FEISHU_ADMIN = "ou_admin"
SECRETS = (GITHUB_TOKEN, BOT_TOKEN, SLACK_SECRET, FEISHU_APP_SECRET, FEISHU_TOKEN)
REQUEST_SECONDS = 30


@dataclass
class Fakes:
    """The three fake platforms one service talks to."""

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


@contextmanager
def running_fakes(github: FakeGitHub | None = None) -> Iterator[Fakes]:
    """`github` (an empty FakeGitHub of REPO by default), FakeSlack and FakeFeishu, serving."""
    fake_github = github or FakeGitHub(REPO, token=GITHUB_TOKEN)
    with (
        fake_github.running(),
        running_fake_slack() as slack,
        serve_feishu(app_secret=FEISHU_APP_SECRET) as feishu,
    ):
        yield Fakes(fake_github, slack, feishu)


def fake_settings(fakes: Fakes, folder: Path, **extra: str) -> dict[str, str]:
    """The settings (environment variable names) of a service on the fakes, its SQLite database
    in `folder`, both chat apps able to answer commands; `extra` adds or overrides."""
    return {
        "GITHUB_API_URL": fakes.github.url,
        "GITHUB_GRAPHQL_URL": fakes.github.graphql_url,
        "GITHUB_TOKEN": GITHUB_TOKEN,
        "SLACK_API_URL": fakes.slack.api_url,
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SLACK_SECRET,
        "FEISHU_BASE_URL": fakes.feishu.url,
        "FEISHU_APP_ID": fakes.feishu.app_id,
        "FEISHU_APP_SECRET": FEISHU_APP_SECRET,
        "FEISHU_VERIFICATION_TOKEN": FEISHU_TOKEN,
        "DATABASE_URL": f"sqlite:///{folder}/verl-week.db",
        "DIGEST_REPOS": REPO,
        "DIGEST_TIMEZONE": TZ,
        "ADMIN_USERS": f"{SLACK_ADMIN},{FEISHU_ADMIN}",
        "PUBLIC_BASE_URL": "http://reports.test",
        **extra,
    }


def slack_command(
    base_url: str, slack: FakeSlack, text: str, *, channel: str = "C1", user: str = "UPLAIN"
) -> requests.Response:
    """A signed `/verl-week TEXT` to POST /slack/events, as Slack sends a slash command."""
    body = form_body(
        {
            "team_id": "T0001",
            "channel_id": channel,
            "user_id": user,
            "command": "/verl-week",
            "text": text,
            "api_app_id": "A0001",
            "response_url": slack.response_url(),
            "trigger_id": "1.2.3",
        }
    )
    headers = sign_slack(body, SLACK_SECRET)
    return requests.post(
        f"{base_url}/slack/events", data=body, headers=headers, timeout=REQUEST_SECONDS
    )


def feishu_message(
    base_url: str, text: str, *, sender: str = "ou_reader", chat_id: str = "oc_group1"
) -> str:
    """A p2p text message event to POST /feishu/events; the message id a reply points to."""
    message_id = f"om_harness_{time.monotonic_ns()}"
    event: dict[str, Any] = {
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
                "chat_id": chat_id,
                "chat_type": "p2p",
                "message_type": "text",
                "content": json.dumps({"text": text}),
            },
        },
    }
    response = requests.post(f"{base_url}/feishu/events", json=event, timeout=REQUEST_SECONDS)
    assert response.status_code == 200, response.text
    return message_id
