"""Faults met by `verl-week serve` during its scheduled run, each with its expected outcome:
GitHub 502s and dropped connections in the middle of the search pagination (the digest completes
after retries), a PR whose files never come back (stored and posted as partial, naming what is
missing), secondary rate limits, Slack 429 bursts, and a Feishu token that expires mid-run."""

from __future__ import annotations

import json
from typing import Any

import pytest
import requests

from tests.e2e.conftest import REPO, SLACK_ADMIN, Fakes, last_window, shifted_pulls
from tests.fakes._server import Recorded, Reply
from tests.harness import slack_command
from tests.processes import ServiceProcess
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e
ALL_WEEKS = ("2025-W47", "2025-W48", "2026-W03", "2026-W04")  # 132 PRs: three search pages
DROP = "drop the connection"
SECONDARY: Reply = (
    403,
    {"retry-after": "1"},
    {"message": "You have exceeded a secondary rate limit. Please wait a few minutes."},
)
BAD_GATEWAY: Reply = (502, {}, {"message": "Server Error"})


class ScriptedSearch:
    """The GraphQL route, with scripted answers for the search pages after the first."""

    def __init__(self, fakes: Fakes, script: list[Reply | str]) -> None:
        routes = fakes.github.api.routes
        self.original = routes[("POST", "/graphql")]
        self.script = script
        self.later_pages: list[Recorded] = []
        routes[("POST", "/graphql")] = self

    def __call__(self, rec: Recorded) -> Reply:
        body: dict[str, Any] = rec.json() or {}
        if "SearchMerged" in body.get("query", "") and (body.get("variables") or {}).get("cursor"):
            self.later_pages.append(rec)
            if self.script:
                step = self.script.pop(0)
                if step == DROP:
                    raise ConnectionAbortedError("the fake drops this connection")
                assert not isinstance(step, str)
                return step
        reply: Reply = self.original(rec)
        return reply


def many_prs(fakes: Fakes) -> int:
    pulls = shifted_pulls(ALL_WEEKS)
    for raw in pulls:
        fakes.github.add_pr(raw)
    return len(pulls)


def run_outcome(serve: ServiceProcess) -> str:
    wait_for(lambda: serve.health()[1]["last_run"]["outcome"] not in (None, "running"),
             what=lambda: f"run finished; log:\n{serve.log()[-3000:]}")  # fmt: skip
    return str(serve.health()[1]["last_run"]["outcome"])


def report_json(serve: ServiceProcess) -> dict[str, Any]:
    url = f"{serve.url}/reports/{REPO}/{last_window().label}.json"
    response = requests.get(url, timeout=10)
    assert response.status_code == 200
    return dict(response.json())


def test_502s_and_dropped_connections_mid_pagination_then_complete(
    fakes: Fakes, serve: ServiceProcess
) -> None:
    count = many_prs(fakes)
    search = ScriptedSearch(fakes, [BAD_GATEWAY, DROP, BAD_GATEWAY])
    serve.start()
    assert run_outcome(serve) == "ok"
    assert len(search.later_pages) == 3 + 1  # three faults, then page 2 (pages of 100)
    digest = report_json(serve)
    assert digest["stats"]["prs"] == count
    assert digest["completeness"] == {"complete": True, "missing": []}
    wait_for(lambda: len(fakes.slack.messages("C1")) == 1, what="Slack post")
    assert f"{count} PRs" in fakes.slack.messages("C1")[0]["text"]
    assert len(fakes.feishu.posted("oc_group1")) == 1
    assert "github retry" in serve.log()


def test_secondary_rate_limits_are_waited_out(fakes: Fakes, serve: ServiceProcess) -> None:
    count = many_prs(fakes)
    search = ScriptedSearch(fakes, [SECONDARY, SECONDARY])
    fakes.github.secondary_limit(retry_after=1)  # the very first request too
    serve.start()
    assert run_outcome(serve) == "ok"
    assert len(search.later_pages) == 2 + 1  # two refusals, then page 2 (pages of 100)
    assert report_json(serve)["stats"]["prs"] == count
    assert len(fakes.slack.messages("C1")) == 1


