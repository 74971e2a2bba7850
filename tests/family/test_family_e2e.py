"""The verl family end to end, in process, on the recorded 2026-W34 served by one fake GitHub:
the command line builds the family digest in every format, a Slack and a Feishu command answer
across the family (`pr verl-omni#398`, `pr 7347`, `risks`, `top`), a channel subscribes to the
family by command, and the scheduled run posts one card per channel, never one per repository."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus

import pytest
import requests

from service import wiring
from service.cli import build_parser
from service.pipeline.jobs import run_scheduled
from service.settings import Settings
from tests.fakes import feishu_events
from tests.fakes.asgi import run_app
from tests.family.conftest import FAMILY, WEEK, family_service
from tests.harness import FEISHU_TOKEN, SLACK_ADMIN, Fakes, slack_command
from tests.waiting import wait_for

# Tuesday of 2026-W35 in Shanghai: the last complete week is 2026-W34
IN_W35 = datetime(2026, 8, 25, 4, 0, tzinfo=UTC)
OMNI_398 = "https://github.com/verl-project/verl-omni/pull/398"
CHANNELS = {"SLACK_CHANNELS": "C_ZH,C_EN:en", "FEISHU_CHAT_IDS": "oc_group1"}


@pytest.fixture
def family(tmp_path: Path) -> Iterator[tuple[Fakes, Any, Any]]:
    with family_service(tmp_path, **CHANNELS) as (fakes, settings, pipeline):
        for channel in ("C_ZH", "C_EN", "C_SUB"):
            fakes.slack.add_channel(channel)
        yield fakes, settings, pipeline


def _cli(capsys: pytest.CaptureFixture[str], settings: Settings, *args: str) -> str:
    """A verb of `verl-week` run in process on the settings (as `main` runs it, without
    setting up the process's logging)."""
    parsed = build_parser().parse_args(list(args))
    assert parsed.run(parsed, settings) == 0
    return capsys.readouterr().out


def test_the_cli_builds_the_family_in_every_format(
    family: tuple[Fakes, Any, Any],
    capsys: pytest.CaptureFixture[str],
) -> None:
    _fakes, settings, _pipeline = family
    out = {
        fmt: _cli(capsys, settings, "digest", "--week", WEEK, "--format", fmt, "--no-llm")
        for fmt in ("markdown", "html", "json", "slack", "feishu")
    }
    assert f"[verl-omni#398]({OMNI_398})" in out["markdown"]
    # the discussion link searches every repository of the family, not the primary's alone
    repos = "+".join(f"repo%3A{quote_plus(repo)}" for repo in FAMILY)
    assert f"/pulls?q=is%3Apr+is%3Amerged+{repos}+merged%3A2026-08-17" in out["markdown"]
    assert f'href="{OMNI_398}"' in out["html"]
    assert f"<{OMNI_398}|verl-omni#398>" in out["slack"]
    assert f"[verl-omni#398]({OMNI_398})" in out["feishu"]
    data = json.loads(out["json"])
    assert data["repo"] == "verl-project"
    assert [r["repo"] for r in data["repos"]] == list(FAMILY)
    assert data["repos"][2]["quiet"] is True
    assert {(c["pr"], c["repo"]) for c in data["crossings"]} >= {
        (7347, "verl-project/verl-omni"),
        (7469, "verl-project/verl-vla"),
    }
    # the same family named by its repositories, and by --repos
    listed = _cli(
        capsys,
        settings,
        "digest",
        "--week",
        WEEK,
        "--format",
        "json",
        "--repos",
        ",".join(FAMILY),
        "--no-llm",
    )
    assert json.loads(listed)["stats"] == data["stats"]
    # `pr verl-omni#398` and `risks` on the command line answer across the family
    pr = _cli(capsys, settings, "pr", "verl-omni#398", "--week", WEEK)
    assert "verl-omni#398" in pr
    assert "qwen-image" in pr.lower()
    risks = _cli(capsys, settings, "risks", "--week", WEEK)
    assert "verl-omni#" in risks


def _slack(url: str, fakes: Fakes, text: str, channel: str = "C_EN", user: str = "UPLAIN") -> str:
    response = slack_command(url, fakes.slack, text, channel=channel, user=user)
    assert response.status_code == 200, response.text
    return json.dumps(response.json(), ensure_ascii=False)


def _feishu(url: str, fakes: Fakes, text: str, sender: str = "ou_reader") -> str:
    event = feishu_events.message_event(
        f"@_user_1 {text}", token=FEISHU_TOKEN, sender=sender, chat_id="oc_group1"
    )
    message_id = event["event"]["message"]["message_id"]
    response = requests.post(f"{url}/feishu/events", json=event, timeout=15)
    assert response.status_code == 200, response.text
    wait_for(lambda: bool(fakes.feishu.replies(message_id)))
    return json.dumps(fakes.feishu.replies(message_id)[0].card, ensure_ascii=False)


def test_commands_answer_across_the_family_on_both_platforms(
    family: tuple[Fakes, Any, Any],
) -> None:
    fakes, settings, pipeline = family
    pipeline.clock = lambda: IN_W35
    [result] = run_scheduled(pipeline)
    assert result.repo == "verl-project"
    app = wiring.build_app(settings, pipeline)
    with run_app(app) as url:
        omni = _slack(url, fakes, f"pr verl-omni#398 {WEEK}")
        assert "verl-omni#398" in omni
        assert "qwen-image" in omni.lower()
        primary = _slack(url, fakes, f"pr 7347 {WEEK}")  # alone: the first repository's
        assert "#7347" in primary
        assert "verl-omni#7347" not in primary
        top = _slack(url, fakes, f"top 10 {WEEK}")
        assert "verl-omni#" in top
        assert "10000" not in top  # no family key is shown
        risks = _slack(url, fakes, f"risks {WEEK}")
        assert "verl-omni#" in risks
        assert "#10000" not in risks, risks[risks.find("#10000") - 300 : risks.find("#10000") + 50]
        unknown = _slack(url, fakes, f"pr verl-nope#1 {WEEK}")
        assert "verl-nope" in unknown
        card = _feishu(url, fakes, f"pr verl-vla#21 {WEEK}")
        assert "verl-vla#21" in card
        feishu_top = _feishu(url, fakes, f"top {WEEK}")
        assert "verl-omni#" in feishu_top
        assert "#10000" not in feishu_top
        page = requests.get(f"{url}/reports/verl-project/{WEEK}", timeout=15)
        assert page.status_code == 200
        assert f'href="{OMNI_398}"' in page.text
        # a channel subscribes to the family by command
        subscribed = _slack(url, fakes, "subscribe verl-project", channel="C_SUB", user=SLACK_ADMIN)
        assert "verl-project" in subscribed


def test_the_scheduled_run_posts_one_card_per_channel(family: tuple[Fakes, Any, Any]) -> None:
    fakes, _settings, pipeline = family
    pipeline.store.subscribe("slack", "C_SUB", "verl-project", "admin")
    pipeline.clock = lambda: IN_W35
    results = run_scheduled(pipeline)
    assert [r.repo for r in results] == ["verl-project"]
    assert results[0].outcome in ("ok", "partial"), results[0].error
    for channel in ("C_ZH", "C_EN", "C_SUB"):
        [card] = fakes.slack.messages(channel)  # one card for the family, not four
        text = json.dumps(card, ensure_ascii=False)
        assert "verl-omni#" in text
        assert "verl-vla" in text
    assert len(fakes.feishu.posted("oc_group1")) == 1
    again = run_scheduled(pipeline)  # the same week again: nothing new is posted
    assert again[0].repo == "verl-project"
    assert all(len(fakes.slack.messages(c)) == 1 for c in ("C_ZH", "C_EN", "C_SUB"))
