"""build_week through wiring against FakeGitHub: a rebuild of a finished week with nothing new
serves the stored digest after asking only for the search page; any change (a label, the
previous week, the profile) is analysed again."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest

from service import wiring
from service.core.models import Digest
from service.core.profile import RepoProfile
from service.core.weeks import window_for
from service.pipeline.jobs import Pipeline, build_week
from service.settings import Settings
from tests.fakes.github import FakeGitHub
from tests.github.conftest import REPO, TOKEN, week_data

TZ = "Asia/Shanghai"
W03 = window_for(2026, 3, TZ)
W04 = window_for(2026, 4, TZ)
T0 = datetime(2026, 2, 2, 10, 0, tzinfo=UTC)


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub(REPO, token=TOKEN)
    fake.serve_week(week_data("2026-W03"))
    fake.serve_week(week_data("2026-W04"))
    with fake.running():
        yield fake


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        self.now += timedelta(minutes=1)
        return self.now


@pytest.fixture
def pipeline(make_settings: Callable[..., Settings], github: FakeGitHub) -> Pipeline:
    settings = make_settings(github_api_url=github.url, github_token=TOKEN)
    built = wiring.build_pipeline(settings, with_senders=False)
    built.clock = Clock()
    return built


def files_requests(github: FakeGitHub) -> int:
    return sum(1 for c in github.calls("GET") if c.path.endswith("/files"))


def test_a_rebuild_with_nothing_new_serves_the_stored_digest(
    pipeline: Pipeline, github: FakeGitHub
) -> None:
    cold = build_week(pipeline, REPO, W04)
    assert files_requests(github) > 10
    github.reset_log()
    warm = build_week(pipeline, REPO, W04)
    assert warm == cold  # generated at the first build's time: not analysed again
    assert files_requests(github) == 0
    pages = len(github.calls("POST", "/graphql"))
    assert pages == 1
    assert len(github.calls()) <= pages + 2
    assert pipeline.store.get_digest(REPO, W04, "zh") == cold


def test_a_new_label_is_analysed_again(pipeline: Pipeline, github: FakeGitHub) -> None:
    cold = build_week(pipeline, REPO, W04)
    number = cold.prs[0].number
    github.prs[number].labels = ["perf-regression"]
    github.reset_log()
    warm = build_week(pipeline, REPO, W04)
    assert warm.generated_at > cold.generated_at
    assert [b.key for b in warm.trends.labels] == ["perf-regression"]
    assert files_requests(github) == 0  # the files are still the stored ones
    assert pipeline.store.get_digest(REPO, W04, "zh") == warm
    assert pipeline.store.stored_prs(REPO, [number])[number].labels == ["perf-regression"]


def test_a_rebuilt_previous_week_makes_the_week_analysed_again(
    pipeline: Pipeline, github: FakeGitHub
) -> None:
    build_week(pipeline, REPO, W03)
    first = build_week(pipeline, REPO, W04)
    assert build_week(pipeline, REPO, W04) == first
    earlier = next(p for p in github.prs.values() if W03.start <= p.merged_at < W03.end)
    earlier.labels = ["bug"]
    build_week(pipeline, REPO, W03)
    again = build_week(pipeline, REPO, W04)
    assert again.generated_at > first.generated_at


def test_another_profile_is_analysed_again(pipeline: Pipeline) -> None:
    first = build_week(pipeline, REPO, W04)
    pipeline.profile_for = lambda repo: RepoProfile(name="bare")
    again: Digest = build_week(pipeline, REPO, W04)
    assert again.generated_at > first.generated_at
    assert again != first
