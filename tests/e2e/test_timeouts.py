"""GitHub timeouts in the middle of the search pagination, at the level of
service.pipeline.jobs.run_week:
the pipeline is the one service.wiring.build_pipeline makes from Settings pointing at the fakes,
its collector rebuilt on a GitHubHttp with a 1 s timeout (serve's is 30 s, too slow to wait out
in a test). A stalled page is retried and the digest completes; a page that never answers fails
the run with a clear error and posts nothing, and the next run posts the week once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service import wiring
from service.core.models import CollectedPeriod, Period
from service.core.profile import load_profile
from service.github.collect import collect_week
from service.github.http import GitHubHttp
from service.pipeline import jobs
from service.settings import Settings
from tests.e2e.conftest import GITHUB_TOKEN, REPO, Fakes, last_window, serve_env, shifted_pulls
from tests.e2e.test_faults import ALL_WEEKS, ScriptedSearch
from tests.fakes._server import Recorded, Reply

pytestmark = pytest.mark.e2e
CLIENT_TIMEOUT = 1.0
STALL_SECONDS = 2.5


def stall_once(
    reply_after: Callable[[Recorded], Reply], seen: list[Recorded]
) -> Callable[[Recorded], Reply]:
    """A route whose first answer comes after the client has given up."""

    def route(rec: Recorded) -> Reply:
        seen.append(rec)
        if len(seen) == 1:
            threading.Event().wait(STALL_SECONDS)
        return reply_after(rec)

    return route


class StallingSearch(ScriptedSearch):
    """Search pages after the first stall (longer than the client timeout) `times` times."""

    def __init__(self, fakes: Fakes, times: int) -> None:
        super().__init__(fakes, [])
        self.stalls = times

    def __call__(self, rec: Recorded) -> Reply:
        body: dict[str, Any] = rec.json() or {}
        if "SearchMerged" in body.get("query", "") and (body.get("variables") or {}).get("cursor"):
            self.later_pages.append(rec)
            if self.stalls > 0:
                self.stalls -= 1
                threading.Event().wait(STALL_SECONDS)
        reply: Reply = self.original(rec)
        return reply


def pipeline_for(fakes: Fakes, folder: Path) -> jobs.Pipeline:
    names = {name.upper(): name for name in Settings.model_fields}
    env = serve_env(fakes, folder)
    values: dict[str, Any] = {names[k]: v for k, v in env.items() if k in names}
    settings = Settings(_env_file=None, **values)
    pipeline = wiring.build_pipeline(settings)
    http = GitHubHttp(
        api_url=settings.github_api_url,
        graphql_url=settings.graphql_url,
        token=GITHUB_TOKEN,
        cache=pipeline.store,
        timeout=CLIENT_TIMEOUT,
        backoff_base=0.1,
    )

    def collect(repo: str, window: Period) -> CollectedPeriod:
        return collect_week(http, repo, window, load_profile(repo), check_references=False)

    pipeline.collect = collect
    return pipeline


def test_a_page_that_times_out_is_retried_and_the_digest_completes(
    fakes: Fakes, tmp_path: Path
) -> None:
    pulls = shifted_pulls(ALL_WEEKS)
    for raw in pulls:
        fakes.github.add_pr(raw)
    search = StallingSearch(fakes, times=2)
    files = f"/repos/{REPO}/pulls/4280/files"
    pulls_route = fakes.github.api.prefix_routes[0][2]
    file_calls: list[Recorded] = []
    fakes.github.api.route("GET", files, stall_once(pulls_route, file_calls))
    pipeline = pipeline_for(fakes, tmp_path)
    result = jobs.run_week(pipeline, REPO, last_window(), trigger="test")
    assert result.outcome == "ok", result.error
    assert result.digest is not None
    assert result.digest.stats.prs == len(pulls)
    assert result.digest.completeness.complete
    assert len(search.later_pages) == 2 + 1  # two stalls, then page 2 (pages of 100)
    assert len(file_calls) == 2  # timed out once, then answered
    assert len(fakes.slack.messages("C1")) == 1
    assert len(fakes.feishu.posted("oc_group1")) == 1


def test_a_page_that_never_answers_fails_clearly_and_the_next_run_posts_once(
    fakes: Fakes, tmp_path: Path
) -> None:
    for raw in shifted_pulls(ALL_WEEKS):
        fakes.github.add_pr(raw)
    search = StallingSearch(fakes, times=100)
    pipeline = pipeline_for(fakes, tmp_path)
    failed = jobs.run_week(pipeline, REPO, last_window(), trigger="test")
    assert failed.outcome == "failed"
    assert failed.error is not None
    assert "cannot reach GitHub" in failed.error
    assert "Timeout" in failed.error
    assert fakes.slack.messages("C1") == []
    assert fakes.feishu.posted() == []
    last = pipeline.store.last_run(REPO)
    assert last is not None
    assert last.outcome == "failed"
    search.stalls = 0  # GitHub is back
    retried = jobs.run_week(pipeline, REPO, last_window(), trigger="test")
    assert retried.outcome == "ok", retried.error
    assert len(fakes.slack.messages("C1")) == 1
    assert len(fakes.feishu.posted("oc_group1")) == 1
