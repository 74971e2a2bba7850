"""`pr N` for a PR in no stored digest asks GitHub (issue 19, item 5). With a slow GitHub the
answer used to miss Slack's 3 s: now the command is acknowledged at once ("asking GitHub…")
and the PR follows through response_url (Slack) or a second reply (Feishu) when the fetch
ends, or after PR_LOOKUP_TIMEOUT_SECONDS with "GitHub is slow". Through the service wired from
settings, against FakeGitHub answering every request after a delay."""

from __future__ import annotations

import json
import time
from pathlib import Path

import requests

from tests.channels.conftest import FEISHU_TOKEN, Wired, wired_service
from tests.fakes import feishu_events
from tests.waiting import wait_for

SLACK_WINDOW = 3.0
LATENCY = 1.5  # per GitHub request: a lookup takes two of them, over Slack's 3 s in all
ABSENT = 4320  # a PR of the recorded week: no digest is stored, so it is looked up live


def hook_answer(wired: Wired, hook: str) -> str:
    wait_for(lambda: bool(wired.slack.responses_to(hook)), timeout=30)
    [answer] = wired.slack.responses_to(hook)
    return json.dumps(answer, ensure_ascii=False)


def slow_slash(wired: Wired, text: str, channel: str = "C_EN") -> tuple[float, str, str]:
    """(seconds to the acknowledgement, its text, the response_url it names)."""
    hook_count = len(wired.slack.responses)
    started = time.perf_counter()
    ack = wired.slash(text, channel=channel)
    seconds = time.perf_counter() - started
    hooks = list(wired.slack.responses)
    assert len(hooks) == hook_count + 1
    return seconds, json.dumps(ack, ensure_ascii=False), hooks[-1]


def test_a_slow_lookup_is_acknowledged_in_time_and_answered_later(tmp_path: Path) -> None:
    with wired_service(tmp_path) as wired:
        wired.github.api.latency = LATENCY
        seconds, ack, hook = slow_slash(wired, f"pr {ABSENT} lang:en")
        assert seconds < SLACK_WINDOW
        assert f"PR #{ABSENT} is in no stored digest of volcengine/verl; asking GitHub" in ack
        answer = hook_answer(wired, hook)
        assert f"#{ABSENT}" in answer
        assert "asking GitHub" not in answer
        assert "did not answer" not in answer


def test_a_lookup_past_its_timeout_says_github_is_slow(tmp_path: Path) -> None:
    with wired_service(tmp_path, PR_LOOKUP_TIMEOUT_SECONDS="1") as wired:
        wired.github.api.latency = LATENCY
        seconds, ack, hook = slow_slash(wired, f"pr {ABSENT}", channel="C_ZH")
        assert seconds < SLACK_WINDOW
        assert "正在向 GitHub 查询" in ack  # the channel's language, zh
        answer = hook_answer(wired, hook)
        assert f"GitHub 在 1 秒内没有返回 volcengine/verl 的 PR #{ABSENT}" in answer


def test_other_commands_are_answered_while_a_lookup_waits(tmp_path: Path) -> None:
    with wired_service(tmp_path) as wired:
        wired.github.api.latency = LATENCY
        _seconds, _ack, hook = slow_slash(wired, f"pr {ABSENT}")
        started = time.perf_counter()
        wired.slash("help")
        assert time.perf_counter() - started < SLACK_WINDOW
        assert not wired.slack.responses_to(hook)  # the lookup is still running
        hook_answer(wired, hook)


def test_feishu_replies_twice_asking_then_the_pr(tmp_path: Path) -> None:
    with wired_service(tmp_path) as wired:
        wired.github.api.latency = LATENCY
        event = feishu_events.message_event(
            f"@_user_1 pr {ABSENT} lang:en", token=FEISHU_TOKEN, chat_id="oc_group1"
        )
        message_id = event["event"]["message"]["message_id"]
        started = time.perf_counter()
        response = requests.post(f"{wired.url}/feishu/events", json=event, timeout=15)
        assert response.status_code == 200
        assert time.perf_counter() - started < SLACK_WINDOW  # Feishu's window is 3 s too
        wait_for(lambda: len(wired.feishu.replies(message_id)) == 2, timeout=30)
        replies = wired.feishu.replies(message_id)
        first, second = (json.dumps(r.card, ensure_ascii=False) for r in replies)
        assert "asking GitHub" in first
        assert f"#{ABSENT}" in second
        assert "asking GitHub" not in second
