"""The verl family's recorded 2026-W34 (tests/data/family, trimmed from the public git history of
verl-project/verl, verl-omni and verl-vla; verl-recipe merged nothing that week) served by one
FakeGitHub, and the service wired on it from Settings."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from service import wiring
from service.core.models import Period
from service.core.weeks import window_for
from service.pipeline.jobs import Pipeline
from service.settings import Settings
from tests.fakes.github import FakeGitHub
from tests.harness import GITHUB_TOKEN, TZ, Fakes, fake_settings, running_fakes

DATA = Path(__file__).parents[1] / "data" / "family"
FAMILY = (
    "verl-project/verl",
    "verl-project/verl-omni",
    "verl-project/verl-recipe",
    "verl-project/verl-vla",
)
GROUPS = "verl-project=" + "|".join(FAMILY)
WEEK = "2026-W34"


def family_week(repo: str, week: str = WEEK) -> dict[str, Any]:
    """A recorded week of one repository of the family (no file: it merged nothing)."""
    path = DATA / f"{repo.rpartition('/')[2]}.{week}.json"
    if not path.exists():
        return {"repo": repo, "pulls": []}
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def family_github(week: str = WEEK) -> FakeGitHub:
    """One fake GitHub serving every repository of the family and its recorded week."""
    fake = FakeGitHub(FAMILY[0], token=GITHUB_TOKEN)
    fake.serve_week(family_week(FAMILY[0], week))
    for repo in FAMILY[1:]:
        fake.add_repo(repo).serve_week(family_week(repo, week))
    return fake


def w34() -> Period:
    return window_for(2026, 34, TZ)


def family_env(fakes: Fakes, folder: Path, **extra: str) -> dict[str, str]:
    return fake_settings(
        fakes,
        folder,
        GITHUB_MAX_WAIT_SECONDS="2",
        DIGEST_GROUPS=GROUPS,
        DIGEST_REPOS="verl-project",
        DIGEST_LANGUAGE="en",
        **extra,
    )


def settings_of(env: dict[str, str]) -> Settings:
    values: dict[str, Any] = {k.lower(): v for k, v in env.items()}
    return Settings(_env_file=None, **values)


@contextmanager
def family_service(folder: Path, **extra: str) -> Iterator[tuple[Fakes, Settings, Pipeline]]:
    """The fakes (GitHub serving the family), the settings and the pipeline wired from them."""
    with running_fakes(family_github()) as fakes:
        settings = settings_of(family_env(fakes, folder, **extra))
        pipeline = wiring.build_pipeline(settings)
        try:
            yield fakes, settings, pipeline
        finally:
            pipeline.store.engine.dispose()
