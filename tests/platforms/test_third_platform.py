"""A third platform from one package (tests/platforms/fake_chat), registered and nothing else:
the real pipeline posts its digest card (idempotently) through its sender to its API on
127.0.0.1, the CLI's format dispatch renders its card, doctor and `--to` know it, and the real
web app of `serve` answers its signed commands at its route, the regenerate's outcome later."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
import requests

from service import wiring
from service.cli import build_parser
from service.core.digest import build_digest
from service.core.profile import load_profile
from service.errors import InputError
from service.pipeline.jobs import run_week
from service.pipeline.recorded import SAMPLE_REPO, load_sample
from service.platforms import registry
from service.render.formats import render_format
from service.settings import Settings
from tests.fakes._server import FakeAPI, Recorded, Reply, serve
from tests.fakes.asgi import run_app
from tests.platforms.fake_chat import FAKE_CHAT, NAME
from tests.platforms.fake_chat.inbound import SIGNATURE_HEADER, sign

TOKEN = "fake-chat-token-5e1d"
SECRET = "fake-chat-signing-9a7c"
ADMIN = "u_admin"
WAIT_SECONDS = 15.0


@dataclass
class FakeChatApi:
    """The far side of the wire: messages by id, replies to events, and a condition to wait on."""

    api: FakeAPI
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)
    replies: list[dict[str, Any]] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def authorised(self, rec: Recorded) -> bool:
        return rec.header("authorization") == f"Bearer {TOKEN}"

    def post(self, rec: Recorded) -> Reply:
        if not self.authorised(rec):
            return 401, {}, {"ok": False, "error": "not_authed"}
        body = rec.json()
        with self.changed:
            message_id = f"m{len(self.messages) + 1}"
            self.messages[message_id] = body
            self.changed.notify_all()
        return 200, {}, {"ok": True, "id": message_id}

    def patch(self, rec: Recorded) -> Reply:
        message_id = rec.path.rsplit("/", 1)[-1]
        if not self.authorised(rec) or message_id not in self.messages:
            return 404, {}, {"ok": False, "error": "message_not_found"}
        with self.changed:
            self.messages[message_id] = {**self.messages[message_id], **rec.json(), "edited": True}
            self.changed.notify_all()
        return 200, {}, {"ok": True, "id": message_id}

    def find(self, rec: Recorded) -> Reply:
        key = rec.query.get("key", [""])[0]
        return 200, {}, {"ids": [i for i, m in self.messages.items() if m.get("key") == key]}

    def reply(self, rec: Recorded) -> Reply:
        with self.changed:
            self.replies.append(rec.json())
            self.changed.notify_all()
        return 200, {}, {"ok": True}

    def wait(self, condition: Callable[[], bool]) -> None:
        with self.changed:
            assert self.changed.wait_for(condition, WAIT_SECONDS), "the fake got nothing in time"


@pytest.fixture
def chat() -> Iterator[FakeChatApi]:
    fake = FakeChatApi(FakeAPI())
    fake.api.route("POST", "/messages", fake.post)
    fake.api.route("GET", "/messages", fake.find)
    fake.api.route_prefix("PATCH", "/messages/", fake.patch)
    fake.api.route("POST", "/replies", fake.reply)
    with serve(fake.api):
        yield fake


@pytest.fixture
def registered() -> Iterator[None]:
    registry.register(FAKE_CHAT)  # the one step outside the platform's package
    try:
        yield
    finally:
        registry.unregister(NAME)


@pytest.fixture
def settings(
    chat: FakeChatApi,
    registered: None,
    make_settings: Callable[..., Settings],
    monkeypatch: pytest.MonkeyPatch,
) -> Settings:
    for name, value in {
        "FAKE_CHAT_API_URL": chat.api.url,
        "FAKE_CHAT_TOKEN": TOKEN,
        "FAKE_CHAT_SIGNING_SECRET": SECRET,
        "FAKE_CHAT_ROOMS": "general,zh_room:zh",
    }.items():
        monkeypatch.setenv(name, value)
    return make_settings(
        digest_language="en", admin_users=[ADMIN], public_base_url="https://reports.example"
    )


def sample_window() -> Any:
    return load_sample(datetime.now(UTC)).window


def test_the_pipeline_posts_its_cards_once_and_edits_them_on_force(
    settings: Settings, chat: FakeChatApi
) -> None:
    pipeline = wiring.build_pipeline(settings, sample=True)
    assert set(pipeline.senders) == {NAME}
    window = sample_window()
    first = run_week(pipeline, SAMPLE_REPO, window, trigger="cli")
    assert {(o.destination, o.action) for o in first.outcomes} == {
        ("fake-chat:general", "posted"),
        ("fake-chat:zh_room", "posted"),
    }
    by_room = {m["room"]: m["text"] for m in chat.messages.values()}
    assert by_room["general"].startswith(f"Merged this week: {SAMPLE_REPO} {window.label}\n")
    assert by_room["zh_room"].startswith(f"本周合并: {SAMPLE_REPO} {window.label}\n")
    digest = first.digest
    assert digest is not None
    top = max(digest.prs, key=lambda p: (p.score, -p.number))
    assert f"merged PRs: {digest.stats.prs} " in by_room["general"]
    assert f"#{top.number} " in by_room["general"]
    assert f"https://reports.example/reports/{SAMPLE_REPO}/{window.label}" in by_room["general"]
    again = run_week(pipeline, SAMPLE_REPO, window, trigger="cli")
    assert {o.action for o in again.outcomes} == {"skipped"}
    forced = run_week(pipeline, SAMPLE_REPO, window, trigger="cli", force=True)
    assert {o.action for o in forced.outcomes} == {"updated"}
    assert len(chat.messages) == 2
    assert all(m.get("edited") for m in chat.messages.values())


def test_its_card_is_a_cli_format_and_its_destinations_parse(settings: Settings) -> None:
    now = datetime.now(UTC)
    shown = build_digest(load_sample(now), load_profile(SAMPLE_REPO), language="en", now=now)
    card = json.loads(render_format(shown, NAME, "en", report_url="https://r.example/x"))
    assert card["text"].startswith(f"Merged this week: {SAMPLE_REPO} ")
    assert wiring.parse_destinations("fake-chat:general, slack:#ops") == [
        "fake-chat:general",
        "slack:ops",
    ]
    with pytest.raises(InputError, match="expected fake-chat:ROOM"):
        wiring.parse_destinations("fake-chat:not a room")
    with pytest.raises(InputError, match=r"expected .*fake-chat:ROOM"):
        wiring.parse_destinations("nochat:x")
    args = build_parser().parse_args(["digest", "--sample", "--format", NAME])
    assert args.format == NAME  # `verl-week digest --format fake-chat` takes it too


def test_doctor_asks_it_too(settings: Settings) -> None:
    found = [f for f in wiring.run_doctor(settings) if f.area == NAME]
    assert [(f.ok, f.message) for f in found] == [(True, "token set; rooms: general, zh_room")]


def post_event(url: str, event: dict[str, Any], secret: str = SECRET) -> requests.Response:
    body = json.dumps(event).encode()
    headers = {SIGNATURE_HEADER: sign(body, secret), "content-type": "application/json"}
    return requests.post(f"{url}/fake-chat/events", data=body, headers=headers, timeout=10)


def test_the_web_app_answers_its_commands_and_the_rebuild_later(
    settings: Settings, chat: FakeChatApi
) -> None:
    pipeline = wiring.build_pipeline(settings, sample=True)
    window = sample_window()
    posted = run_week(pipeline, SAMPLE_REPO, window, trigger="cli")
    assert posted.digest is not None
    top = max(posted.digest.prs, key=lambda p: (p.score, -p.number))
    reply_url = f"{chat.api.url}/replies"
    event = {"user": "u_reader", "room": "general", "reply_url": reply_url}
    with run_app(wiring.build_app(settings, pipeline)) as url:
        forged = post_event(url, {**event, "text": "top 3"}, secret="not-the-secret")
        answered = post_event(url, {**event, "text": f"pr {top.number} {window.label}"})
        started = post_event(url, {**event, "user": ADMIN, "text": f"regenerate {window.label}"})
        chat.wait(lambda: len(chat.replies) == 1)
        slack = requests.post(f"{url}/slack/events", data=b"{}", timeout=10)
    assert forged.status_code == 401
    assert answered.status_code == 200
    assert answered.json()["text"].startswith(f"#{top.number} ")
    assert started.json()["text"].startswith(f"Regenerating {SAMPLE_REPO} {window.label}")
    done = chat.replies[0]["text"]
    assert done.startswith(
        f"Regenerated {SAMPLE_REPO} {window.label}: {posted.digest.stats.prs} PRs"
    )
    assert all(m.get("edited") for m in chat.messages.values())  # the cards edited in place
    assert slack.status_code == 503  # the built-in platforms keep their routes, unconfigured
