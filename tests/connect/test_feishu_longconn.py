"""Feishu events over the long connection (FEISHU_EVENT_MODE=websocket), the service wired as
`serve` wires it, against the fake long-connection endpoint: a message gets its reply card
through the Feishu API, a card button is answered in the acknowledgement, a split event is put
back together, pings get pongs whose ClientConfig the client obeys, and a dropped socket is
reopened. Then `serve` itself with the README's settings, and with a refused secret."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from service import wiring
from service.core.weeks import parse_week
from service.pipeline.jobs import Pipeline, build_week
from tests.channels.conftest import labelled_github, settings_of
from tests.connect.conftest import Launch
from tests.fakes import feishu_events
from tests.fakes.asgi import run_app
from tests.fakes.feishu import FakeFeishu, serve_feishu
from tests.fakes.feishu_longconn import (
    SERVICE_ID,
    WAIT_SECONDS,
    FakeLongConnection,
    header,
    long_connection,
)
from tests.harness import GITHUB_TOKEN as TOKEN
from tests.waiting import wait_for

REPO = "volcengine/verl"
WEEK = "2026-W04"
APP_SECRET = "longconn-app-secret-3c1d"
ADMIN = "ou_admin"


@dataclass
class Wired:
    feishu: FakeFeishu
    socket: FakeLongConnection
    pipeline: Pipeline


def feishu_env(feishu: FakeFeishu, folder: Path) -> dict[str, str]:
    """The README's "Feishu app bot, long connection" block, pointed at the fakes."""
    return {
        "FEISHU_APP_ID": feishu.app_id,
        "FEISHU_APP_SECRET": APP_SECRET,
        "FEISHU_EVENT_MODE": "websocket",
        "FEISHU_CHAT_IDS": "oc_group1",
        "FEISHU_BASE_URL": feishu.url,
        "ADMIN_USERS": ADMIN,
        "DATABASE_URL": f"sqlite:///{folder}/verl-week.db",
        "DIGEST_LANGUAGE": "en",
    }


@pytest.fixture
def feishu() -> Iterator[FakeFeishu]:
    with serve_feishu(app_secret=APP_SECRET) as fake:
        yield fake


@pytest.fixture
def socket(feishu: FakeFeishu) -> Iterator[FakeLongConnection]:
    with long_connection(feishu) as fake:
        yield fake


@pytest.fixture
def wired(feishu: FakeFeishu, socket: FakeLongConnection, tmp_path: Path) -> Iterator[Wired]:
    github = labelled_github()
    with github.running():
        env = {
            **feishu_env(feishu, tmp_path),
            "GITHUB_API_URL": github.url,
            "GITHUB_GRAPHQL_URL": github.graphql_url,
            "GITHUB_TOKEN": TOKEN,
        }
        settings = settings_of(env)
        pipeline = wiring.build_pipeline(settings)
        build_week(pipeline, REPO, parse_week(WEEK, "Asia/Shanghai", datetime.now(UTC)))
        with run_app(wiring.build_app(settings, pipeline)):
            yield Wired(feishu, socket, pipeline)
        pipeline.store.engine.dispose()


def message(text: str) -> dict[str, Any]:
    # long-connection events carry no verification token (the connection is the proof)
    return feishu_events.message_event(text, token="", chat_type="p2p")


def test_a_message_is_answered_with_a_reply_card(wired: Wired) -> None:
    event = message("risks 2026-W04")
    sent = wired.socket.push(event)
    ack = wired.socket.ack(sent)
    assert ack["code"] == 200
    assert "data" not in ack  # a message event answers nothing in the frame
    assert header(ack["frame"], "biz_rt") is not None
    message_id = str(event["event"]["message"]["message_id"])
    wait_for(lambda: bool(wired.feishu.replies(message_id)), WAIT_SECONDS)
    [reply] = wired.feishu.replies(message_id)
    assert "2026-W04" in str(reply.card)
    assert wired.feishu.violations == []


def test_the_same_event_twice_is_answered_once(wired: Wired) -> None:
    event = message("help")
    first, second = wired.socket.push(event), wired.socket.push(event)
    assert wired.socket.ack(first)["code"] == wired.socket.ack(second)["code"] == 200
    message_id = str(event["event"]["message"]["message_id"])
    wait_for(lambda: bool(wired.feishu.replies(message_id)), WAIT_SECONDS)
    assert len(wired.feishu.replies(message_id)) == 1


