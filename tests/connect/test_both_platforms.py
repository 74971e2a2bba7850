"""One `serve` with both no-public-URL set-ups of the README at once: Slack over Socket Mode and
Feishu over its long connection; and when Feishu refuses the secret, the Slack websocket that was
already open does not keep serve alive: it stops in one line (exit 2)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.connect.conftest import Launch
from tests.connect.test_feishu_longconn import feishu_env, message
from tests.connect.test_slack_socket_mode import readme_env
from tests.fakes.feishu import FakeFeishu, serve_feishu
from tests.fakes.feishu_longconn import WAIT_SECONDS, FakeLongConnection, long_connection
from tests.fakes.slack import FakeSlack, running_fake_slack
from tests.fakes.slack_socket import FakeSocketMode, slash_payload, socket_mode
from tests.waiting import wait_for

pytestmark = pytest.mark.process

APP_SECRET = "longconn-app-secret-3c1d"  # the one feishu_env sets


@pytest.fixture
def fakes() -> Iterator[tuple[FakeSlack, FakeSocketMode, FakeFeishu, FakeLongConnection]]:
    with (
        running_fake_slack() as slack,
        socket_mode(slack) as sockets,
        serve_feishu(app_secret=APP_SECRET) as feishu,
        long_connection(feishu) as longconn,
    ):
        yield slack, sockets, feishu, longconn


def test_slack_and_feishu_without_a_public_url(
    fakes: tuple[FakeSlack, FakeSocketMode, FakeFeishu, FakeLongConnection],
    tmp_path: Path,
    launch: Launch,
) -> None:
    slack, sockets, feishu, longconn = fakes
    env = {**readme_env(slack, tmp_path), **feishu_env(feishu, tmp_path)}
    launch(env)
    ack = sockets.ack(sockets.push("slash_commands", slash_payload("help", slack.response_url())))
    assert ack["payload"]["blocks"]
    event = message("help")
    assert longconn.ack(longconn.push(event))["code"] == 200
    message_id = str(event["event"]["message"]["message_id"])
    wait_for(lambda: bool(feishu.replies(message_id)), WAIT_SECONDS)


def test_a_refused_feishu_secret_stops_serve_with_slack_already_connected(
    fakes: tuple[FakeSlack, FakeSocketMode, FakeFeishu, FakeLongConnection],
    tmp_path: Path,
    launch: Launch,
) -> None:
    slack, sockets, feishu, longconn = fakes
    env = {**readme_env(slack, tmp_path), **feishu_env(feishu, tmp_path)}
    serve = launch({**env, "FEISHU_APP_SECRET": "not-it-5"})
    assert serve.wait_exit() == 2
    last = serve.log().strip().splitlines()[-1]
    assert last.startswith("verl-week: error: invalid setting FEISHU_APP_SECRET: Feishu refused")
    assert len(sockets.connections) == 1  # Slack had connected before Feishu was asked
    assert longconn.connections == []


@pytest.mark.parametrize(
    ("env", "line"),
    [
        (
            {"SLACK_APP_TOKEN": "xapp-1-A0001-1-x"},
            "invalid setting SLACK_APP_TOKEN: Socket Mode needs SLACK_BOT_TOKEN too (to answer)",
        ),
        (
            {"FEISHU_EVENT_MODE": "websocket"},
            "invalid setting FEISHU_EVENT_MODE: websocket needs "
            "FEISHU_APP_ID and FEISHU_APP_SECRET",
        ),
    ],
)
def test_a_websocket_without_what_it_needs_stops_serve(
    env: dict[str, str], line: str, tmp_path: Path, launch: Launch
) -> None:
    serve = launch({"DATABASE_URL": f"sqlite:///{tmp_path}/v.db", **env})
    assert serve.wait_exit() == 2
    assert serve.log().strip().splitlines()[-1] == f"verl-week: error: {line}"
