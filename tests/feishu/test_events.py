"""POST /feishu/events on the real web app (uvicorn on 127.0.0.1), fed plain and encrypted
events signed like Feishu signs them, answering through the fake open platform."""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import requests

from service.commands.answer import EngineContext
from service.core.models import Period
from service.core.profile import load_profile
from service.feishu.events import build_feishu_endpoint
from service.feishu.sender import FeishuSender
from service.pipeline import jobs
from service.render import links
from service.runtime.web import build_web_app
from service.store.repository import Store
from tests.conftest import NOW, load_week
from tests.fakes import feishu_events
from tests.fakes.asgi import run_app
from tests.fakes.feishu import FakeFeishu
from tests.fakes.feishu_signing import encrypt_feishu, event_headers
from tests.feishu.conftest import ADMIN, PUBLIC_BASE_URL, REPO
from tests.waiting import wait_for

TOKEN = "verification-token"
ENCRYPT_KEY = "encrypt-key-0123"
BOT = "ou_bot"


@dataclass
class Events:
    url: str
    encrypt_key: str | None
    feishu: FakeFeishu
    regenerated: list[tuple[str, str, str]]
    release: threading.Event

    def post(
        self,
        payload: dict[str, Any],
        *,
        encrypt: bool | None = None,
        sign: bool = True,
        signing_key: str | None = None,
    ) -> requests.Response:
        use_encryption = self.encrypt_key is not None if encrypt is None else encrypt
        body = (
            encrypt_feishu(payload, self.encrypt_key or "")
            if use_encryption
            else json.dumps(payload).encode()
        )
        headers = {"Content-Type": "application/json"}
        if sign and self.encrypt_key:
            headers = event_headers(body, signing_key or self.encrypt_key)
        return requests.post(self.url + "/feishu/events", data=body, headers=headers, timeout=10)


def message_event(text: str, **options: Any) -> dict[str, Any]:
    return feishu_events.message_event(text, **{"token": TOKEN, **options})


def action_event(
    action: str, operator: str, message_id: str, week: str = "2026-W04"
) -> dict[str, Any]:
    return feishu_events.action_event(action, operator, message_id, token=TOKEN, week=week)


def make_events(
    feishu: FakeFeishu, store: Store, sender: FeishuSender, encrypt_key: str | None
) -> Iterator[Events]:
    pipeline = jobs.Pipeline(
        store=store,
        collect=lambda _repo, window: load_week(window.label),
        profile_for=load_profile,
        repos=[REPO],
        language="zh",
        timezone="Asia/Shanghai",
        public_base_url=PUBLIC_BASE_URL,
        clock=lambda: NOW,
        senders={"feishu": sender},
        destinations_for=lambda *_: ["feishu:oc_group1"],
    )
    regenerated: list[tuple[str, str, str]] = []
    release = threading.Event()
    release.set()

    def regenerate(repo: str, week: Period, *, requested_by: str) -> jobs.RunResult:
        release.wait(10)
        regenerated.append((repo, week.label, requested_by))
        return jobs.regenerate(pipeline, repo, week, requested_by=requested_by)

    engine = EngineContext(
        reader=store,
        repos=[REPO],
        language="zh",
        timezone="Asia/Shanghai",
        clock=lambda: NOW,
        admins=frozenset({ADMIN}),
        report_url=functools.partial(links.report_url, PUBLIC_BASE_URL),
    )
    endpoint = build_feishu_endpoint(
        events=store,
        api=sender.api,
        engine=engine,
        verification_token=TOKEN,
        encrypt_key=encrypt_key,
        bot_open_id=BOT,
        regenerate=regenerate,
    )
    with run_app(build_web_app(store=store, endpoints={"/feishu/events": endpoint})) as url:
        yield Events(url, encrypt_key, feishu, regenerated, release)
    release.set()


@pytest.fixture
def plain(feishu: FakeFeishu, store: Store, sender: FeishuSender) -> Iterator[Events]:
    yield from make_events(feishu, store, sender, None)


@pytest.fixture
def encrypted(feishu: FakeFeishu, store: Store, sender: FeishuSender) -> Iterator[Events]:
    yield from make_events(feishu, store, sender, ENCRYPT_KEY)


@pytest.fixture(params=["plain", "encrypted"])
def events(request: pytest.FixtureRequest) -> Events:
    return request.getfixturevalue(request.param)


def reply_text(feishu: FakeFeishu, to: str) -> str:
    wait_for(lambda: bool(feishu.replies(to)))
    return json.dumps([m.card for m in feishu.replies(to)], ensure_ascii=False)


# --- url_verification ------------------------------------------------------------------------


def test_url_verification_answers_the_challenge(events: Events) -> None:
    answer = events.post(
        {"challenge": "c-123", "token": TOKEN, "type": "url_verification"}, sign=False
    )
    assert answer.status_code == 200
    assert answer.json() == {"challenge": "c-123"}


def test_url_verification_with_a_wrong_token_is_refused(events: Events) -> None:
    answer = events.post({"challenge": "c", "token": "forged", "type": "url_verification"})
    assert answer.status_code == 401
    assert "challenge" not in answer.text


# --- authentication -----------------------------------------------------------------------


