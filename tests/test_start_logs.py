"""The log of a started `serve` holds no noise: bolt's "`token` will be unused" warning (the bot
token in the environment, as Docker, k8s and systemd pass it) and uvicorn's `color_message`
(ANSI escapes) reach neither JSON nor text lines."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harness import Fakes, fake_settings, running_fakes
from tests.processes import ServiceProcess

pytestmark = pytest.mark.process

ESCAPES = ("\x1b", "\\u001b", "\\x1b")


@pytest.fixture(scope="module")
def fakes() -> Iterator[Fakes]:
    with running_fakes() as running:
        yield running


def _start_log(fakes: Fakes, folder: Path, log_format: str) -> str:
    env = fake_settings(fakes, folder, LOG_FORMAT=log_format, SLACK_CHANNELS="C1")
    assert env["SLACK_BOT_TOKEN"]  # in the environment, as every deployment passes it
    service = ServiceProcess(env, folder, options=("--no-scheduler",)).start()
    try:
        service.wait_serving()
    finally:
        service.stop()
    return service.log()


@pytest.mark.parametrize("log_format", ["json", "text"])
def test_a_started_app_logs_no_bolt_token_warning_and_no_colour(
    fakes: Fakes, tmp_path: Path, log_format: str
) -> None:
    log = _start_log(fakes, tmp_path, log_format)
    assert "Uvicorn running on" in log or "Application startup complete" in log, log
    assert "will be unused" not in log
    assert "color_message" not in log
    for escape in ESCAPES:
        assert escape not in log
    if log_format == "json":
        for line in log.splitlines():
            assert "color_message" not in json.loads(line)