def test_files_that_never_come_back_make_a_partial_digest_naming_them(
    fakes: Fakes, serve: ServiceProcess
) -> None:
    for raw in shifted_pulls():
        fakes.github.add_pr(raw)
    fakes.github.break_path(f"/repos/{REPO}/pulls/4280/files")
    serve.start()
    assert run_outcome(serve) == "partial"
    digest = report_json(serve)
    assert digest["completeness"]["complete"] is False
    missing = digest["completeness"]["missing"]
    assert [m["number"] for m in missing] == [4280]
    assert digest["stats"]["prs"] == 22  # the PR itself is in the digest
    wait_for(lambda: len(fakes.slack.messages("C1")) == 1, what="Slack post")
    assert "Incomplete data" in json.dumps(fakes.slack.messages("C1")[0]["blocks"])
    page = requests.get(f"{serve.url}/reports/{REPO}/{last_window().label}", timeout=10)
    assert "4280" in page.text
    assert len(fakes.feishu.posted("oc_group1")) == 1


class Burst:
    """A platform route answering its first `times` calls with `reply`."""

    def __init__(self, routes: dict[tuple[str, str], Any], key: tuple[str, str], reply: Reply,
                 times: int) -> None:  # fmt: skip
        self.original = routes[key]
        self.reply = reply
        self.left = times
        self.calls = 0
        routes[key] = self

    def __call__(self, rec: Recorded) -> Reply:
        self.calls += 1
        if self.left > 0:
            self.left -= 1
            return self.reply
        reply: Reply = self.original(rec)
        return reply


SLACK_429: Reply = (429, {"Retry-After": "1"}, {"ok": False, "error": "ratelimited"})


def test_a_slack_429_burst_is_retried_and_posts_once(fakes: Fakes, serve: ServiceProcess) -> None:
    for raw in shifted_pulls():
        fakes.github.add_pr(raw)
    burst = Burst(fakes.slack.api.routes, ("POST", "/api/chat.postMessage"), SLACK_429, 2)
    serve.start()
    assert run_outcome(serve) == "ok"
    assert burst.calls == 3
    assert len(fakes.slack.messages("C1")) == 1
    assert len(fakes.feishu.posted("oc_group1")) == 1


def test_a_long_slack_429_burst_fails_alone_and_regenerate_posts_once(
    fakes: Fakes, serve: ServiceProcess
) -> None:
    for raw in shifted_pulls():
        fakes.github.add_pr(raw)
    burst = Burst(fakes.slack.api.routes, ("POST", "/api/chat.postMessage"), SLACK_429, 10)
    serve.start()
    assert run_outcome(serve) == "partial"  # one destination failed, the other got its card
    assert fakes.slack.messages("C1") == []
    assert len(fakes.feishu.posted("oc_group1")) == 1
    assert "delivery failed" in serve.log()
    burst.left = 0  # the burst is over
    ack = slack_command(
        serve.url, fakes.slack, f"regenerate {last_window().label}", user=SLACK_ADMIN
    )
    assert ack.status_code == 200
    wait_for(
        lambda: len(fakes.slack.messages("C1")) == 1 and fakes.feishu_patches() == 1,
        what="Slack posted and the Feishu card edited (not posted again) on regenerate",
    )
    assert len(fakes.feishu.posted("oc_group1")) == 1


def test_a_feishu_token_expiring_mid_run_is_refreshed(fakes: Fakes, serve: ServiceProcess) -> None:
    for raw in shifted_pulls():
        fakes.github.add_pr(raw)
    feishu = fakes.feishu
    routes = feishu.api.routes
    create = routes[("POST", "/open-apis/im/v1/messages")]
    expired: list[bool] = []

    def expire_then_create(rec: Recorded) -> Reply:
        if not expired:
            expired.append(True)
            feishu.expire_token()  # the token the sender holds dies just before its post
        reply: Reply = create(rec)
        return reply

    routes[("POST", "/open-apis/im/v1/messages")] = expire_then_create
    serve.start()
    assert run_outcome(serve) == "ok"
    assert len(feishu.posted("oc_group1")) == 1
    assert feishu.token_fetches() >= 2  # fetched again after 99991663
    assert len(fakes.slack.messages("C1")) == 1
