"""A dead connection is visible: `serve`'s app wired as `serve` wires it, with Feishu's long
connection (then Slack's Socket Mode) that the fake closes and never lets back. /healthz turns
unready once the connection has been down past CONNECTION_DOWN_SECONDS (degraded before), the
gauge `verl_week_connection_up` drops to 0, and the log says it closed; while it is up, each
inbound command is one log line (who, what, outcome)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import requests

from service import wiring
from service.settings import Settings
from tests.channels.conftest import settings_of
from tests.connect.test_feishu_longconn import feishu_env, message
from tests.connect.test_slack_socket_mode import readme_env
from tests.fakes.asgi import run_app
from tests.fakes.feishu import FakeFeishu, serve_feishu
from tests.fakes.feishu_longconn import WAIT_SECONDS, FakeLongConnection, long_connection
from tests.fakes.slack import running_fake_slack
from tests.fakes.slack_socket import slash_payload, socket_mode
from tests.waiting import wait_for

APP_SECRET = "longconn-app-secret-3c1d"  # the one feishu_env sets
DOWN_SECONDS = "1"


@contextmanager
def serving(settings: Settings) -> Iterator[str]:
    pipeline = wiring.build_pipeline(settings)
    try:
        with run_app(wiring.build_app(settings, pipeline)) as url:
            yield url
    finally:
        pipeline.store.engine.dispose()


def health(url: str) -> tuple[int, dict[str, Any]]:
    answer = requests.get(f"{url}/healthz", timeout=10)
    return answer.status_code, answer.json()


def gauge(url: str, platform: str) -> str:
    body = requests.get(f"{url}/metrics", timeout=10).text
    prefix = f'verl_week_connection_up{{platform="{platform}"}} '
    return next(
        (line.removeprefix(prefix) for line in body.splitlines() if line.startswith(prefix)), ""
    )


def logged(caplog: pytest.LogCaptureFixture, text: str) -> bool:
    return any(text in record.getMessage() for record in caplog.records)


@pytest.fixture
def feishu() -> Iterator[tuple[FakeFeishu, FakeLongConnection]]:
    with serve_feishu(app_secret=APP_SECRET) as fake, long_connection(fake) as socket:
        yield fake, socket


def test_a_feishu_long_connection_that_never_comes_back_makes_healthz_unready(
    feishu: tuple[FakeFeishu, FakeLongConnection],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake, socket = feishu
    env = {
        **feishu_env(fake, tmp_path),
        "GITHUB_API_URL": "http://127.0.0.1:9",
        "CONNECTION_DOWN_SECONDS": DOWN_SECONDS,
    }
    caplog.set_level("INFO")
    with serving(settings_of(env)) as url:
        socket.wait_connected()
        status, body = health(url)
        assert status == 200
        [link] = body["connections"]
        assert (link["platform"], link["state"], link["down_since"]) == (
            "feishu",
            "connected",
            None,
        )
        assert gauge(url, "feishu") == "1.0"
        event = message("help")
        assert socket.ack(socket.push(event))["code"] == 200
        wait_for(lambda: logged(caplog, "chat command help: help"), WAIT_SECONDS)
        [line] = [r for r in caplog.records if "chat command help" in r.getMessage()]
        assert (line.platform, line.user, line.outcome) == ("feishu", "ou_reader", "help")  # type: ignore[attr-defined]
        assert health(url)[1]["connections"][0]["last_event_at"] is not None

        socket.refuse_upgrade = (514, "the app has too many connections")  # never lets back
        socket.drop()
        wait_for(lambda: health(url)[0] == 503, WAIT_SECONDS, "healthz unready")
        status, body = health(url)
        [link] = body["connections"]
        assert link["state"] == "reconnecting"
        assert link["down_since"] is not None
        assert body["status"] == "unhealthy"
        assert "feishu connection reconnecting" in body["reasons"]
        assert gauge(url, "feishu") == "0.0"
        assert logged(caplog, "feishu long connection closed")
        wait_for(lambda: logged(caplog, "reconnect failed"), WAIT_SECONDS)
        assert len(socket.connections) == 1  # it never came back
        assert socket.endpoint_calls() >= 2  # and the service never stopped trying


def test_a_slack_socket_that_never_comes_back_makes_healthz_unready(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO")
    with running_fake_slack() as slack, socket_mode(slack) as sockets:
        env = {**readme_env(slack, tmp_path), "CONNECTION_DOWN_SECONDS": DOWN_SECONDS}
        with serving(settings_of(env)) as url:
            sockets.wait_connected()
            wait_for(lambda: logged(caplog, "slack socket mode connected"), WAIT_SECONDS)
            assert health(url)[0] == 200
            assert gauge(url, "slack") == "1.0"
            envelope = sockets.push("slash_commands", slash_payload("help", slack.response_url()))
            assert sockets.ack(envelope)["payload"]
            assert logged(caplog, "chat command help: help")

            sockets.app_token = "xapp-1-A0001-revoked"  # apps.connections.open refuses now
            sockets.wait_connected().close(code=1011, reason="server restarting")
            wait_for(lambda: health(url)[0] == 503, WAIT_SECONDS, "healthz unready")
            [link] = health(url)[1]["connections"]
            assert (link["platform"], link["state"]) == ("slack", "reconnecting")
            assert gauge(url, "slack") == "0.0"
            assert logged(caplog, "slack socket mode closed")


def test_a_connection_down_for_less_than_the_bound_is_only_degraded(
    feishu: tuple[FakeFeishu, FakeLongConnection], tmp_path: Path
) -> None:
    fake, socket = feishu
    env = {**feishu_env(fake, tmp_path), "GITHUB_API_URL": "http://127.0.0.1:9"}
    with serving(settings_of(env)) as url:  # the default bound: five minutes
        socket.wait_connected()
        socket.refuse_upgrade = (514, "the app has too many connections")
        socket.drop()
        wait_for(lambda: health(url)[1]["status"] == "degraded", WAIT_SECONDS, "degraded")
        status, body = health(url)
        assert status == 200
        assert body["connections"][0]["state"] == "reconnecting"
