"""Slack fixtures: FakeSlack on loopback, a real store of real verl weeks, the real pipeline, the
bolt app mounted in the real web app (uvicorn on 127.0.0.1)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests

from service.commands.answer import EngineContext
from service.core.models import CollectedPeriod, Period
from service.core.profile import load_profile
from service.pipeline.jobs import Pipeline, RunResult, regenerate
from service.render.links import report_url
from service.runtime.web import build_web_app
from service.slack.app import build_slack_app, build_slack_endpoint
from service.slack.sender import SlackSender, build_web_client
from service.store.repository import Store
from tests.commands.builders import WEEK_LABELS, real_digest
from tests.conftest import NOW, WEEKS, load_week
from tests.fakes.asgi import run_app
from tests.fakes.signing import sign_slack
from tests.fakes.slack import BOT_TOKEN, FakeSlack, form_body, running_fake_slack

SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
REPO = "volcengine/verl"
ADMIN = "UADMIN"
ADMIN2 = "UADMIN2"
USER = "UPLAIN"
BASE_URL = "http://reports.test"


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with running_fake_slack() as fake:
        yield fake


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path}/slack.db"


@pytest.fixture
def store(db_url: str) -> Store:
    opened = Store.open(db_url)
    for label in WEEK_LABELS:
        opened.save_digest(real_digest(label))
    return opened


def collect_recorded(repo: str, window: Period) -> CollectedPeriod:
    """The collector for tests: the recorded verl week of that label (no network)."""
    path = WEEKS / f"{window.label}.json"
    if path.exists():
        return load_week(window.label)
    return CollectedPeriod(repo=repo, window=window, prs=[], source="sample")


def make_sender(slack: FakeSlack, **client_args: Any) -> SlackSender:
    client = build_web_client(BOT_TOKEN, slack.api_url, **client_args)
    return SlackSender(client, public_base_url=BASE_URL, language="en")


@pytest.fixture
def sender(slack: FakeSlack) -> SlackSender:
    return make_sender(slack)


@pytest.fixture
def pipeline(store: Store, sender: SlackSender) -> Pipeline:
    return Pipeline(
        store=store,
        collect=collect_recorded,
        profile_for=load_profile,
        repos=[REPO],
        language="en",
        timezone="Asia/Shanghai",
        public_base_url=BASE_URL,
        clock=lambda: NOW,
        senders={"slack": sender},
        destinations_for=lambda *_: ["slack:C1"],
    )


@dataclass
class Rebuilds:
    """The regenerate callable given to the app: the real jobs.regenerate, gated by an Event
    the test releases, with a log of when it ran."""

    pipeline: Pipeline
    gate: threading.Event = field(default_factory=threading.Event)
    entered: threading.Event = field(default_factory=threading.Event)
    calls: list[tuple[str, str, str]] = field(default_factory=list)
    finished: list[RunResult] = field(default_factory=list)

    def __call__(self, repo: str, week: Period, requested_by: str) -> RunResult:
        self.calls.append((repo, week.label, requested_by))
        self.entered.set()
        assert self.gate.wait(30), "the test never released the rebuild"
        result = regenerate(self.pipeline, repo, week, requested_by=requested_by)
        self.finished.append(result)
        return result


@pytest.fixture
def rebuilds(pipeline: Pipeline) -> Rebuilds:
    return Rebuilds(pipeline)


@pytest.fixture
def engine(store: Store) -> EngineContext:
    return EngineContext(
        reader=store,
        repos=[REPO],
        language="en",
        timezone="Asia/Shanghai",
        clock=lambda: NOW,
        admins=frozenset({ADMIN, ADMIN2}),
        subscriptions=store,
        report_url=lambda repo, week: report_url(BASE_URL, repo, week),
    )


@pytest.fixture
def web(slack: FakeSlack, store: Store, engine: EngineContext, rebuilds: Rebuilds) -> Iterator[str]:
    app = build_slack_app(
        client=build_web_client(BOT_TOKEN, slack.api_url),
        signing_secret=SECRET,
        engine=engine,
        regenerate=rebuilds,
        language="en",
    )
    endpoints = {"/slack/events": build_slack_endpoint(app)}
    web_app = build_web_app(store=store, endpoints=endpoints, language="en")
    with run_app(web_app) as url:
        yield url


def command_fields(
    slack: FakeSlack,
    text: str,
    *,
    user: str = USER,
    channel: str = "C1",
    response_url: str | None = None,
) -> dict[str, str]:
    return {
        "token": "deprecated",
        "team_id": "T0001",
        "team_domain": "example",
        "channel_id": channel,
        "channel_name": "general",
        "user_id": user,
        "user_name": "someone",
        "command": "/verl-week",
        "text": text,
        "api_app_id": "A0001",
        "is_enterprise_install": "false",
        "response_url": response_url or slack.response_url(),
        "trigger_id": "13345224609.738474920.8088930838d88f008e0",
    }


def post_signed(
    web: str,
    body: bytes,
    *,
    secret: str = SECRET,
    timestamp: int | None = None,
    headers: dict[str, str] | None = None,
) -> requests.Response:
    sent = sign_slack(body, secret, timestamp)
    sent.update(headers or {})
    return requests.post(f"{web}/slack/events", data=body, headers=sent, timeout=10)


def send_command(web: str, slack: FakeSlack, text: str, **kwargs: Any) -> requests.Response:
    return post_signed(web, form_body(command_fields(slack, text, **kwargs)))
