"""Destinations and cadences as data, end to end on the verl family's recorded 2026-W34: with
DIGEST_REPOS naming the primary repository only, a Slack channel subscribes by signed slash
command to the family (`subscribe verl-project`) and to its monthly digest, a Feishu group by
signed event to the monthly one; `subscriptions` lists scope, cadence, filter and language; then
the one scheduler's jobs, run as APScheduler runs them against the fakes, post the family's week
and month there and only there, once each."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import requests

from service import wiring
from service.pipeline.jobs import Pipeline
from service.runtime.cadences import MONTHLY_JOB_ID
from service.runtime.scheduler import JOB_ID, _run_registered
from service.settings import Settings
from tests.fakes import feishu_events
from tests.fakes.asgi import run_app
from tests.family.conftest import family_env, family_github, settings_of
from tests.harness import (
    FEISHU_ADMIN,
    FEISHU_TOKEN,
    SLACK_ADMIN,
    Fakes,
    running_fakes,
    slack_command,
)
from tests.waiting import wait_for

# Tuesday of 2026-W35 in Shanghai: the last complete week is 2026-W34
IN_W35 = datetime(2026, 8, 25, 4, 0, tzinfo=UTC)
# 2026-09-02 in Shanghai: the last complete month is 2026-08 (W34 is in it)
IN_SEPTEMBER = datetime(2026, 9, 2, 4, 0, tzinfo=UTC)
MONTH = "2026-08"


@contextmanager
def primary_only(folder: Path) -> Iterator[tuple[Fakes, Settings, Pipeline]]:
    """The family's fakes, DIGEST_REPOS naming verl-project/verl alone (the family is known by
    DIGEST_GROUPS only), C_ZH and oc_group1 configured weekly."""
    with running_fakes(family_github()) as fakes:
        env = {
            **family_env(fakes, folder),
            "DIGEST_REPOS": "verl-project/verl",
            "SLACK_CHANNELS": "C_ZH",
            "FEISHU_CHAT_IDS": "oc_group1",
        }
        settings = settings_of(env)
        pipeline = wiring.build_pipeline(settings)
        for channel in ("C_ZH", "C_SUB"):
            fakes.slack.add_channel(channel)
        try:
            yield fakes, settings, pipeline
        finally:
            pipeline.store.engine.dispose()


def _slack(url: str, fakes: Fakes, text: str, user: str = SLACK_ADMIN) -> str:
    response = slack_command(url, fakes.slack, text, channel="C_SUB", user=user)
    assert response.status_code == 200, response.text
    return str(response.json()["text"])


def _feishu(url: str, fakes: Fakes, text: str) -> str:
    event = feishu_events.message_event(
        f"@_user_1 {text}", token=FEISHU_TOKEN, sender=FEISHU_ADMIN, chat_id="oc_group1"
    )
    message_id = event["event"]["message"]["message_id"]
    response = requests.post(f"{url}/feishu/events", json=event, timeout=15)
    assert response.status_code == 200, response.text
    wait_for(lambda: bool(fakes.feishu.replies(message_id)))
    return json.dumps(fakes.feishu.replies(message_id)[0].card, ensure_ascii=False)


def _subscribe_by_command(url: str, fakes: Fakes) -> None:
    weekly = _slack(url, fakes, "subscribe verl-project")
    assert weekly == "This channel now gets the weekly digest of verl-project."
    monthly = _slack(url, fakes, "subscribe verl-project monthly")
    assert monthly == "This channel now gets the monthly digest of verl-project."
    again = _slack(url, fakes, "subscribe monthly verl-project")
    assert again == "This channel already gets the monthly digest of verl-project."
    refused = _slack(url, fakes, "subscribe verl-project monthly", user="UPLAIN")
    assert "admin" in refused.lower()
    listed = _slack(url, fakes, "subscriptions")
    assert "verl-project · weekly · every PR · en" in listed
    assert "verl-project · monthly · every PR · en" in listed
    feishu = _feishu(url, fakes, "subscribe verl-project monthly lang:zh")
    assert "verl-project 的每月月报" in feishu
    feishu_listed = _feishu(url, fakes, "subscriptions")
    assert "verl-project · 每月 · 全部 PR · zh" in feishu_listed
    assert "每周" not in feishu_listed  # the configured weekly chat is no subscription


def _texts(fakes: Fakes, channel: str) -> list[str]:
    return [json.dumps(m, ensure_ascii=False) for m in fakes.slack.messages(channel)]


def test_a_family_and_a_monthly_digest_subscribed_by_command_are_posted_by_the_scheduler(
    tmp_path: Path,
) -> None:
    with primary_only(tmp_path) as (fakes, settings, pipeline):
        pipeline.clock = lambda: IN_W35
        with run_app(wiring.build_app(settings, pipeline)) as url:
            _subscribe_by_command(url, fakes)
        scheduler = wiring.build_weekly_scheduler(settings, pipeline)
        assert [c.job_id for c in scheduler.cadences] == [JOB_ID, MONTHLY_JOB_ID]
        scheduler.start(catch_up=False, paused=True)
        try:
            _run_registered(JOB_ID)  # what APScheduler calls on Monday
            [family_week] = _texts(fakes, "C_SUB")
            assert "verl-omni#" in family_week  # the family's card, one for its four repos
            [primary_week] = _texts(fakes, "C_ZH")
            assert "verl-omni#" not in primary_week  # the configured chat: the repository's
            assert len(fakes.feishu.posted("oc_group1")) == 1  # its weekly card only

            pipeline.clock = lambda: IN_SEPTEMBER
            _run_registered(MONTHLY_JOB_ID)  # what APScheduler calls on the 1st
            _run_registered(MONTHLY_JOB_ID)  # a second tick of the same month posts nothing
            family_month = _texts(fakes, "C_SUB")[1:]
            assert len(family_month) == 1
            assert MONTH in family_month[0]
            assert "verl-omni#" in family_month[0]
            feishu = fakes.feishu.posted("oc_group1")
            assert len(feishu) == 2
            month_card = json.dumps(feishu[1].card, ensure_ascii=False)
            assert MONTH in month_card
            assert "verl-omni#" in month_card
            assert len(_texts(fakes, "C_ZH")) == 1  # no monthly route: no monthly card
            assert (
                scheduler.cadence(MONTHLY_JOB_ID).owed() is None
            )  # the month is done for its scopes
        finally:
            scheduler.shutdown(wait=True, timeout=60)
