"""GitHubHttp against FakeGitHub: retries, rate limits, ETags, errors that name no token."""

from __future__ import annotations

import socket
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from service.errors import AuthRefusedError, NotFoundError, RateLimitError, UnreachableError
from service.github.http import GitHubHttp
from tests.fakes.github import FakeGitHub
from tests.github.conftest import REPO, TOKEN

PULL = 4970  # a real verl PR of 2026-W04


def test_502_then_success_is_retried(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    http = make_http()
    github.fail_next(502)
    page = http.get(f"/repos/{REPO}/pulls/{PULL}")
    assert page.data["number"] == PULL
    assert http.stats.retries == 1
    assert http.stats.requests == 2


def test_server_errors_beyond_the_retries_are_unreachable(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    http = make_http(max_retries=2)
    github.fail_next(503, times=5)
    with pytest.raises(UnreachableError, match="kept answering 503 after 3 attempts"):
        http.get(f"/repos/{REPO}")
    assert len(github.calls()) == 3


def test_secondary_limit_waits_retry_after(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    waits: list[float] = []
    http = make_http(sleep=waits.append)
    github.secondary_limit(retry_after=2)
    assert http.get(f"/repos/{REPO}/pulls/{PULL}").data["number"] == PULL
    assert waits == [2.0]


def test_secondary_limit_really_sleeps_when_short(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    http = make_http()
    github.secondary_limit(retry_after=1)
    started = datetime.now(UTC)
    assert http.get(f"/repos/{REPO}").data["full_name"] == REPO
    assert (datetime.now(UTC) - started).total_seconds() >= 1.0


def test_secondary_limit_longer_than_max_wait_is_an_error(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    github.secondary_limit(retry_after=600)  # the fake's x-ratelimit-reset is an hour away
    with pytest.raises(RateLimitError) as info:
        make_http(max_wait=5).get(f"/repos/{REPO}")
    assert info.value.reset_at is not None
    assert 590 < (info.value.reset_at - datetime.now(UTC)).total_seconds() <= 600


def test_exhausted_primary_limit_says_when_it_resets(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    reset = github.exhaust_primary(reset_in=3600)
    with pytest.raises(RateLimitError) as info:
        make_http().get(f"/repos/{REPO}")
    reset_at = datetime.fromtimestamp(reset, tz=UTC)
    assert info.value.reset_at == reset_at
    assert (
        str(info.value)
        == f"GitHub rate limit reached; it resets at {reset_at:%Y-%m-%d %H:%M:%S} UTC"
    )
    assert len(github.calls()) == 1  # no retry before the reset


def test_primary_limit_resetting_soon_is_waited_out(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    waits: list[float] = []
    github.exhaust_primary(reset_in=1)
    http = make_http(sleep=waits.append, max_wait=10)
    assert http.get(f"/repos/{REPO}").data["full_name"] == REPO
    assert len(waits) == 1
    assert 0 < waits[0] <= 3


def test_graphql_rate_limited_error_is_a_rate_limit(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    reset = github.graphql_rate_limited(reset_in=3600)
    with pytest.raises(RateLimitError) as info:
        make_http().graphql("query SearchMerged { x }", {})
    assert info.value.reset_at == datetime.fromtimestamp(reset, tz=UTC)


def test_etag_makes_the_second_get_a_304(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    http = make_http()
    first = http.get(f"/repos/{REPO}/pulls/{PULL}")
    second = http.get(f"/repos/{REPO}/pulls/{PULL}")
    assert second.cached
    assert not first.cached
    assert second.data == first.data
    assert http.stats.not_modified == 1
    assert http.stats.rate_limit_cost == 1  # a 304 costs nothing
    assert github.answers[-1][2] == 304


def test_link_pagination_survives_the_cache(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    from service.github import rest

    cold = rest.pull_files(make_http(), REPO, PULL)
    warm_http = make_http()
    assert rest.pull_files(warm_http, REPO, PULL) == cold
    assert warm_http.stats.not_modified == warm_http.stats.requests


def test_token_is_sent_as_bearer(github: FakeGitHub, make_http: Callable[..., GitHubHttp]) -> None:
    make_http().get(f"/repos/{REPO}")
    assert github.calls()[-1].header("authorization") == f"Bearer {TOKEN}"
    assert github.calls()[-1].header("x-github-api-version") == "2022-11-28"


def test_wrong_token_is_refused_without_naming_it(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    with pytest.raises(AuthRefusedError) as info:
        make_http(token="not-the-token").graphql("query SearchMerged { x }", {})
    assert "not-the-token" not in str(info.value)
    assert "GITHUB_TOKEN" in str(info.value)


def test_missing_pull_is_not_found(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    with pytest.raises(NotFoundError):
        make_http().get(f"/repos/{REPO}/pulls/1")


def test_connection_refused_is_unreachable_naming_the_host() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    http = GitHubHttp(
        api_url=f"http://127.0.0.1:{port}",
        graphql_url=f"http://127.0.0.1:{port}/graphql",
        token="secret-token-value",
        max_retries=2,
        backoff_base=0.001,
        backoff_cap=0.01,
    )
    with pytest.raises(UnreachableError) as info:
        http.get("/repos/o/r")
    assert f"127.0.0.1:{port}" in str(info.value)
    assert "after 3 attempts" in str(info.value)
    assert "secret-token-value" not in str(info.value)
    assert http.stats.retries == 2


def test_remaining_never_rises_within_a_window_when_answers_come_out_of_order(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    seen: list[str | None] = []
    http = make_http(observe=lambda api, status, remaining, resource: seen.append(remaining))
    window = {"x-ratelimit-resource": "core", "x-ratelimit-reset": "1700000000"}
    body = {"full_name": REPO}
    # concurrent requests: the one GitHub answered last (4,980 left) reaches us first
    github.api.fail_next(200, {**window, "x-ratelimit-remaining": "4980"}, body)
    github.api.fail_next(200, {**window, "x-ratelimit-remaining": "4981"}, body)
    later = {"x-ratelimit-resource": "core", "x-ratelimit-reset": "1700003600"}
    github.api.fail_next(200, {**later, "x-ratelimit-remaining": "4999"}, body)
    for _ in range(3):
        http.get(f"/repos/{REPO}", cache=False)
    assert seen == ["4980", "4980", "4999"]  # a new window starts afresh


def test_parallel_fetches_reuse_their_connections(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], caplog: pytest.LogCaptureFixture
) -> None:
    """A family's collections share one client: 24 fetches in flight (more than requests'
    default pool of 10) keep their connections instead of opening and discarding them."""
    from concurrent.futures import ThreadPoolExecutor

    http = make_http()
    github.api.latency = 0.05  # the fetches overlap
    with ThreadPoolExecutor(max_workers=24) as pool:
        answers = list(pool.map(lambda _: http.get(f"/repos/{REPO}/pulls/{PULL}"), range(48)))
    assert all(a.data["number"] == PULL for a in answers)
    assert "Connection pool is full" not in caplog.text
