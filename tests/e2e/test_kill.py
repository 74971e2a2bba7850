"""The process killed (SIGKILL) between a successful post and recording it: on restart the week
is not posted again. Slack is reconciled through the message metadata in conversations.history;
Feishu through the message `uuid`, which the platform (and the fake) dedupes."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import update

from service.store import tables
from service.store.repository import Store
from tests.e2e.conftest import REPO, Fakes, last_window, shifted_pulls
from tests.fakes._server import Recorded, Reply
from tests.processes import ServiceProcess
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e
HOLD_SECONDS = 60.0


class Stall:
    """Wrap a fake's route: the first call is handled (the post happens), then its answer is
    held back until the test has killed the caller."""

    def __init__(self, routes: dict[tuple[str, str], Any], key: tuple[str, str]) -> None:
        self.original = routes[key]
        self.handled = threading.Event()
        self.release = threading.Event()
        self.calls = 0
        routes[key] = self

    def __call__(self, rec: Recorded) -> Reply:
        self.calls += 1
        reply: Reply = self.original(rec)
        if self.calls == 1:
            self.handled.set()
            self.release.wait(HOLD_SECONDS)
        return reply


def time_passes(serve: ServiceProcess) -> int:
    """What waiting out the dead process's locks would do (the catch-up lock lives 2 h, the
    week lock 30 min): expire them. Returns how many there were."""
    store = Store.open(serve.env["DATABASE_URL"])
    try:
        with store.engine.begin() as conn:
            past = datetime(2000, 1, 1, tzinfo=UTC)
            return conn.execute(update(tables.locks).values(expires_at=past)).rowcount
    finally:
        store.engine.dispose()


def deliveries(serve: ServiceProcess) -> dict[str, tuple[str, str | None]]:
    store = Store.open(serve.env["DATABASE_URL"])
    try:
        found = store.list_deliveries(REPO, last_window())
        return {d.destination: (d.status, d.message_id) for d in found}
    finally:
        store.engine.dispose()


def test_killed_after_posting_does_not_post_again(fakes: Fakes, serve: ServiceProcess) -> None:
    for raw in shifted_pulls():
        fakes.github.add_pr(raw)
    slack_stall = Stall(fakes.slack.api.routes, ("POST", "/api/chat.postMessage"))
    feishu_stall = Stall(fakes.feishu.api.routes, ("POST", "/open-apis/im/v1/messages"))

    # run 1: Slack has the message, the process dies before recording it
    serve.start()
    assert slack_stall.handled.wait(60), serve.log()[-3000:]
    serve.kill()
    slack_stall.release.set()
    assert len(fakes.slack.messages("C1")) == 1
    assert deliveries(serve)["slack:C1"][0] != "sent"

    # run 2: Slack is reconciled from the channel history; Feishu posts and the process dies
    assert time_passes(serve) >= 1
    serve.start()
    assert feishu_stall.handled.wait(60), serve.log()[-3000:]
    serve.kill()
    feishu_stall.release.set()
    assert slack_stall.calls == 1  # no second chat.postMessage
    assert len(fakes.slack.calls("conversations.history")) >= 1
    assert len(fakes.feishu.posted("oc_group1")) == 1
    ts = fakes.slack.messages("C1")[0]["ts"]
    assert deliveries(serve)["slack:C1"] == ("sent", f"C1:{ts}")

    # run 3: Feishu is re-posted with the same uuid, which the platform drops
    time_passes(serve)
    serve.start()
    wait_for(lambda: deliveries(serve).get("feishu:oc_group1", ("", None))[0] == "sent",
             what=lambda: f"feishu delivery recorded; log:\n{serve.log()[-3000:]}")  # fmt: skip
    [card] = fakes.feishu.posted("oc_group1")
    assert deliveries(serve)["feishu:oc_group1"] == ("sent", card.message_id)
    creates = fakes.feishu.api.calls("POST", "/open-apis/im/v1/messages")
    assert len({r.json()["uuid"] for r in creates}) == 1  # every attempt carried the same key
    assert len(fakes.slack.messages("C1")) == 1
    assert slack_stall.calls == 1
    wait_for(lambda: serve.health()[1]["last_run"]["outcome"] == "ok", what="run ok")


def test_a_restart_right_after_a_kill_finishes_the_week(
    fakes: Fakes, serve: ServiceProcess
) -> None:
    for raw in shifted_pulls():
        fakes.github.add_pr(raw)
    slack_stall = Stall(fakes.slack.api.routes, ("POST", "/api/chat.postMessage"))
    serve.start()
    assert slack_stall.handled.wait(60)
    serve.kill()
    slack_stall.release.set()
    serve.start()
    wait_for(lambda: deliveries(serve).get("slack:C1", ("", None))[0] == "sent", timeout=20)
    assert slack_stall.calls == 1
