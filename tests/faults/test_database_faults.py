"""The database fails in the middle of a weekly run: refusing every write while reads still
answer (what a full disk or a read-only file does to the service: here another connection holds
SQLite's write lock), or unreachable (PostgreSQL behind a proxy that drops every connection and
refuses new ones, with two scheduler processes on it). The week stays owed, is retried with
backoff while the fault lasts, `/healthz` says so, and once the fault clears the week is posted
exactly once."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import pytest

from tests.e2e.conftest import REPO, Fakes, last_window
from tests.e2e.test_database import db_path, write_locked
from tests.faults.conftest import Gate, add_week, posted_once, run_rows, settle
from tests.faults.proxy import proxied
from tests.processes import ServiceProcess
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e
RETRY_PLANNED = "week still owed: retry planned"


def retried(process: ServiceProcess, times: int) -> bool:
    return process.count(RETRY_PLANNED) >= times


def healthy(process: ServiceProcess) -> bool:
    return process.status() == (200, "ok", [])


def test_writes_refused_mid_run_make_healthz_degraded_until_the_week_is_posted(
    fakes: Fakes, serve: ServiceProcess
) -> None:
    add_week(fakes)
    search = Gate(fakes.github.api.routes, ("POST", "/graphql"))
    serve.start()
    assert search.reached.wait(60), serve.log()[-3000:]
    week = last_window().label

    with write_locked(db_path(serve)):
        search.open()
        wait_for(
            lambda: serve.count(RETRY_PLANNED) >= 2, what=lambda: f"retries; {serve.log()[-3000:]}"
        )
        # reads still answer: ready, but the week is owed and the last run did not finish
        wait_for(lambda: serve.status()[1] == "degraded", what="degraded")
        code, _, reasons = serve.status()
        assert code == 200
        assert any(week in r for r in reasons), reasons
        assert not any(REPO in r for r in reasons)  # not known to be public: not named
        assert serve.metric("verl_week_digests_owed", REPO) == 1.0
        assert serve.metric("verl_week_last_success_timestamp_seconds", REPO) is None
        assert fakes.slack.messages("C1") == []

    wait_for(
        lambda: posted_once(fakes), what=lambda: f"posted after the fault; {serve.log()[-3000:]}"
    )
    wait_for(lambda: serve.status() == (200, "ok", []), what="healthy again")
    settle(serve)  # the run's row is finished too (a week being posted is still owed)
    assert serve.metric("verl_week_digests_owed", REPO) == 0.0
    success = serve.metric("verl_week_last_success_timestamp_seconds", REPO)
    attempt = serve.metric("verl_week_last_attempt_timestamp_seconds", REPO)
    assert success is not None
    assert success == attempt
    assert posted_once(fakes)
    assert len(fakes.slack.calls("chat.postMessage")) == 1
    assert len(fakes.feishu.api.calls("POST", "/open-apis/im/v1/messages")) == 1


@pytest.mark.postgres
def test_postgres_down_mid_run_under_two_schedulers_posts_once(
    fakes: Fakes,
    serve: ServiceProcess,
    make_process: Callable[..., ServiceProcess],
    postgres_url: str,
) -> None:
    add_week(fakes)
    search = Gate(fakes.github.api.routes, ("POST", "/graphql"))
    with proxied(postgres_url) as proxy:
        url = proxy.url_for(postgres_url)
        serve.env["DATABASE_URL"] = url
        serve.start()
        assert search.reached.wait(60), serve.log()[-3000:]
        other = make_process("scheduler", DATABASE_URL=url)
        other.start()
        wait_for(lambda: other.count(RETRY_PLANNED) >= 1, what="the other scheduler waits")

        proxy.cut()
        search.open()
        for process in (serve, other):
            wait_for(partial(retried, process, 3), what="retries while down")
            code, body = process.health()
            assert (code, body["database"]) == (503, "unreachable")
        assert proxy.refused > 0
        assert fakes.slack.messages("C1") == []

        proxy.heal()
        wait_for(lambda: posted_once(fakes), what=lambda: f"posted; {serve.log()[-2000:]}")
        for process in (serve, other):
            wait_for(partial(healthy, process), what="healthy again")
            settle(process)
        assert posted_once(fakes)
        assert len(fakes.slack.calls("chat.postMessage")) == 1
        assert len(fakes.feishu.api.calls("POST", "/open-apis/im/v1/messages")) == 1
        outcomes = [outcome for _, outcome in run_rows(url)]
        assert outcomes.count("ok") == 1
        assert "running" not in outcomes
