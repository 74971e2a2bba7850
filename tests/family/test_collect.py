"""A family's repositories are collected concurrently through one GitHub client (one token's
rate budget), from one fake GitHub serving them all; a family costs at most the sum of its
repositories' requests."""

from __future__ import annotations

import threading
from pathlib import Path

from service.core.models import CollectedPeriod, Period
from service.core.scope import Scope
from service.pipeline.jobs import build_week, collect_scope
from tests.family.conftest import FAMILY, GROUPS, family_service, family_week, w34


def _numbers(repo: str) -> set[int]:
    return {int(p["number"]) for p in family_week(repo)["pulls"]}


def test_one_fake_serves_every_repository_of_the_family(tmp_path: Path) -> None:
    with family_service(tmp_path) as (fakes, settings, pipeline):
        scope = settings.scope(["verl-project"])
        threads: set[str] = set()
        collect = pipeline.collect
        # every repository's collection waits here until all have begun: only collections
        # that run at once get past it (one after another, the first would time out)
        together = threading.Barrier(len(FAMILY), timeout=30)

        def seen(repo: str, window: Period) -> CollectedPeriod:
            threads.add(threading.current_thread().name)
            together.wait()
            return collect(repo, window)

        pipeline.collect = seen
        weeks = collect_scope(pipeline, scope, w34())
    assert [w.repo for w in weeks] == list(FAMILY)
    for repo, week in zip(FAMILY, weeks, strict=True):
        assert {p.number for p in week.prs} == _numbers(repo)
        assert all(f"/{repo}/pull/" in p.url for p in week.prs)
    assert weeks[2].prs == []  # verl-recipe merged nothing that week
    assert len(threads) == len(FAMILY)  # one collecting thread per repository, all at once
    assert threading.current_thread().name not in threads
    # one budget: the fake counted every repository's requests on one token
    assert fakes.github.rate_remaining < 5000


def _requests(folder: Path, scope: Scope) -> int:
    with family_service(folder) as (fakes, _settings, pipeline):
        fakes.github.reset_log()
        if scope.is_family:
            collect_scope(pipeline, scope, w34())
        else:
            build_week(pipeline, scope.primary, w34())
        return len(fakes.github.answers)


def test_a_family_costs_at_most_the_sum_of_its_repositories(tmp_path: Path) -> None:
    alone = sum(_requests(tmp_path / repo.replace("/", "_"), Scope.one(repo)) for repo in FAMILY)
    family = _requests(tmp_path / "family", Scope("verl-project", FAMILY))
    assert 0 < family <= alone
    assert GROUPS.startswith("verl-project=")
