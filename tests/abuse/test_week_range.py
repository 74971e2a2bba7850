"""Weeks no datetime can hold (issue 19, item 8): `9999-W52` ends in year 10000 and `0001-W01`
starts before year 1 at UTC; both were an "internal error" in chat and exit 1 on the command
line. Chat answers what weeks it can read (Slack and Feishu, en and zh); the CLI exits 2 with
one line and no traceback."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.abuse.conftest import Service, feishu_message, said, snapshot
from tests.processes import run_cli

OUT_OF_RANGE = ["9999-W52", "0001-W01", "9999-W01", "1969-W52"]


@pytest.mark.parametrize("week", OUT_OF_RANGE)
@pytest.mark.parametrize("verb", ["risks", "week", "pr 4280", "summary", "top 3"])
def test_chat_answers_an_out_of_range_week_clearly(service: Service, week: str, verb: str) -> None:
    before = snapshot(service.store)
    response = service.command(f"{verb} {week}")
    assert response.status_code == 200
    text = said(response)
    assert f"`{week}` is outside the weeks I can read" in text
    assert "1970 to 9998" in text
    assert "incident" not in text
    assert snapshot(service.store) == before


def test_feishu_answers_an_out_of_range_week(service: Service) -> None:
    event = feishu_message("week 0001-W01")
    assert service.feishu_post(event).status_code == 200
    reply = service.replies_to(event["event"]["message"]["message_id"])
    assert "is outside the weeks I can read" in reply
    assert "incident" not in reply


def cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, tmp_path, DATABASE_URL=f"sqlite:///{tmp_path}/cli.db")


@pytest.mark.process
@pytest.mark.parametrize("week", ["9999-W52", "0001-W01"])
@pytest.mark.parametrize("command", ["digest", "risks", "pr"])
def test_the_cli_exits_2_with_one_line(tmp_path: Path, week: str, command: str) -> None:
    extra = ["4280"] if command == "pr" else []
    done = cli(tmp_path, command, *extra, "--sample", "--week", week)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines == [f"verl-week: error: {week} is out of range: weeks of 1970 to 9998 only"]
    assert done.stdout == ""