def test_wrong_token_is_401_and_nothing_is_sent(events: Events) -> None:
    answer = events.post(message_event("@_user_1 risks", token="forged"))
    assert answer.status_code == 401
    assert events.feishu.replies() == []


def test_wrong_signature_is_401_before_decrypting(encrypted: Events) -> None:
    answer = encrypted.post(message_event("@_user_1 risks"), signing_key="not-the-key")
    assert answer.status_code == 401
    unsigned = encrypted.post(message_event("@_user_1 risks"), sign=False)
    assert unsigned.status_code == 401
    garbage = requests.post(
        encrypted.url + "/feishu/events",
        data=b'{"encrypt": "x"}',
        headers=event_headers(b'{"encrypt": "y"}', ENCRYPT_KEY),
        timeout=10,
    )
    assert garbage.status_code == 401
    assert encrypted.feishu.replies() == []


def test_plain_event_to_an_encrypting_endpoint_needs_a_signature(encrypted: Events) -> None:
    answer = encrypted.post(message_event("@_user_1 risks"), encrypt=False, sign=False)
    assert answer.status_code == 401


# --- messages -------------------------------------------------------------------------------


def test_mentioned_in_a_group_answers_with_a_reply_card(events: Events) -> None:
    event = message_event("@_user_1 risks 2025-W48")
    answer = events.post(event)
    assert answer.status_code == 200
    assert answer.json() == {}
    text = reply_text(events.feishu, event["event"]["message"]["message_id"])
    assert "2025-W48" in text
    assert "风险" in text
    assert events.feishu.violations == []


def test_private_chat_commands(events: Events) -> None:
    pr = message_event("/verl-week pr 4352", chat_type="p2p")
    top = message_event("top 5", chat_type="p2p")
    events.post(pr)
    events.post(top)
    assert "#4352" in reply_text(events.feishu, pr["event"]["message"]["message_id"])
    assert "最重要的 5 个 PR" in reply_text(events.feishu, top["event"]["message"]["message_id"])


def test_group_message_without_the_bot_is_ignored(plain: Events) -> None:
    ignored = [
        message_event("risks", mentions=[]),
        message_event("@_user_1 risks", mentions=["ou_someone_else"]),
    ]
    for event in ignored:
        assert plain.post(event).status_code == 200
    barrier = message_event("@_user_1 help")
    plain.post(barrier)
    reply_text(plain.feishu, barrier["event"]["message"]["message_id"])
    assert [m.reply_to for m in plain.feishu.replies()] == [
        barrier["event"]["message"]["message_id"]
    ]


def test_a_retried_event_is_handled_once(events: Events) -> None:
    event = message_event("@_user_1 summary", event_id="ev-retried")
    for _ in range(3):
        assert events.post(event).status_code == 200
    reply_text(events.feishu, event["event"]["message"]["message_id"])
    barrier = message_event("@_user_1 help")
    events.post(barrier)
    reply_text(events.feishu, barrier["event"]["message"]["message_id"])
    assert len(events.feishu.replies(event["event"]["message"]["message_id"])) == 1


def test_hostile_command_text_is_inert_in_the_reply(plain: Events) -> None:
    event = message_event("@_user_1 <at id=all></at> [x](https://evil.example) **bold**")
    plain.post(event)
    text = reply_text(plain.feishu, event["event"]["message"]["message_id"])
    assert "<at" not in text
    assert "](https://evil" not in text
    assert "**bold**" not in text


# --- card buttons ------------------------------------------------------------------------


def test_risk_list_button_toasts_and_replies_with_the_risks(events: Events) -> None:
    answer = events.post(action_event("risks", "ou_reader", "om_weekly"))
    assert answer.status_code == 200
    assert answer.json()["toast"]["type"] == "info"
    assert "2026-W04" in reply_text(events.feishu, "om_weekly")


def test_regenerate_is_admin_only(events: Events) -> None:
    answer = events.post(action_event("regenerate", "ou_reader", "om_weekly"))
    assert answer.json()["toast"] == {"type": "error", "content": "只有管理员可以重新生成周报。"}
    assert events.regenerated == []


def test_regenerate_answers_first_then_rebuilds_and_edits_the_posted_card(
    events: Events, store: Store, sender: FeishuSender
) -> None:
    posted = jobs.run_week(
        jobs.Pipeline(
            store=store,
            collect=lambda _r, w: load_week(w.label),
            profile_for=load_profile,
            repos=[REPO],
            language="zh",
            timezone="Asia/Shanghai",
            public_base_url=PUBLIC_BASE_URL,
            clock=lambda: NOW,
            senders={"feishu": sender},
            destinations_for=lambda *_: ["feishu:oc_group1"],
        ),
        REPO,
        load_week("2026-W04").window,
        trigger="test",
    )
    message_id = posted.outcomes[0].message_id or ""
    events.release.clear()  # the rebuild waits until the button's answer has arrived
    answer = events.post(action_event("regenerate", ADMIN, message_id))
    assert answer.json()["toast"]["type"] == "success"
    assert events.regenerated == []
    events.release.set()
    wait_for(lambda: bool(events.feishu.messages[message_id].versions))
    assert events.regenerated == [(REPO, "2026-W04", ADMIN)]
    assert "2026-W04" in reply_text(events.feishu, message_id)
    assert len(events.feishu.posted("oc_group1")) == 1  # edited in place, nothing new posted
