"""Slack Socket Mode with the README's five-minute settings (`SLACK_BOT_TOKEN` +
`SLACK_APP_TOKEN`, no signing secret, no public URL): `serve` opens the websocket, answers a
slash command in the envelope's ack; a refused app token stops it in one line, exit 2."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.connect.conftest import Launch
from tests.fakes.slack import BOT_TOKEN, FakeSlack, running_fake_slack
from tests.fakes.slack_socket import APP_TOKEN, FakeSocketMode, slash_payload, socket_mode
from tests.processes import run_service

pytestmark = pytest.mark.process


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with running_fake_slack() as fake:
        yield fake


@pytest.fixture
def sockets(slack: FakeSlack) -> Iterator[FakeSocketMode]:
    with socket_mode(slack) as fake:
        yield fake


def readme_env(slack: FakeSlack, folder: Path, **extra: str) -> dict[str, str]:
    """The README's "Slack, Socket Mode" block, pointed at the fakes."""
    return {
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_APP_TOKEN": APP_TOKEN,
        "SLACK_CHANNELS": "C1:en",
        "SLACK_API_URL": slack.api_url,
        "DATABASE_URL": f"sqlite:///{folder}/verl-week.db",
        "GITHUB_API_URL": "http://127.0.0.1:9",  # never asked: the week comes from --sample
        **extra,
    }


def texts(blocks: list[dict[str, object]]) -> str:
    return " ".join(str(block) for block in blocks)


def test_serve_answers_a_slash_command_over_socket_mode(
    slack: FakeSlack, sockets: FakeSocketMode, tmp_path: Path, launch: Launch
) -> None:
    env = readme_env(slack, tmp_path, DIGEST_LANGUAGE="en")
    stored = run_service(["digest", "--sample"], tmp_path, env, inherit=False)
    assert stored.returncode == 0, stored.stderr
    serve = launch(env)
    sockets.wait_connected()
    [opened] = slack.api.calls("POST", "/api/apps.connections.open")
    assert opened.header("authorization") == f"Bearer {APP_TOKEN}"
    envelope = sockets.push("slash_commands", slash_payload("risks 2026-W04", slack.response_url()))
    ack = sockets.ack(envelope)
    payload = ack["payload"]
    assert payload["response_type"] == "ephemeral"
    assert "2026-W04" in payload["text"]
    assert "risk" in texts(payload["blocks"]).lower()
    assert "slack socket mode connected" in serve.log()
    # no signing secret: the HTTP endpoint is not served (an unsigned request can't pass);
    # the socket answers before uvicorn listens, so wait for the HTTP side first
    serve.wait_serving()
    answer = requests.post(f"http://127.0.0.1:{serve.port}/slack/events", data=b"x", timeout=10)
    assert answer.status_code == 503
    assert serve.stop() in (0, -15)  # uvicorn re-raises SIGTERM after a clean shutdown
    assert "shutting down" in serve.log()  # the websocket closed on the way out


def test_help_over_socket_mode_then_a_second_command(
    slack: FakeSlack, sockets: FakeSocketMode, tmp_path: Path, launch: Launch
) -> None:
    launch(readme_env(slack, tmp_path))
    first = sockets.ack(sockets.push("slash_commands", slash_payload("help", slack.response_url())))
    assert first["payload"]["blocks"][0]["text"]["text"] == "verl-week commands"
    assert "risks" in texts(first["payload"]["blocks"])
    second = sockets.ack(
        sockets.push("slash_commands", slash_payload("pr nope", slack.response_url()))
    )
    assert second["payload"]["text"]  # a usage answer, never silence


@pytest.mark.parametrize(
    ("token", "code"),
    [("xapp-1-A0001-9999-revoked", "invalid_auth"), (BOT_TOKEN, "not_allowed_token_type")],
)
def test_a_refused_app_token_is_one_line_and_exit_2(
    slack: FakeSlack,
    sockets: FakeSocketMode,
    tmp_path: Path,
    launch: Launch,
    token: str,
    code: str,
) -> None:
    serve = launch(readme_env(slack, tmp_path, SLACK_APP_TOKEN=token))
    assert serve.wait_exit() == 2
    log = serve.log()
    assert "Traceback" not in log
    assert "internal error" not in log
    last = log.strip().splitlines()[-1]
    assert last.startswith(
        f"verl-week: error: invalid setting SLACK_APP_TOKEN: Slack refused SLACK_APP_TOKEN ({code})"
    )
    assert "connections:write" in last
    assert token not in log
    assert sockets.connections == []
