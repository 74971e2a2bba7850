"""kill -9 at each step of a weekly run (collecting, posting to Slack, posting to Feishu): the
run is seen as abandoned, never as running forever, and the week is posted exactly once by the
restarted process. A scheduler that is frozen (alive, but silent) loses its run when its lease
runs out, and another scheduler posts the week, once."""

from __future__ import annotations

import signal
from collections.abc import Callable

import pytest

from tests.e2e.conftest import Fakes
from tests.fakes._server import Recorded, Reply
from tests.faults.conftest import Gate, add_week, posted_once, run_rows, settle
from tests.processes import ServiceProcess
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e
SLACK_POST = ("POST", "/api/chat.postMessage")
FEISHU_POST = ("POST", "/open-apis/im/v1/messages")
GITHUB_SEARCH = ("POST", "/graphql")


class Handled(Gate):
    """The call is handled (the post happens on the platform), then its answer is held."""

    def __call__(self, rec: Recorded) -> Reply:
        self.calls += 1
        reply: Reply = self.original(rec)
        if self.calls == 1:
            self.reached.set()
            self._open.wait(120)
        return reply


def step_gate(fakes: Fakes, step: str) -> Gate:
    if step == "collect":
        return Gate(fakes.github.api.routes, GITHUB_SEARCH)
    if step == "slack post":
        return Handled(fakes.slack.api.routes, SLACK_POST)
    return Handled(fakes.feishu.api.routes, FEISHU_POST)


@pytest.mark.parametrize("step", ["collect", "slack post", "feishu post"])
def test_killed_at_each_step_the_restart_posts_the_week_once(
    fakes: Fakes, serve: ServiceProcess, step: str
) -> None:
    add_week(fakes)
    gate = step_gate(fakes, step)
    serve.start()
    assert gate.reached.wait(60), serve.log()[-3000:]
    serve.kill()
    gate.open()

    serve.start()
    wait_for(lambda: posted_once(fakes), what=lambda: f"posted; {serve.log()[-3000:]}")
    wait_for(lambda: serve.status() == (200, "ok", []), what="healthy")
    settle(serve)
    assert posted_once(fakes)
    assert len(fakes.slack.calls("chat.postMessage")) == 1  # reconciled, never sent again
    assert len({r.json()["uuid"] for r in fakes.feishu.api.calls(*FEISHU_POST)}) == 1
    rows = run_rows(serve.env["DATABASE_URL"])
    assert rows[0] == ("catch-up", "abandoned")  # its process is gone
    assert [outcome for _, outcome in rows].count("ok") == 1


def test_a_frozen_scheduler_loses_its_run_when_the_lease_runs_out(
    fakes: Fakes, make_process: Callable[..., ServiceProcess]
) -> None:
    add_week(fakes)
    search = Gate(fakes.github.api.routes, GITHUB_SEARCH)
    frozen = make_process("scheduler")
    frozen.start()
    assert search.reached.wait(60), frozen.log()[-3000:]
    other = make_process("scheduler")
    other.start()
    assert frozen.proc is not None
    frozen.proc.send_signal(signal.SIGSTOP)  # alive, but no heartbeat any more
    try:
        search.open()
        wait_for(
            lambda: posted_once(fakes), what=lambda: f"posted by the other; {other.log()[-3000:]}"
        )
        wait_for(lambda: other.status() == (200, "ok", []), what="healthy")
        settle(other)
    finally:
        frozen.kill()
    assert posted_once(fakes)
    rows = run_rows(other.env["DATABASE_URL"])
    assert rows[0] == ("catch-up", "abandoned")
    assert rows[-1][1] == "ok"
    assert "took over a lock left by a dead process" not in other.log()  # the lease did it
