"""`pr N` for PRs no stored digest holds spends GitHub requests: a chat user gets at most
PR_LOOKUPS_PER_HOUR of them and then a polite answer, through the real web app built by wiring
from settings, against FakeGitHub serving a real verl week. Other users and stored PRs are not
held back."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests

from service import wiring
from service.settings import Settings
from tests.conftest import WEEKS
from tests.fakes.asgi import run_app
from tests.fakes.github import FakeGitHub
from tests.fakes.signing import sign_slack
from tests.fakes.slack import BOT_TOKEN, FakeSlack, form_body, running_fake_slack
from tests.waiting import wait_for

SECRET = "lookup-signing-secret-3f9a"
TOKEN = "ghp_lookupTestToken0123456789abcdef"
LIMIT = 2


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub("volcengine/verl", token=TOKEN)
    fake.serve_week(json.loads((WEEKS / "2026-W04.json").read_text(encoding="utf-8")))
    with fake.running():
        yield fake


@pytest.fixture
def app_url(
    github: FakeGitHub, make_settings: Callable[..., Settings]
) -> Iterator[tuple[str, FakeSlack]]:
    with running_fake_slack() as slack:
        settings = make_settings(
            github_api_url=github.url,
            github_graphql_url=github.graphql_url,
            github_token=TOKEN,
            slack_bot_token=BOT_TOKEN,
            slack_signing_secret=SECRET,
            slack_api_url=slack.api_url,
            digest_language="en",
            pr_lookups_per_hour=LIMIT,
        )
        pipeline = wiring.build_pipeline(settings)
        with run_app(wiring.build_app(settings, pipeline)) as url:
            yield url, slack


def ask(url: str, slack: FakeSlack, text: str, user: str) -> dict[str, Any]:
    """The answer: the acknowledgement, or (a PR asked of GitHub) what follows it through
    response_url once the lookup ended."""
    hook = slack.response_url()
    body = form_body(
        {
            "team_id": "T0001",
            "channel_id": "C1",
            "user_id": user,
            "command": "/verl-week",
            "text": text,
            "response_url": hook,
            "trigger_id": "1.2.3",
        }
    )
    response = requests.post(
        f"{url}/slack/events", data=body, headers=sign_slack(body, SECRET), timeout=30
    )
    assert response.status_code == 200
    if "asking GitHub" not in response.json()["text"]:
        return dict(response.json())
    wait_for(lambda: bool(slack.responses_to(hook)))
    return dict(slack.responses_to(hook)[0])


def test_live_pr_lookups_are_limited_per_user(
    app_url: tuple[str, FakeSlack], github: FakeGitHub
) -> None:
    url, slack = app_url
    numbers = sorted(github.prs)[: LIMIT + 2]
    for number in numbers[:LIMIT]:
        answer = ask(url, slack, f"pr {number}", "UGREEDY")
        assert f"#{number}" in answer["text"]
    spent = len(github.api.requests)
    refused = ask(url, slack, f"pr {numbers[LIMIT]}", "UGREEDY")
    assert refused["text"] == (
        f"You have looked up {LIMIT} PRs that are not in a digest within the hour, each one a "
        "GitHub request; try again in 60 min, or ask about a PR of a stored week."
    )
    assert len(github.api.requests) == spent  # nothing asked of GitHub
    other = ask(url, slack, f"pr {numbers[LIMIT]}", "UOTHER")
    assert f"#{numbers[LIMIT]}" in other["text"]
