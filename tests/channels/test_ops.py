"""Operations: GET /metrics in the Prometheus text format (read back with prometheus-client's own
parser), /livez apart from /healthz, and the scheduler process answering both too."""

from __future__ import annotations

import signal
from datetime import UTC, datetime
from pathlib import Path

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from service.core.weeks import parse_week
from service.pipeline.jobs import regenerate, run_week
from tests.channels.conftest import (
    REPO,
    SLACK_ADMIN,
    TZ,
    WEEK,
    Wired,
    card_text,
    wired_service,
)
from tests.fakes.openai import API_KEY, MODEL, recorded_answer, serve_model
from tests.periods import period
from tests.processes import ServiceProcess
from tests.waiting import wait_for

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(url: str) -> tuple[Samples, set[str]]:
    response = requests.get(f"{url}/metrics", timeout=10)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    samples: Samples = {}
    families = set()
    for family in text_string_to_metric_families(response.text):
        families.add(family.name)
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples, families


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_metrics_count_runs_posts_github_and_commands(wired: Wired) -> None:
    window = parse_week(WEEK, TZ, datetime.now(UTC))
    result = run_week(wired.pipeline, REPO, window, trigger="cli")
    assert result.outcome == "ok"
    for text in ("top 3", "risks", "frobnicate"):
        wired.slash(text)
    wired.feishu_say("top 3", chat_id="oc_group2")
    wired.feishu_say("regenerate", chat_id="oc_group2")  # not an admin: denied

    # a command is counted once its reply has gone out, so the count may trail the reply
    def all_counted() -> bool:
        samples = scrape(wired.url)[0]
        total = sum(v for (name, _), v in samples.items() if name == "verl_week_commands_total")
        return total >= 5

    wait_for(all_counted)
    samples, families = scrape(wired.url)

    assert value(samples, "verl_week_runs_total", repo=REPO, trigger="cli", outcome="ok") == 1
    assert value(samples, "verl_week_run_duration_seconds_count", repo=REPO) == 1
    assert value(samples, "verl_week_last_run_timestamp_seconds", repo=REPO) > 0
    assert value(samples, "verl_week_posts_total", platform="slack", action="posted") == 2
    assert value(samples, "verl_week_posts_total", platform="feishu", action="posted") == 2
    assert value(samples, "verl_week_posts_total", platform="feishu-webhook", action="posted") == 1

    graphql = len(wired.github.calls("POST", "/graphql"))
    rest = len([r for r in wired.github.calls() if r.method == "GET"])
    assert graphql > 0
    assert value(samples, "verl_week_github_requests_total", api="graphql", status="200") == graphql
    sent_rest = sum(
        v for (name, labels), v in samples.items()
        if name == "verl_week_github_requests_total" and ("api", "rest") in labels
    )  # fmt: skip
    assert sent_rest == rest
    remaining = value(samples, "verl_week_github_rate_limit_remaining", resource="core")
    assert remaining == wired.github.rate_remaining  # the last answer's header

    for kind, count in (("top", 1), ("risks", 1), ("usage_error", 1)):
        assert value(samples, "verl_week_commands_total", platform="slack", kind=kind) == count
    assert value(samples, "verl_week_commands_total", platform="feishu", kind="top") == 1
    assert value(samples, "verl_week_commands_total", platform="feishu", kind="denied") == 1
    assert value(samples, "verl_week_command_duration_seconds_count", platform="slack") == 3
    assert (
        value(samples, "verl_week_command_duration_seconds_bucket", platform="slack", le="3.0") == 3
    )
    assert "verl_week_model_calls" in families  # declared; counted only when a model is configured


def test_metrics_count_model_calls_by_outcome_and_their_tokens(tmp_path: Path) -> None:
    good = {lang: recorded_answer(f"2026-W04.good.{lang}") for lang in ("zh", "en")}
    with serve_model() as model:
        model.answer("Sure! Here is this week's report: …")  # the first call: not JSON
        model.by_language(good)
        llm = {"LLM_BASE_URL": model.url, "LLM_MODEL": MODEL, "LLM_API_KEY": API_KEY}
        with wired_service(tmp_path, **llm) as wired:
            window = parse_week(WEEK, TZ, datetime.now(UTC))
            run_week(wired.pipeline, REPO, window, trigger="cli")  # zh: invalid; en: ok
            regenerate(
                wired.pipeline, REPO, period(WEEK), requested_by=SLACK_ADMIN
            )  # zh asked again
            regenerate(
                wired.pipeline, REPO, period(WEEK), requested_by=SLACK_ADMIN
            )  # nothing to ask
            samples, _ = scrape(wired.url)
            stored = wired.pipeline.store.get_digest(REPO, period(WEEK), "zh")
            cards = {c: card_text(wired.slack.messages(c)) for c in ("C_ZH", "C_EN")}
            hook = card_text(wired.feishu.hook_cards)
        assert model.languages_asked() == ["zh", "en", "zh"]
    # each card in its own language's narrative (regenerate edited the zh one in place)
    assert "本周主线是 rollout 架构的进程分离与新推理引擎接入" in cards["C_ZH"]
    en_headline = "Rollout moves to separate processes and gains a TensorRT-LLM engine"
    for english in (cards["C_EN"], hook):
        assert en_headline in english
        assert "本周主线" not in english
    assert value(samples, "verl_week_model_calls_total", outcome="invalid") == 1
    assert value(samples, "verl_week_model_calls_total", outcome="ok") == 2
    assert value(samples, "verl_week_model_call_duration_seconds_count") == 3
    assert stored is not None
    assert stored.analysis is not None
    narratives = [stored.analysis, *stored.other_analyses]
    assert [a.language for a in narratives] == ["zh", "en"]
    for kind in ("prompt", "completion"):
        used = sum(getattr(a.usage, kind) for a in narratives)
        assert used > 0
        # the invalid answer's tokens are counted too (it was a call)
        assert value(samples, "verl_week_model_tokens_total", kind=kind) > used


def test_metrics_start_from_zero_in_each_app(wired: Wired) -> None:
    samples, _ = scrape(wired.url)
    assert not [k for k in samples if k[0] == "verl_week_runs_total"]


def test_livez_answers_while_healthz_reports_the_database_down(tmp_path: Path) -> None:
    with wired_service(tmp_path) as wired:
        assert requests.get(f"{wired.url}/livez", timeout=5).json() == {"status": "ok"}
        (tmp_path / "verl-week.db").unlink()
        health = requests.get(f"{wired.url}/healthz", timeout=10)
        live = requests.get(f"{wired.url}/livez", timeout=5)
        assert (health.status_code, health.json()["database"]) == (503, "unreachable")
        assert live.status_code == 200


@pytest.mark.process
def test_the_scheduler_process_answers_healthz_livez_and_metrics(wired: Wired) -> None:
    settings = {**wired.env, "FEISHU_WEBHOOK_URL": ""}
    scheduler = ServiceProcess(settings, wired.folder, command="scheduler").start(wait=False)
    try:
        scheduler.wait_serving()
        health = requests.get(f"{scheduler.url}/healthz", timeout=10).json()
        assert (health["status"], health["scheduler"]) == ("ok", "alive")
        _, families = scrape(scheduler.url)
        assert {"verl_week_runs", "verl_week_posts", "verl_week_github_requests"} <= families
        assert requests.post(f"{scheduler.url}/slack/events", timeout=5).status_code == 404
    finally:
        # uvicorn re-raises SIGTERM after a clean shutdown
        assert scheduler.stop() in (0, -signal.SIGTERM), scheduler.tail()
    assert "scheduler stopped clean=True" in scheduler.log()
