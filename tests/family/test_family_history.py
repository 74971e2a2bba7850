"""A family's history across weeks, through the real pipeline and store on the recorded weeks of
verl and verl-omni (tests/data/weeks/verl-project) served by one FakeGitHub: the trends compare
with the previous week whether the family or only its repositories were digested then, and a
repository of the family that moved (volcengine/verl → verl-project/verl, as GitHub answers
a moved repository) is told once, by where the project lives now."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest

from service import wiring
from service.core.models import Digest
from service.core.weeks import parse_week
from service.pipeline.jobs import Pipeline, build_scope, run_week
from service.render.environment import translator
from service.render.formats import render_format
from service.settings import Settings
from tests.fakes.github import FakeGitHub
from tests.family.test_family_report import WEEKS

OLD, NEW, OMNI = "volcengine/verl", "verl-project/verl", "verl-project/verl-omni"
TOKEN = "ghp_familyHistoryToken0123456789abcd"
URL = "http://reports.test/r"


def _week(name: str, week: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((WEEKS / f"{name}.{week}.json").read_text("utf-8"))
    return data


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub(OLD, token=TOKEN)
    omni = fake.add_repo(OMNI)
    for week in ("2026-W19", "2026-W20", "2026-W21"):
        fake.serve_week(_week("verl", week))
        omni.serve_week(_week("verl-omni", week))
    with fake.running():
        yield fake


@dataclass
class Site:
    settings: Settings
    pipeline: Pipeline

    def family(self, week: str) -> Digest:
        scope = self.settings.scope(["verl-project"])
        window = parse_week(week, self.pipeline.timezone, datetime.now(UTC))
        return build_scope(self.pipeline, scope, window)


@pytest.fixture
def site(make_settings: Callable[..., Settings], github: FakeGitHub) -> Iterator[Site]:
    settings = make_settings(
        github_api_url=github.url,
        github_graphql_url=github.graphql_url,
        github_token=TOKEN,
        digest_groups=f"verl-project={OLD}|{OMNI}",
        digest_repos="verl-project",
        digest_language="zh",
        github_max_wait_seconds=2,
    )
    built = wiring.build_pipeline(settings, with_senders=False, llm=False)
    try:
        yield Site(settings, built)
    finally:
        built.store.engine.dispose()


def test_the_trends_compare_with_the_familys_previous_week(site: Site) -> None:
    site.family("2026-W19")
    w20 = site.family("2026-W20")
    assert w20.trends.previous_period == "2026-W19"
    assert w20.trends.previous_stats is not None
    assert any(b.previous is not None for b in w20.trends.modules)


def test_the_trends_compare_with_its_repositories_digested_one_by_one(site: Site) -> None:
    window = parse_week("2026-W19", site.pipeline.timezone, datetime.now(UTC))
    for repo in (OLD, OMNI):  # the week before the family was set up
        built = run_week(site.pipeline, repo, window, trigger="test", post=False)
        assert built.digest is not None
    w20 = site.family("2026-W20")
    assert w20.trends.previous_period == "2026-W19"
    assert w20.trends.previous_stats is not None
    both = len(_week("verl", "2026-W19")["pulls"]) + len(_week("verl-omni", "2026-W19")["pulls"])
    assert w20.trends.previous_stats.prs == both


def test_a_moved_repository_of_the_family_is_told_once_by_its_new_home(
    site: Site, github: FakeGitHub
) -> None:
    site.family("2026-W19")
    github.move_to(NEW)
    w20 = site.family("2026-W20")
    assert [p.repo for p in w20.repos] == [NEW, OMNI]
    assert w20.repos[0].moved_from == [OLD]
    assert w20.trends.previous_period == "2026-W19"
    for lang in ("zh", "en"):
        tr = translator(lang)
        shown = w20.model_copy(update={"language": lang})
        note = tr.t("report.moved.family_note", old=OLD, new=NEW)
        for fmt in ("markdown", "html"):
            text = render_format(shown, fmt, lang, report_url=URL)
            assert text.count(note) == 1, (lang, fmt)
        for fmt, key in (("slack", "slack.digest.moved"), ("feishu", "feishu.digest.moved")):
            text = render_format(shown, fmt, lang, report_url=URL)
            assert tr.t(key, old=OLD, new=NEW) in text, (lang, fmt)
    assert "项目已迁至 verl-project/verl" in render_format(w20, "markdown", "zh", report_url=URL)
    assert site.family("2026-W20").repos[0].moved_from == [OLD]  # rebuilt: still said
    assert site.family("2026-W21").repos[0].moved_from == []  # any other week: said once only


def test_a_members_previous_week_built_again_is_seen_on_regenerate(site: Site) -> None:
    window = parse_week("2026-W19", site.pipeline.timezone, datetime.now(UTC))
    members = [
        run_week(site.pipeline, r, window, trigger="t", post=False).digest for r in (OLD, OMNI)
    ]
    site.family("2026-W20")  # the family's week before is merged from its members' (move told)
    first = site.family("2026-W20")
    assert site.family("2026-W20").generated_at == first.generated_at  # kept while unchanged
    omni = members[1]
    assert omni is not None
    fewer = omni.stats.model_copy(update={"prs": omni.stats.prs - 1})
    # the member's week before is built again (here: stored again with other inputs)
    site.pipeline.store.save_digest(omni.model_copy(update={"stats": fewer}), inputs="again")
    again = site.family("2026-W20")
    assert again.generated_at > first.generated_at  # analysed again, not the stale digest
    assert again.trends.previous_stats is not None
    both = len(_week("verl", "2026-W19")["pulls"]) + len(_week("verl-omni", "2026-W19")["pulls"])
    assert again.trends.previous_stats.prs == both - 1
