"""Reports of private repositories (REPORTS_ACCESS), through the real web app built by wiring
from settings, against FakeGitHub (which says whether the repository is private), FakeSlack and
a Feishu custom-bot webhook: the links in the posted cards and in the answers are HMAC-signed
and expiring, they open the report in every format, and a page without a valid token (none,
expired, tampered, for another week) is the same 404 as an unknown repository."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests

from service import wiring
from service.core.weeks import parse_week
from service.pipeline.jobs import Pipeline, run_week
from service.render.links import report_token, signing_key
from service.settings import Settings
from tests.conftest import WEEKS
from tests.fakes.asgi import run_app
from tests.fakes.feishu import FakeFeishu, serve_feishu
from tests.fakes.github import FakeGitHub
from tests.fakes.signing import sign_slack
from tests.fakes.slack import BOT_TOKEN, FakeSlack, form_body, running_fake_slack

REPO = "volcengine/verl"
WEEK = "2026-W04"
BASE = "http://reports.test"
TOKEN = "ghp_privateReportsToken0123456789abcd"
KEY = "report-links-key-4b1f9c2e7a"
SLACK_SECRET = "private-reports-slack-secret"
LINK = re.compile(re.escape(BASE) + r"/reports/[^\s\"<>|)]+")


@dataclass
class Deployment:
    url: str
    pipeline: Pipeline
    github: FakeGitHub
    slack: FakeSlack
    feishu: FakeFeishu

    def post_week(self) -> None:
        pipeline = self.pipeline
        window = parse_week(WEEK, "Asia/Shanghai", datetime.now(UTC))
        result = run_week(pipeline, REPO, window, trigger="test")
        assert result.outcome in ("ok", "partial"), result.error

    def card_links(self) -> list[str]:
        text = json.dumps([self.slack.messages("C1"), self.feishu.hook_cards], ensure_ascii=False)
        return sorted(set(LINK.findall(text)))

    def get(self, link: str) -> requests.Response:
        parts = urlsplit(link)
        query = f"?{parts.query}" if parts.query else ""
        return requests.get(f"{self.url}{parts.path}{query}", timeout=30)

    def ask(self, text: str) -> dict[str, Any]:
        body = form_body(
            {
                "team_id": "T0001",
                "channel_id": "C1",
                "user_id": "UREADER",
                "command": "/verl-week",
                "text": text,
                "response_url": self.slack.response_url(),
                "trigger_id": "1.2.3",
            }
        )
        headers = sign_slack(body, SLACK_SECRET)
        response = requests.post(f"{self.url}/slack/events", data=body, headers=headers, timeout=30)
        assert response.status_code == 200
        return dict(response.json())


Deploy = Callable[..., Deployment]


@pytest.fixture
def deploy(make_settings: Callable[..., Settings], tmp_path: Path) -> Iterator[Deploy]:
    stack: list[Any] = []

    def start(*, private: bool, **overrides: Any) -> Deployment:
        github = FakeGitHub(REPO, token=TOKEN)
        github.private = private
        github.serve_week(json.loads((WEEKS / f"{WEEK}.json").read_text(encoding="utf-8")))
        github_ctx, slack_ctx, feishu_ctx = github.running(), running_fake_slack(), serve_feishu()
        stack.extend([github_ctx, slack_ctx, feishu_ctx])
        github_ctx.__enter__()
        slack = slack_ctx.__enter__()
        feishu = feishu_ctx.__enter__()
        values = {
            "github_api_url": github.url,
            "github_graphql_url": github.graphql_url,
            "github_token": TOKEN,
            "slack_bot_token": BOT_TOKEN,
            "slack_signing_secret": SLACK_SECRET,
            "slack_api_url": slack.api_url,
            "slack_channels": "C1",
            "feishu_webhook_url": feishu.hook_url,
            "public_base_url": BASE,
            "digest_language": "en",
            "database_url": f"sqlite:///{tmp_path}/site-{len(stack)}.db",
            **overrides,
        }
        settings = make_settings(**values)
        pipeline = wiring.build_pipeline(settings)
        app_ctx = run_app(wiring.build_app(settings, pipeline))
        stack.append(app_ctx)
        return Deployment(app_ctx.__enter__(), pipeline, github, slack, feishu)

    yield start
    for ctx in reversed(stack):
        ctx.__exit__(None, None, None)


def token_of(link: str) -> str:
    found = re.search(r"[?&]t=([^&]+)", link)
    assert found, link
    return found.group(1)


def test_a_private_repository_gets_signed_links_that_open_its_report(deploy: Deploy) -> None:
    site = deploy(private=True, reports_signing_key=KEY)
    site.post_week()
    links = site.card_links()
    assert links
    assert all(token_of(link) for link in links)
    assert LINK.findall(json.dumps(site.feishu.hook_cards))  # the webhook card's link too
    link = links[0]
    page = site.get(link)
    assert page.status_code == 200
    assert "<html" in page.text
    assert page.headers["cache-control"] == "private, no-store"
    plain, _, query = link.partition("?")
    for sibling in (f"{plain}.md?{query}", f"{plain}.json?{query}", f"{link}&lang=en"):
        assert site.get(sibling).status_code == 200, sibling
    answer = site.ask(f"risks {WEEK}")
    answered = LINK.findall(json.dumps(answer))
    assert answered
    assert site.get(answered[0]).status_code == 200


def test_a_private_report_without_a_valid_token_is_a_404(deploy: Deploy) -> None:
    site = deploy(private=True, reports_signing_key=KEY)
    site.post_week()
    link = site.card_links()[0]
    plain = link.partition("?")[0]
    token = token_of(link)
    expires, _, signature = token.partition(".")
    key = signing_key(KEY)
    past = int(time.time()) - 60
    forged_signature = ("A" if signature[0] != "A" else "B") + signature[1:]
    attempts = {
        "no token": plain,
        "empty token": f"{plain}?t=",
        "expired": f"{plain}?t={report_token(key, REPO, WEEK, past)}",
        "tampered signature": f"{plain}?t={expires}.{forged_signature}",
        "extended expiry": f"{plain}?t={int(expires) + 86_400}.{signature}",
        "another week": f"{plain.replace(WEEK, '2026-W03')}?t={token}",
        "another key": f"{plain}?t={report_token(signing_key('guess'), REPO, WEEK, int(expires))}",
        "markdown without": f"{plain}.md",
        "json without": f"{plain}.json?lang=en",
    }
    unknown = site.get(f"{BASE}/reports/nobody/nothing/{WEEK}")
    assert unknown.status_code == 404
    for name, attempt in attempts.items():
        response = site.get(attempt)
        assert response.status_code == 404, name
        assert response.text == unknown.text, name  # nothing tells the repository exists
        assert "verl" not in response.text, name
    index = site.get(f"{BASE}/reports")
    assert index.status_code == 200
    assert REPO not in index.text


def test_a_public_repository_gets_plain_links(deploy: Deploy) -> None:
    site = deploy(private=False, reports_signing_key=KEY)
    site.post_week()
    links = site.card_links()
    assert links
    assert not any("?t=" in link for link in links)
    assert site.get(links[0]).status_code == 200
    assert REPO in site.get(f"{BASE}/reports").text


def test_reports_access_overrides_what_github_says(deploy: Deploy) -> None:
    signed = deploy(private=False, reports_access="signed", reports_signing_key=KEY)
    signed.post_week()
    link = signed.card_links()[0]
    assert token_of(link)
    assert signed.get(link).status_code == 200
    assert signed.get(link.partition("?")[0]).status_code == 404
    public = deploy(private=True, reports_access="public")
    public.post_week()
    open_link = public.card_links()[0]
    assert "?t=" not in open_link
    assert public.get(open_link).status_code == 200
