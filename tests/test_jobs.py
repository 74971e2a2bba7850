"""The one pipeline through wiring: build, store, post to fake Slack, Feishu and webhook once;
regenerate edits in place; the (repo, week) lock; a failing destination doesn't stop others."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from service import wiring
from service.core.weeks import window_for
from service.pipeline import jobs
from service.pipeline.jobs import Pipeline, regenerate, run_week
from service.settings import Settings
from tests.fakes.feishu import FakeFeishu, serve_feishu
from tests.fakes.slack import BOT_TOKEN, FakeSlack, running_fake_slack
from tests.periods import period

WEEK = window_for(2026, 4, "Asia/Shanghai")
REPO = "volcengine/verl"


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with running_fake_slack() as fake:
        fake.add_channel("C111")
        yield fake


@pytest.fixture
def feishu() -> Iterator[FakeFeishu]:
    with serve_feishu() as fake:
        yield fake


@pytest.fixture
def pipeline(
    make_settings: Callable[..., Settings], slack: FakeSlack, feishu: FakeFeishu
) -> Pipeline:
    settings = make_settings(
        slack_bot_token=BOT_TOKEN,
        slack_api_url=slack.api_url,
        slack_channels="C111",
        feishu_app_id=feishu.app_id,
        feishu_app_secret=feishu.app_secret,
        feishu_base_url=feishu.url,
        feishu_chat_ids="oc_group1",
        feishu_webhook_url=feishu.hook_url,
    )
    return wiring.build_pipeline(settings, sample=True)


def _actions(result: Any) -> dict[str, str]:
    return {o.destination: o.action for o in result.outcomes}


def test_run_posts_everywhere_once(
    pipeline: Pipeline, slack: FakeSlack, feishu: FakeFeishu
) -> None:
    first = run_week(pipeline, REPO, WEEK, trigger="test")
    assert first.outcome == "ok", first
    assert _actions(first) == {
        "slack:C111": "posted",
        "feishu:oc_group1": "posted",
        "feishu-webhook:default": "posted",
    }
    assert len(slack.messages("C111")) == 1
    assert len(feishu.posted("oc_group1")) == 1
    assert len(feishu.hook_cards) == 1
    second = run_week(pipeline, REPO, WEEK, trigger="test")
    assert set(_actions(second).values()) == {"skipped"}
    assert len(slack.messages("C111")) == 1
    assert len(feishu.posted("oc_group1")) == 1
    assert len(feishu.hook_cards) == 1
    assert slack.violations == []
    assert feishu.violations == []
    stored = pipeline.store.get_digest(REPO, period("2026-W04"), "zh")
    assert stored is not None
    assert stored.stats.prs == 22


def test_regenerate_edits_cards_in_place(
    pipeline: Pipeline, slack: FakeSlack, feishu: FakeFeishu
) -> None:
    run_week(pipeline, REPO, WEEK, trigger="test")
    posts = len(slack.calls("chat.postMessage"))
    result = regenerate(pipeline, REPO, period("2026-W04"), requested_by="U1")
    assert _actions(result)["slack:C111"] == "updated"
    assert _actions(result)["feishu:oc_group1"] == "updated"
    assert len(slack.calls("chat.postMessage")) == posts
    assert len(slack.calls("chat.update")) == 1
    assert len(feishu.posted("oc_group1")) == 1
    assert len(feishu.api.calls("PATCH")) == 1


def test_a_held_lock_means_nothing_is_built_or_posted(pipeline: Pipeline, slack: FakeSlack) -> None:
    assert pipeline.store.acquire_lock(f"week:{REPO}:2026-W04", "other", timedelta(minutes=5))
    result = run_week(pipeline, REPO, WEEK, trigger="test")
    assert result.outcome == "locked"
    assert slack.calls("chat.postMessage") == []
    assert pipeline.store.get_digest(REPO, period("2026-W04"), "zh") is None


def test_one_failing_destination_does_not_stop_the_others(
    pipeline: Pipeline, slack: FakeSlack, feishu: FakeFeishu
) -> None:
    slack.fail_method("chat.postMessage", "channel_is_archived")
    first = run_week(pipeline, REPO, WEEK, trigger="test")
    assert first.outcome == "partial"
    failed = next(o for o in first.outcomes if o.destination == "slack:C111")
    assert failed.action == "failed"
    assert failed.error is not None
    assert "channel_is_archived" in failed.error
    assert "C111" in failed.error
    assert len(feishu.posted("oc_group1")) == 1
    again = run_week(pipeline, REPO, WEEK, trigger="test")
    assert _actions(again) == {
        "slack:C111": "posted",
        "feishu:oc_group1": "skipped",
        "feishu-webhook:default": "skipped",
    }
    assert len(slack.messages("C111")) == 1
    last = pipeline.store.last_run(REPO)
    assert last is not None
    assert last.outcome == "ok"


def test_regenerate_of_an_unknown_repo_is_input_error(pipeline: Pipeline) -> None:
    from service.errors import InputError

    with pytest.raises(InputError):
        regenerate(pipeline, "someone/else", period("2026-W04"), requested_by="U1")


def test_subscribed_channel_gets_the_post(
    pipeline: Pipeline, slack: FakeSlack, tmp_path: Path
) -> None:
    slack.add_channel("C222")
    pipeline.store.subscribe("slack", "C222", REPO, "U1")
    run_week(pipeline, REPO, WEEK, trigger="test")
    assert len(slack.messages("C222")) == 1


def test_the_weekly_job_prunes_old_event_ids_and_cache_entries(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings(events_retention_days=7, http_cache_retention_days=30)
    pipeline = wiring.build_pipeline(settings, sample=True, with_senders=False)
    store = pipeline.store
    assert store.remember_event("Ev0001", "slack") is True
    store.cache_put("https://api.github.com/repos/volcengine/verl", '"e1"', "{}")
    started = datetime.now(UTC)

    pipeline.clock = lambda: started + timedelta(days=8)
    jobs.run_scheduled(pipeline)
    assert store.remember_event("Ev0001", "slack") is True  # forgotten, so new again
    assert store.cache_get("https://api.github.com/repos/volcengine/verl") == ('"e1"', "{}")

    pipeline.clock = lambda: started + timedelta(days=31)
    jobs.run_scheduled(pipeline)
    assert store.cache_get("https://api.github.com/repos/volcengine/verl") is None
