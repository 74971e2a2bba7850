"""Monthly and date-range digests on the recorded verl weeks, end to end: the service wired from
Settings (tests/channels/conftest.py) against FakeGitHub serving 2026-W03 and 2026-W04 (all the
January PRs its world holds), FakeSlack and FakeFeishu. The command line builds them in every
format and both languages, the web app serves their pages, and the monthly cadence posts a
month once to the destinations that have it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import requests

from service import wiring
from service.core.periods import parse_period, period_of_label
from service.pipeline.jobs import build_week
from service.render.slack import ACTION_RISKS
from service.runtime.cadences import MONTHLY_JOB_ID
from service.runtime.scheduler import JOB_ID, _run_registered
from tests.channels.conftest import (
    SLACK_ADMIN,
    SLACK_SECRET,
    TZ,
    Wired,
    card_text,
    chinese,
    pr_numbers,
    wait_for,
    wired_service,
)
from tests.fakes.signing import sign_slack
from tests.fakes.slack import action_body, form_body
from tests.github.conftest import week_data

pytestmark = pytest.mark.process  # `verl-week` runs as a subprocess (Wired.cli)

MONTH = "2026-01"
RANGE = "2026-01-12..2026-01-25"
W03, W04 = week_data("2026-W03"), week_data("2026-W04")
JANUARY = {p["number"] for p in W03["pulls"]} | {p["number"] for p in W04["pulls"]}
# 2026-02-03 in Shanghai: the last complete month is 2026-01, its tick (the 1st, 10:00) passed
IN_FEBRUARY = datetime(2026, 2, 3, 4, 0, tzinfo=UTC)
MONTHLY = "slack:C_SUB,feishu:oc_group3:en"


@pytest.fixture(scope="module")
def january(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Wired]:
    """The service, its GitHub holding the two recorded January weeks, monthly destinations
    C_SUB (zh) and oc_group3 (en)."""
    folder = tmp_path_factory.mktemp("january")
    with wired_service(folder, DIGEST_MONTHLY_DESTINATIONS=MONTHLY) as service:
        for raw in W03["pulls"]:
            service.github.add_pr(raw)
        yield service


def _json(result: object) -> dict[str, object]:
    assert getattr(result, "returncode", None) == 0, getattr(result, "stderr", "")
    loaded: dict[str, object] = json.loads(getattr(result, "stdout", ""))
    return loaded


def _numbers(digest: dict[str, object]) -> set[int]:
    return {int(p["number"]) for p in digest["prs"]}  # type: ignore[attr-defined]


def test_a_month_and_a_range_from_github_hold_their_prs(january: Wired) -> None:
    month = _json(january.cli("digest", "--period", MONTH, "--format", "json"))
    assert (month["week"], month["start"], month["end"]) == (
        MONTH,
        "2026-01-01T00:00:00+08:00",
        "2026-02-01T00:00:00+08:00",
    )
    assert _numbers(month) == JANUARY
    assert month["stats"]["prs"] == len(JANUARY)  # type: ignore[index]
    spans = _json(
        january.cli("digest", "--since", "2026-01-12", "--until", "2026-01-25", "--format", "json")
    )
    assert spans["week"] == RANGE
    assert _numbers(spans) == JANUARY
    # the range's label names the same period
    again = _json(january.cli("digest", "--period", RANGE, "--format", "json"))
    assert again["week"] == RANGE
    assert _numbers(again) == JANUARY
    only_w04 = _json(
        january.cli("digest", "--period", "2026-01-19..2026-01-25", "--format", "json")
    )
    assert _numbers(only_w04) == {p["number"] for p in W04["pulls"]}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_format_of_a_month_in_both_languages(january: Wired, lang: str) -> None:
    outputs = {
        fmt: january.cli("digest", "--period", MONTH, "--format", fmt, "--lang", lang)
        for fmt in ("markdown", "html", "json", "slack", "feishu")
    }
    for fmt, result in outputs.items():
        assert result.returncode == 0, (fmt, result.stderr)
    markdown = outputs["markdown"].stdout
    assert chinese(markdown) is (lang == "zh")
    assert "5033" in markdown or any(f"#{n}" in markdown for n in JANUARY)
    assert f"/reports/volcengine/verl/{MONTH}" in outputs["slack"].stdout
    assert f"/reports/volcengine/verl/{MONTH}" in outputs["feishu"].stdout
    assert json.loads(outputs["feishu"].stdout)["schema"] == "2.0"
    assert json.loads(outputs["slack"].stdout)["blocks"][0]["type"] == "header"
    assert "<html" in outputs["html"].stdout


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--period", "2026-13"], "not a month"),
        (["--period", "2099-01"], "2099-01 has not begun yet"),
        (["--since", "2026-01-25", "--until", "2026-01-12"], "ends before it starts"),
        (["--since", "2024-01-01", "--until", "2025-06-30"], "at most 366"),
        (["--since", "2026-01-12"], "--since and --until go together"),
        (["--since", "2026-01-32", "--until", "2026-02-02"], "bad --since"),
        (["--period", "2026-01", "--week", "2026-W04"], "give one of them"),
        (["--period", "fortnight"], "bad period 'fortnight'"),
    ],
)
def test_bad_periods_are_one_line_and_exit_2(january: Wired, args: list[str], needle: str) -> None:
    result = january.cli("digest", *args)
    assert result.returncode == 2, result.stderr
    assert needle in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_the_web_serves_month_and_range_pages(january: Wired) -> None:
    for label in (MONTH, RANGE, "2026-W04"):
        args = ("--period", label) if "W" not in label else ("--week", label)
        assert january.cli("digest", *args, "--format", "json").returncode == 0
    base = f"{january.url}/reports/volcengine/verl"
    page = requests.get(f"{base}/{MONTH}", timeout=15)
    assert page.status_code == 200
    assert "text/html" in page.headers["content-type"]
    assert chinese(page.text)
    # a month never built (other tests of this module share the service and build both
    # languages of January, in any order)
    unbuilt = requests.get(f"{base}/2025-12", timeout=15)
    assert unbuilt.status_code == 404
    stored = requests.get(f"{base}/{RANGE}.json", timeout=15)
    assert stored.status_code == 200
    assert stored.json()["week"] == RANGE
    assert _numbers(stored.json()) == JANUARY
    markdown = requests.get(f"{base}/{RANGE}.md", timeout=15)
    assert markdown.status_code == 200
    assert RANGE in markdown.text
    week = requests.get(f"{base}/2026-W04.json", timeout=15)  # week URLs as they were
    assert week.status_code == 200
    assert week.json()["week"] == "2026-W04"
    for bad in ("2026-13", "2026-01-25..2026-01-12", "2026-01..2026-02", "2026-1"):
        assert requests.get(f"{base}/{bad}", timeout=15).status_code == 404


def test_the_monthly_cadence_posts_a_month_once(tmp_path: Path) -> None:
    with wired_service(tmp_path, DIGEST_MONTHLY_DESTINATIONS=MONTHLY) as service:
        for raw in W03["pulls"]:
            service.github.add_pr(raw)
        service.pipeline.clock = lambda: IN_FEBRUARY
        weekly = wiring.build_weekly_scheduler(service.settings, service.pipeline)
        assert [c.job_id for c in weekly.cadences] == [JOB_ID, MONTHLY_JOB_ID]
        monthly = weekly.cadence(MONTHLY_JOB_ID)
        owed = monthly.owed()
        assert owed is not None
        assert owed.label == MONTH
        weekly.start(catch_up=False, paused=True)
        try:
            assert weekly.scheduler.get_job(MONTHLY_JOB_ID) is not None
            fire = weekly.scheduler.get_job(MONTHLY_JOB_ID).next_run_time
            assert (fire.day, fire.hour, fire.minute) == (1, 10, 0)
            _run_registered(MONTHLY_JOB_ID)  # what APScheduler calls on the 1st
            slack_cards = service.slack.messages("C_SUB")
            feishu_cards = service.feishu.posted("oc_group3")
            assert len(slack_cards) == 1
            assert len(feishu_cards) == 1
            assert chinese(json.dumps(slack_cards[0], ensure_ascii=False))
            assert not chinese(json.dumps(feishu_cards[0].card, ensure_ascii=False))
            assert MONTH in json.dumps(slack_cards[0])
            assert MONTH in json.dumps(feishu_cards[0].card)
            # the weekly destinations get no monthly card
            assert service.slack.messages("C_ZH") == []
            assert service.feishu.posted("oc_group1") == []
            assert monthly.owed() is None  # the month is done: nothing to catch up
            _run_registered(MONTHLY_JOB_ID)  # a second tick of the same month posts nothing
            assert len(service.slack.messages("C_SUB")) == 1
            assert len(service.feishu.posted("oc_group3")) == 1
            # and the weekly job still owes its week, apart from the month
            week = weekly.owed()
            assert week is not None
            assert week.kind == "week"
        finally:
            weekly.shutdown(wait=True, timeout=30)


def _build(service: Wired, label: str) -> None:
    """Collect and store a period in-process, as `verl-week digest` would."""
    build_week(service.pipeline, "volcengine/verl", period_of_label(label, TZ))


def test_month_and_range_commands_over_signed_slack_and_feishu_requests(january: Wired) -> None:
    _build(january, MONTH)
    _build(january, RANGE)
    english = january.slash("month 2026-01", channel="C_EN")
    text = card_text(english)
    assert MONTH in text
    assert not chinese(text)
    assert set(pr_numbers(text)) & JANUARY
    assert f"/reports/volcengine/verl/{MONTH}" in text
    top = card_text(january.slash(f"top 3 {RANGE}", channel="C_ZH"))
    assert chinese(top)
    assert RANGE in top
    assert len(set(pr_numbers(top)) & JANUARY) == 3
    risks = card_text(january.slash("risks 2026-01 high", channel="C_EN"))
    assert MONTH in risks
    assert "this month" in text  # worded for a month, not a week
    card = card_text(january.feishu_say("month 2026-01"))  # oc_group1: zh
    assert chinese(card)
    assert MONTH in card
    assert "本月" in card
    assert "本周" not in card
    assert set(pr_numbers(card)) & JANUARY
    summary = card_text(january.feishu_say(f"summary {RANGE}", chat_id="oc_group2"))  # en
    assert not chinese(summary)
    assert RANGE in summary


def test_month_words_and_bad_periods_in_chat(january: Wired) -> None:
    last_month = parse_period("month", TZ, datetime.now(UTC)).label
    missing = card_text(january.slash("month", channel="C_EN"))
    assert f"no digest of volcengine/verl for {last_month}" in missing
    bad = card_text(january.slash("month 2026-13", channel="C_EN"))
    assert "`2026-13` is not a period" in bad
    inverted = card_text(january.slash("top 2026-01-25..2026-01-12", channel="C_ZH"))
    assert "不是有效的时间段" in inverted
    ahead = card_text(january.slash("month 2099-01", channel="C_EN"))
    assert "`2099-01` is not over yet" in ahead
    assert "Traceback" not in bad + inverted + ahead


def test_posting_a_month_is_idempotent_per_period(january: Wired) -> None:
    first = january.cli("post", "--period", MONTH, "--to", "slack:C_OTHER")
    assert first.returncode == 0, first.stderr
    assert "slack:C_OTHER\tposted" in first.stdout
    cards = january.slack.messages("C_OTHER")
    assert len(cards) == 1
    assert "本月" in card_text(cards[0])
    again = january.cli("post", "--period", MONTH, "--to", "slack:C_OTHER")
    assert again.returncode == 0, again.stderr
    assert "slack:C_OTHER\tskipped" in again.stdout
    assert len(january.slack.messages("C_OTHER")) == 1  # the same month: nothing new
    span = january.cli("post", "--period", RANGE, "--to", "slack:C_OTHER")
    assert span.returncode == 0, span.stderr
    assert len(january.slack.messages("C_OTHER")) == 2  # another period: its own card


def test_the_risks_button_of_a_month_card_answers_about_the_month(january: Wired) -> None:
    assert january.cli("post", "--period", MONTH, "--to", "slack:C_EN").returncode == 0
    [card] = january.slack.messages("C_EN")
    [button] = [
        e for b in card["blocks"] if b["type"] == "actions" for e in b["elements"]
        if e.get("action_id") == ACTION_RISKS
    ]  # fmt: skip
    hook = january.slack.response_url()
    payload = {
        "type": "block_actions",
        "team": {"id": "T0001"},
        "user": {"id": "UPLAIN"},
        "api_app_id": "A0001",
        "channel": {"id": "C_EN"},
        "container": {"type": "message", "channel_id": "C_EN", "message_ts": card["ts"]},
        "response_url": hook,
        "trigger_id": "1.2.3",
        "actions": [{"action_id": ACTION_RISKS, "type": "button", "value": button["value"]}],
    }
    body = action_body(payload)
    response = requests.post(
        f"{january.url}/slack/events", data=body, headers=sign_slack(body, SLACK_SECRET), timeout=15
    )
    assert response.status_code == 200
    wait_for(lambda: len(january.slack.responses_to(hook)) == 1)
    text = card_text(january.slack.responses_to(hook)[0]["blocks"])
    assert MONTH in text  # the month's risks, not the newest week's
    assert "2026-W" not in text


def test_a_missed_month_is_caught_up_once_at_start(tmp_path: Path) -> None:
    with wired_service(tmp_path, DIGEST_MONTHLY_DESTINATIONS=MONTHLY) as service:
        for raw in W03["pulls"]:
            service.github.add_pr(raw)
        service.pipeline.clock = lambda: IN_FEBRUARY  # the 1st's tick passed while it was down
        for _restart in range(2):
            weekly = wiring.build_weekly_scheduler(service.settings, service.pipeline)
            weekly.start(catch_up=True, paused=True)
            try:
                weekly.join_catch_up(timeout=120)
            finally:
                weekly.shutdown(wait=True, timeout=60)
            months = service.slack.messages("C_SUB")
            assert len(months) == 1  # once, and not again after the restart
            assert MONTH in card_text(months[0])
            assert len(service.feishu.posted("oc_group3")) == 1


def test_doctor_checks_the_monthly_destinations(january: Wired) -> None:
    january.slack.add_channel("C_MONTHLY_PRIVATE", member=False, public=False)
    done = january.cli(
        "doctor", DIGEST_MONTHLY_DESTINATIONS="slack:C_MONTHLY_PRIVATE,feishu:oc_group3"
    )
    assert done.returncode == 1, done.stdout
    problems = [line for line in done.stdout.splitlines() if line.startswith("problem")]
    assert len(problems) == 1, done.stdout
    assert "C_MONTHLY_PRIVATE: not found" in problems[0]
    assert any("oc_group3" in line for line in done.stdout.splitlines() if line.startswith("ok"))
    bad = january.cli("doctor", DIGEST_MONTHLY_DESTINATIONS="email:me")
    assert bad.returncode == 2
    assert "DIGEST_MONTHLY_DESTINATIONS" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_an_admin_regenerates_a_month_and_its_posted_card_is_edited(tmp_path: Path) -> None:
    with wired_service(tmp_path) as service:
        for raw in W03["pulls"]:
            service.github.add_pr(raw)
        assert service.cli("post", "--period", MONTH, "--to", "slack:C_EN").returncode == 0
        [card] = service.slack.messages("C_EN")
        hook = service.slack.response_url()
        body = form_body(
            {
                "team_id": "T0001",
                "channel_id": "C_EN",
                "user_id": SLACK_ADMIN,
                "command": "/verl-week",
                "text": f"regenerate {MONTH}",
                "api_app_id": "A0001",
                "response_url": hook,
                "trigger_id": "1.2.3",
            }
        )
        ack = requests.post(
            f"{service.url}/slack/events",
            data=body,
            headers=sign_slack(body, SLACK_SECRET),
            timeout=15,
        )
        assert ack.status_code == 200
        assert f"Regenerating volcengine/verl {MONTH}" in ack.json()["text"]
        wait_for(lambda: len(service.slack.responses_to(hook)) == 1, timeout=60)
        assert f"Regenerated volcengine/verl {MONTH}" in service.slack.responses_to(hook)[0]["text"]
        assert service.slack.messages("C_EN")[0]["edits"] == 1  # edited in place, not reposted
        assert len(service.slack.messages("C_EN")) == 1
        assert card["ts"] == service.slack.messages("C_EN")[0]["ts"]
