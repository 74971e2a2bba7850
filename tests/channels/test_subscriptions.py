"""Subscriptions with filters and a language, made by command in Slack and Feishu; `verl-week
post` without --to reaching the settings' destinations and the subscriptions, each (destination,
filter) once a week; several repositories, each card only where it was asked for."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import requests

from service.core.models import CollectedPeriod, Period
from service.pipeline.jobs import run_scheduled
from service.render.slack import ACTION_RISKS
from tests.channels.conftest import (
    FEISHU_ADMIN,
    FEISHU_TOKEN,
    REPO,
    SLACK_ADMIN,
    SLACK_SECRET,
    WEEK,
    Wired,
    card_text,
    chinese,
    pr_numbers,
    wired_service,
)
from tests.conftest import load_week
from tests.fakes import feishu_events
from tests.fakes.signing import sign_slack
from tests.fakes.slack import action_body
from tests.periods import period
from tests.waiting import wait_for

MEGATRON = {4936, 4632, 4931, 4944}
HUAZHONG = {5033, 5018}
OTHER = "octo/other"


def week_numbers(wired: Wired) -> set[int]:
    digest = wired.pipeline.store.get_digest(REPO, period(WEEK), "zh")
    assert digest is not None
    return {p.number for p in digest.prs}


def post(wired: Wired, *args: str) -> list[list[str]]:
    done = wired.cli("post", "--week", WEEK, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    return [line.split("\t") for line in done.stdout.splitlines()]


@pytest.mark.process
def test_a_filtered_subscription_gets_a_card_of_the_matching_prs_only(wired: Wired) -> None:
    answer = wired.slash("subscribe lang:en module:megatron", channel="C_SUB", user=SLACK_ADMIN)
    assert answer["text"] == (
        f"This channel now gets a weekly digest of {REPO} holding only the PRs that match "
        "`module:megatron`."
    )
    listed = wired.slash("subscriptions", channel="C_SUB")
    assert f"{REPO} · weekly · module:megatron · en" in card_text(listed["blocks"])

    post(wired)
    [card] = wired.slack.messages("C_SUB")
    text = card_text(card["blocks"])
    assert "Filter:" in text
    assert "module:megatron" in text
    assert set(pr_numbers(text)) & week_numbers(wired) <= MEGATRON
    assert not chinese(card["text"])  # the subscription's language, not DIGEST_LANGUAGE
    # the whole week still goes to the configured channels
    whole = card_text(wired.slack.messages("C_ZH")[0]["blocks"])
    assert "Filter:" not in whole
    assert set(pr_numbers(whole)) & week_numbers(wired) - MEGATRON


def test_only_admins_subscribe(wired: Wired) -> None:
    answer = wired.slash("subscribe module:megatron lang:en", channel="C_SUB")
    assert "Only admins" in answer["text"]
    assert wired.pipeline.store.subscription_records() == []


@pytest.mark.process
def test_feishu_subscribes_the_same_way(wired: Wired) -> None:
    reply = wired.feishu_say("subscribe author:Huazhong", chat_id="oc_group3", sender=FEISHU_ADMIN)
    assert "author:Huazhong" in card_text(reply)
    post(wired)
    [message] = wired.feishu.posted("oc_group3")
    text = card_text(message.card)
    assert "author:Huazhong" in text
    assert set(pr_numbers(text)) & week_numbers(wired) == HUAZHONG
    assert chinese(message.card["header"]["title"]["content"])  # no lang: DIGEST_LANGUAGE
    listed = wired.feishu_say("subscriptions", chat_id="oc_group3")
    assert f"{REPO} · 每周 · author:Huazhong · zh" in card_text(listed)


@pytest.mark.process
def test_post_reaches_settings_and_subscriptions_once_each(wired: Wired) -> None:
    wired.slash("subscribe module:megatron", channel="C_EN", user=SLACK_ADMIN)  # also configured
    wired.slash("subscribe lang:en", channel="C_SUB", user=SLACK_ADMIN)
    wired.feishu_say("subscribe author:Huazhong", chat_id="oc_group3", sender=FEISHU_ADMIN)
    first = post(wired)
    assert sorted((line[0], line[1]) for line in first) == sorted(
        [
            ("slack:C_ZH", "posted"),
            ("slack:C_EN", "posted"),
            ("slack:C_EN [module:megatron]", "posted"),
            ("slack:C_SUB", "posted"),
            ("feishu:oc_group1", "posted"),
            ("feishu:oc_group2", "posted"),
            ("feishu:oc_group3 [author:Huazhong]", "posted"),
            ("feishu-webhook:default", "posted"),
        ]
    )
    assert len(wired.slack.messages("C_EN")) == 2  # the whole week, and the megatron card
    second = post(wired)
    assert {line[1] for line in second} == {"skipped"}
    assert len(second) == len(first)
    counts = {c: len(wired.slack.messages(c)) for c in ("C_ZH", "C_EN", "C_SUB")}
    assert counts == {"C_ZH": 1, "C_EN": 2, "C_SUB": 1}
    assert [len(wired.feishu.posted(c)) for c in ("oc_group1", "oc_group2", "oc_group3")] == [
        1,
        1,
        1,
    ]
    assert len(wired.feishu.hook_cards) == 1


@pytest.mark.process
def test_regenerate_edits_every_card_in_place_with_its_filter(wired: Wired) -> None:
    wired.slash("subscribe lang:en module:megatron", channel="C_SUB", user=SLACK_ADMIN)
    post(wired)
    answer = wired.slash(f"regenerate {WEEK}", channel="C_SUB", user=SLACK_ADMIN)
    assert "Regenerating" in answer["text"]
    wait_for(
        lambda: all(m["edits"] == 1 for c in ("C_SUB", "C_ZH") for m in wired.slack.messages(c))
    )
    [card] = wired.slack.messages("C_SUB")
    assert "module:megatron" in card_text(card["blocks"])
    assert set(pr_numbers(card_text(card["blocks"]))) & week_numbers(wired) <= MEGATRON


def test_unsubscribe_removes_it(wired: Wired) -> None:
    wired.slash("subscribe module:megatron", channel="C_SUB", user=SLACK_ADMIN)
    wired.slash("subscribe author:Huazhong", channel="C_SUB", user=SLACK_ADMIN)
    gone = wired.slash("unsubscribe module:megatron lang:en", channel="C_SUB", user=SLACK_ADMIN)
    assert "no longer gets the `module:megatron` digest" in gone["text"]
    records = wired.pipeline.store.channel_subscriptions("slack", "C_SUB")
    assert [r.filter for r in records] == ["author:Huazhong"]
    every = wired.slash("unsubscribe lang:en", channel="C_SUB", user=SLACK_ADMIN)
    assert every["text"] == f"This channel no longer gets the weekly digest of {REPO}."
    assert wired.pipeline.store.channel_subscriptions("slack", "C_SUB") == []
    empty = wired.slash("subscriptions lang:en", channel="C_SUB")
    assert "no subscription of its own" in empty["text"]


def test_subscribing_an_unknown_module_answers_the_usage(wired: Wired) -> None:
    answer = wired.slash("subscribe module:nosuch lang:en", channel="C_SUB", user=SLACK_ADMIN)
    assert "module:nosuch" in answer["text"]
    assert "Filters:" in card_text(answer["blocks"])
    assert wired.pipeline.store.subscription_records() == []


def recorded_everywhere(repo: str, window: Period) -> CollectedPeriod:
    """The recorded 2026-W04 PRs, as if every repository had merged them."""
    week = load_week(window.label)
    return week.model_copy(update={"repo": repo})


def test_several_repos_each_card_only_where_asked(tmp_path: Path) -> None:
    with wired_service(tmp_path, DIGEST_REPOS=f"{REPO},{OTHER}") as wired:
        wired.slash(f"subscribe {OTHER}", channel="C_OTHER", user=SLACK_ADMIN)
        wired.slash(f"subscribe {REPO} module:megatron", channel="C_SUB", user=SLACK_ADMIN)
        refused = wired.slash("subscribe someone/else lang:en", channel="C_SUB", user=SLACK_ADMIN)
        assert "is not one of the repositories" in refused["text"]
        wired.pipeline.collect = recorded_everywhere
        wired.pipeline.clock = lambda: datetime(2026, 1, 28, 12, tzinfo=UTC)  # last = 2026-W04
        results = run_scheduled(wired.pipeline)
        assert [(r.repo, r.period.label, r.outcome) for r in results] == [
            (REPO, WEEK, "ok"),
            (OTHER, WEEK, "ok"),
        ]

        def repos_of(channel: str) -> list[str]:
            return [
                repo
                for m in wired.slack.messages(channel)
                for repo in (REPO, OTHER)
                if f"/reports/{repo}/" in card_text(m["blocks"])
            ]

        assert repos_of("C_OTHER") == [OTHER]
        assert repos_of("C_SUB") == [REPO]
        assert sorted(repos_of("C_ZH")) == sorted([REPO, OTHER])
        again = run_scheduled(wired.pipeline)
        assert {o.action for r in again for o in r.outcomes} == {"skipped"}


@pytest.mark.process
def test_the_risks_button_of_a_filtered_card_lists_its_risks(wired: Wired) -> None:
    wired.slash("subscribe lang:en module:megatron", channel="C_SUB", user=SLACK_ADMIN)
    post(wired)
    [card] = wired.slack.messages("C_SUB")
    [button] = [
        e for b in card["blocks"] if b["type"] == "actions" for e in b["elements"]
        if e.get("action_id") == ACTION_RISKS
    ]  # fmt: skip
    hook = wired.slack.response_url()
    payload = {
        "type": "block_actions",
        "team": {"id": "T0001"},
        "user": {"id": "UPLAIN"},
        "api_app_id": "A0001",
        "channel": {"id": "C_SUB"},
        "container": {"type": "message", "channel_id": "C_SUB", "message_ts": card["ts"]},
        "response_url": hook,
        "trigger_id": "1.2.3",
        "actions": [{"action_id": ACTION_RISKS, "type": "button", "value": button["value"]}],
    }
    body = action_body(payload)
    response = requests.post(
        f"{wired.url}/slack/events", data=body, headers=sign_slack(body, SLACK_SECRET), timeout=15
    )
    assert response.status_code == 200
    wait_for(lambda: len(wired.slack.responses_to(hook)) == 1)
    reply = wired.slack.responses_to(hook)[0]
    text = card_text(reply["blocks"])
    assert "module:megatron" in text
    named = set(pr_numbers(text)) & week_numbers(wired)
    assert named
    assert named <= MEGATRON


def callback_values(value: Any) -> list[dict[str, Any]]:
    """Every callback button's value in a card."""
    found: list[dict[str, Any]] = []
    if isinstance(value, dict):
        if value.get("type") == "callback" and isinstance(value.get("value"), dict):
            found.append(value["value"])
        for child in value.values():
            found += callback_values(child)
    elif isinstance(value, list):
        for child in value:
            found += callback_values(child)
    return found


