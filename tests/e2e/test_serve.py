"""`verl-week serve` end to end: the start-up catch-up posts the `last` week to Slack and Feishu
once, slash commands and Feishu messages get their answers, an admin's `regenerate` edits the
posted cards in place, and a restart does not post again."""

from __future__ import annotations

import json

import pytest
import requests

from tests.e2e.conftest import REPO, SLACK_ADMIN, Fakes, last_window, shifted_pulls
from tests.harness import feishu_message, slack_command
from tests.processes import ServiceProcess
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e


def posted_once(fakes: Fakes) -> None:
    wait_for(lambda: len(fakes.slack.messages("C1")) == 1, what="Slack post")
    wait_for(lambda: len(fakes.feishu.posted("oc_group1")) == 1, what="Feishu post")


def test_serve_posts_the_week_answers_and_regenerates_in_place(
    fakes: Fakes, serve: ServiceProcess
) -> None:
    for raw in shifted_pulls():
        fakes.github.add_pr(raw)
    week = last_window().label
    serve.start()
    posted_once(fakes)
    [message] = fakes.slack.messages("C1")
    assert message["metadata"]["event_payload"]["week"] == week
    assert "22 PRs" in message["text"]
    assert fakes.slack.violations == []
    assert fakes.feishu.violations == []
    wait_for(lambda: serve.health()[1]["last_run"]["outcome"] == "ok", what="run recorded")
    status, health = serve.health()
    assert status == 200
    assert health["last_run"]["week"] == week
    assert health["scheduler"] == "alive"

    # slash commands answer from the stored digest
    risks = slack_command(serve.url, fakes.slack, "risks")
    assert risks.status_code == 200
    assert f"Risks · {REPO} · {week}" in risks.json()["text"]
    top = slack_command(serve.url, fakes.slack, "top 3 public").json()
    assert top["response_type"] == "in_channel"
    # Feishu messages get a reply card
    message_id = feishu_message(serve.url, "summary")
    wait_for(lambda: bool(fakes.feishu.replies(message_id)), what="Feishu reply")
    reply = json.dumps([m.card for m in fakes.feishu.replies(message_id)], ensure_ascii=False)
    assert week in reply

    # the report page the card links to
    page = requests.get(f"{serve.url}/reports/{REPO}/{week}", timeout=10)
    assert page.status_code == 200
    assert "4280" in page.text  # the week's top PR

    # regenerate edits both cards in place: chat.update and PATCH, no new post
    posts, creates = fakes.slack_posts(), fakes.feishu_creates()
    ack = slack_command(serve.url, fakes.slack, f"regenerate {week}", user=SLACK_ADMIN)
    assert ack.status_code == 200
    wait_for(lambda: fakes.slack_updates() == 1 and fakes.feishu_patches() == 1, what="edits")
    assert fakes.slack_posts() == posts
    assert fakes.feishu_creates() == creates
    assert len(fakes.slack.messages("C1")) == 1
    assert fakes.slack.messages("C1")[0]["edits"] == 1
    assert len(fakes.feishu.posted("oc_group1")[0].versions) == 1

    # a restart: the week is done, nothing is posted again
    assert serve.stop() in (0, -15)  # uvicorn re-raises SIGTERM after a clean shutdown
    assert "Application shutdown complete" in serve.log()
    serve.start()
    status, _ = serve.health()
    assert status == 200
    assert "catch-up: nothing missed" in serve.log()
    assert fakes.slack_posts() == posts
    assert fakes.feishu_creates() == creates
