"""build_week with a collector that hands over each PR as its files arrive (pipeline.ahead):
the digest is the one built after the last file, whatever order the PRs arrive in."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable

import pytest

from service import wiring
from service.core.models import CollectedPeriod, Period, PullRequest
from service.core.profile import load_profile
from service.pipeline.ahead import Ahead
from service.pipeline.jobs import Fetched, Pipeline, build_week
from service.settings import Settings
from tests.conftest import load_week
from tests.periods import period

LABEL = "2025-W48"
REPO = "volcengine/verl"


def _pipeline(make_settings: Callable[..., Settings], name: str, tmp: str) -> Pipeline:
    settings = make_settings(database_url=f"sqlite:///{tmp}/{name}.db")
    week = load_week(LABEL)
    p = wiring.build_pipeline(settings, sample=True, with_senders=False, llm=False)
    return dataclasses.replace(
        p, collect=lambda _repo, _window: week, profile_for=lambda _repo: load_profile(REPO)
    )


def _arriving(order: Callable[[list[PullRequest]], list[PullRequest]]) -> object:
    """A collector whose PRs' files 'arrive' in `order`, from four threads."""

    def collect(repo: str, window: Period, fetched: Fetched | None = None) -> CollectedPeriod:
        week = load_week(LABEL)
        if fetched is not None:
            arriving = order(list(week.prs))
            threads = [
                threading.Thread(target=lambda part=arriving[i::4]: [fetched(p) for p in part])
                for i in range(4)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        return week

    return collect


@pytest.mark.parametrize(
    "order",
    [lambda prs: prs, lambda prs: prs[::-1], lambda prs: prs[1::2] + prs[::2], lambda prs: []],
    ids=["merge order", "reversed", "interleaved", "none fetched"],
)
def test_same_digest_whatever_order_the_files_arrive_in(
    make_settings: Callable[..., Settings],
    tmp_path: object,
    order: Callable[..., list[PullRequest]],
) -> None:
    plain = _pipeline(make_settings, "plain", str(tmp_path))
    ahead = _pipeline(make_settings, "ahead", str(tmp_path))
    ahead = dataclasses.replace(ahead, collect_each=_arriving(order))  # type: ignore[arg-type]
    window = period(LABEL)
    expected = build_week(plain, REPO, window).model_dump(exclude={"generated_at"})
    assert build_week(ahead, REPO, window).model_dump(exclude={"generated_at"}) == expected


def test_work_done_with_another_profile_is_not_handed_over() -> None:
    week = load_week(LABEL)
    ahead = Ahead(lambda: load_profile(REPO))
    for pr in week.prs:
        ahead.add(pr)
    other = load_profile(REPO).model_copy(update={"core_paths": []})
    assert ahead.finish(other) == {}
    again = Ahead(lambda: load_profile(REPO))
    for pr in week.prs:
        again.add(pr)
    assert set(again.finish(load_profile(REPO))) == {pr.number for pr in week.prs}


def test_nothing_starts_before_the_first_pr() -> None:
    asked: list[str] = []
    ahead = Ahead(lambda: asked.append("profile") or load_profile(REPO))  # type: ignore[func-returns-value]
    assert ahead.finish(load_profile(REPO)) == {}
    ahead.cancel()
    assert asked == []