@pytest.mark.process
def test_the_feishu_risks_button_of_a_filtered_card_lists_its_risks(wired: Wired) -> None:
    wired.feishu_say("subscribe lang:en path:verl/models/**", chat_id="oc_group3",
                     sender=FEISHU_ADMIN)  # fmt: skip
    post(wired)
    [message] = wired.feishu.posted("oc_group3")
    [risks] = [v for v in callback_values(message.card) if v.get("verb") == "risks"]
    event = feishu_events.action_event(
        "risks", "ou_reader", message.message_id, token=FEISHU_TOKEN, week=WEEK
    )
    event["event"]["action"]["value"] = risks
    event["event"]["context"]["open_chat_id"] = "oc_group3"
    assert requests.post(f"{wired.url}/feishu/events", json=event, timeout=15).status_code == 200
    wait_for(lambda: bool(wired.feishu.replies(message.message_id)))
    text = card_text(wired.feishu.replies(message.message_id)[0].card)
    assert "Filter: path:verl/models/" in text  # in the chat's language (its lang:en)
    in_models = {4931, 4936}  # the PRs of the week changing verl/models/ that carry risks
    assert set(pr_numbers(text)) & week_numbers(wired) == in_models


@pytest.mark.process
def test_dry_run_shows_every_target_with_its_filter_and_language(wired: Wired) -> None:
    wired.slash("subscribe lang:en module:megatron", channel="C_SUB", user=SLACK_ADMIN)
    done = wired.cli("post", "--week", WEEK, "--dry-run")
    assert done.returncode == 0, done.stderr
    lines = {line.split("\t")[0]: line.split("\t")[2] for line in done.stdout.splitlines()}
    assert lines["slack:C_SUB [module:megatron]"].startswith("slack card in en, 4 PRs, ")
    assert lines["slack:C_ZH"].startswith("slack card in zh, 22 PRs, ")
    assert lines["feishu:oc_group2"].startswith("feishu card in en, 22 PRs, ")
    assert lines["feishu-webhook:default"].startswith("feishu card in en, 22 PRs, ")
    assert wired.slack.messages("C_SUB") == []  # a dry run posts nothing