def test_a_card_button_is_answered_in_the_acknowledgement(wired: Wired) -> None:
    click = feishu_events.action_event("risks", "ou_reader", "om_card", token="", week=WEEK)
    ack = wired.socket.ack(wired.socket.push(click))
    assert ack["code"] == 200
    assert ack["data"]["toast"]["type"] == "info"
    assert ack["data"]["toast"]["content"]
    wait_for(lambda: bool(wired.feishu.replies("om_card")), WAIT_SECONDS)
    denied = feishu_events.action_event("regenerate", "ou_reader", "om_card", token="")
    answer = wired.socket.ack(wired.socket.push(denied))
    assert answer["data"]["toast"]["type"] == "error"  # not an admin


def test_a_card_frame_is_handled_like_an_event_frame(wired: Wired) -> None:
    click = feishu_events.action_event("risks", "ou_reader", "om_old", token="", week=WEEK)
    ack = wired.socket.ack(wired.socket.push(click, kind="card"))
    assert ack["data"]["toast"]["type"] == "info"


def test_an_event_split_in_parts_is_put_back_together(wired: Wired) -> None:
    event = message("help")
    ack = wired.socket.ack(wired.socket.push(event, parts=3))
    assert ack["code"] == 200
    message_id = str(event["event"]["message"]["message_id"])
    wait_for(lambda: bool(wired.feishu.replies(message_id)), WAIT_SECONDS)


def test_pings_get_pongs_and_the_pong_sets_the_interval(wired: Wired) -> None:
    wired.socket.wait(lambda: len(wired.socket.pings) >= 1, "the first ping")
    assert wired.socket.pings[0]["service"] == SERVICE_ID
    # the first pong said PingInterval 120; the next one says 1: a second ping follows soon
    wired.socket.pong_config = {**wired.socket.config, "PingInterval": 1}
    wired.socket.drop()  # a new connection: its first ping is answered with the new config
    wired.socket.wait(lambda: len(wired.socket.pings) >= 4, "pings at the new interval")


def test_a_dropped_socket_is_reopened_and_events_flow_again(wired: Wired) -> None:
    wired.socket.wait_connected()
    assert wired.socket.endpoint_calls() == 1
    wired.socket.drop()
    wired.socket.wait_connected(2)
    assert wired.socket.endpoint_calls() == 2  # a fresh URL for every connection
    event = message("help")
    assert wired.socket.ack(wired.socket.push(event))["code"] == 200
    message_id = str(event["event"]["message"]["message_id"])
    wait_for(lambda: bool(wired.feishu.replies(message_id)), WAIT_SECONDS)


@pytest.mark.process
def test_serve_with_the_readme_settings_answers_over_the_long_connection(
    feishu: FakeFeishu, socket: FakeLongConnection, tmp_path: Path, launch: Launch
) -> None:
    env = {**feishu_env(feishu, tmp_path), "GITHUB_API_URL": "http://127.0.0.1:9"}
    serve = launch(env)
    event = message("help")
    assert socket.ack(socket.push(event))["code"] == 200
    message_id = str(event["event"]["message"]["message_id"])
    wait_for(lambda: bool(feishu.replies(message_id)), WAIT_SECONDS)
    assert "feishu long connection open" in serve.log()
    assert serve.stop() in (0, -15)  # uvicorn re-raises SIGTERM after a clean shutdown
    assert "shutting down" in serve.log()  # the long connection closed on the way out
    assert APP_SECRET not in serve.log()


@pytest.mark.process
def test_serve_with_a_refused_secret_is_one_line_and_exit_2(
    feishu: FakeFeishu, socket: FakeLongConnection, tmp_path: Path, launch: Launch
) -> None:
    env = {**feishu_env(feishu, tmp_path), "FEISHU_APP_SECRET": "not-the-secret-81"}
    serve = launch(env)
    assert serve.wait_exit() == 2
    log = serve.log()
    assert "Traceback" not in log
    assert (
        log.strip()
        .splitlines()[-1]
        .startswith(
            "verl-week: error: invalid setting FEISHU_APP_SECRET: Feishu refused a long connection "
            "for app cli_test (code 10014: app secret invalid)"
        )
    )
    assert "not-the-secret-81" not in log
    assert socket.connections == []
