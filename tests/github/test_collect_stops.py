"""A collection that raises stops its helpers: the code search and the older-PR lookup send
nothing to GitHub once `collect_week` has returned."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from service.core.profile import RepoProfile
from service.core.weeks import window_for
from service.errors import RateLimitError
from service.github.collect import collect_week
from service.github.http import GitHubHttp
from tests.fakes._server import Recorded, Reply
from tests.fakes.github import FakeGitHub
from tests.github.conftest import REPO, week_data


def test_a_collection_failing_on_a_file_fetch_leaves_no_search_running(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], verl_profile: RepoProfile
) -> None:
    github.prs.clear()
    github.serve_week(week_data("2025-W48"))
    github.tree = {"docs/start/agentic_rl.rst": "see recipe.langgraph_agent.react_agent_loop"}
    window = window_for(2025, 48, "Asia/Shanghai")
    plain = collect_week(make_http(), REPO, window, verl_profile, check_references=False)
    # a PR that removes nothing: fetched after those the code search asks about, once it runs
    last = next(
        p.number
        for p in reversed(plain.prs)
        if p.patches_fetched and not any(f.status.value in ("removed", "renamed") for f in p.files)
    )
    code_route = github.api.routes[("GET", "/search/code")]

    def slow_search(rec: Recorded) -> Reply:
        time.sleep(0.3)  # a search slower than the file fetches: still asking when they fail
        return code_route(rec)

    github.api.route("GET", "/search/code", slow_search)
    reset = str(int(time.time()) + 3600)
    spent = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset}
    github.break_path(f"/repos/{REPO}/pulls/{last}/files", 403, spent)
    github.reset_log()
    with pytest.raises(RateLimitError):
        collect_week(make_http(), REPO, window, verl_profile, patch_concurrency=1)
    sent = len(github.calls())
    time.sleep(1.5)
    assert len(github.calls()) == sent  # nothing asked of GitHub after the raise
