"""A repository that moves keeps its history. verl moved from volcengine/verl to
verl-project/verl in 2026-W05; FakeGitHub moves its repository the way GitHub does (REST under
the old name answers 301 to /repositories/{id}, GraphQL resolves the old name, the search knows
the new name only). A week collected before the move and one after stay one history: the
comparison with the previous week, stored digests, subscriptions, report pages and commands
under the old name all work, the digest after the move says so (zh and en, every format), and
nothing is left under the old name. Everything runs through wiring, the real pipeline, the
real store and the real web app."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import requests
from sqlalchemy import func, select

from service import wiring
from service.commands.answer import AnswerKind, Caller, answer_text
from service.commands.kinds import UsageErrorAnswer
from service.core.models import Digest
from service.core.weeks import parse_week
from service.delivery.outbox import as_targets
from service.pipeline.jobs import Pipeline, run_week
from service.render.environment import translator
from service.render.formats import render_format
from service.settings import Settings
from service.store import tables
from service.store.moves import HISTORY
from service.store.repository import Store
from tests.conftest import WEEKS
from tests.fakes.asgi import run_app
from tests.fakes.github import FakeGitHub

OLD = "volcengine/verl"
NEW = "verl-project/verl"
TOKEN = "ghp_repositoryMoveToken0123456789abcd"
BASE = "http://reports.test"
BEFORE, AFTER = "2026-W03", "2026-W04"
# the catalog sentence each format says it with
MOVED = {
    "markdown": "report.moved.note",
    "html": "report.moved.note",
    "slack": "slack.digest.moved",
    "feishu": "feishu.digest.moved",
}


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub(OLD, token=TOKEN)
    for week in (BEFORE, AFTER):
        fake.serve_week(json.loads((WEEKS / f"{week}.json").read_text(encoding="utf-8")))
    with fake.running():
        yield fake


@pytest.fixture
def site(
    make_settings: Callable[..., Settings], github: FakeGitHub
) -> Callable[..., tuple[Settings, Pipeline]]:
    def build(**overrides: Any) -> tuple[Settings, Pipeline]:
        values: dict[str, Any] = {
            "github_api_url": github.url,
            "github_graphql_url": github.graphql_url,
            "github_token": TOKEN,
            "digest_repos": OLD,
            "digest_language": "en",
            "public_base_url": BASE,
            **overrides,
        }
        settings = make_settings(**values)
        return settings, wiring.build_pipeline(settings, with_senders=False, llm=False)

    return build


def run(pipeline: Pipeline, repo: str, week: str) -> Digest:
    window = parse_week(week, pipeline.timezone, datetime.now(UTC))
    result = run_week(pipeline, repo, window, trigger="test", post=False)
    assert result.digest is not None, result.error
    return result.digest


def rows_named(store: Store, repo: str) -> dict[str, int]:
    with store.engine.connect() as conn:
        return {
            table.name: conn.execute(
                select(func.count()).select_from(table).where(table.c.repo == repo)
            ).scalar_one()
            for table, _key in HISTORY
        }


def test_a_move_keeps_one_history(
    site: Callable[..., tuple[Settings, Pipeline]], github: FakeGitHub, make_settings: Any
) -> None:
    settings, pipeline = site()
    store = pipeline.store
    assert store.subscribe("slack", "C9", OLD, "UADMIN", filter_text="module:trainer")
    before = run(pipeline, OLD, BEFORE)
    assert before.repo == OLD
    assert before.moved_from == []

    github.move_to(NEW)
    after = run(pipeline, OLD, AFTER)  # DIGEST_REPOS still names the old repository

    # the weekly comparison crosses the move: the same trends as a store that never moved
    _, control = site(database_url=f"sqlite:///{settings.database_url.split('///')[1]}.ctl")
    control_week = run(control, NEW, BEFORE), run(control, NEW, AFTER)
    assert after.trends.previous_period == BEFORE
    assert after.trends.model_dump() == control_week[1].trends.model_dump()
    assert any(b.previous is not None for b in after.trends.modules)
    assert after.repo == NEW
    assert after.moved_from == [OLD]
    assert control_week[1].moved_from == []

    # nothing stays under the old name; the old name is an alias of GitHub's id
    assert set(rows_named(store, OLD).values()) == {0}
    moved = rows_named(store, NEW)
    assert moved["pr_snapshots"] == len(before.prs) + len(after.prs)
    assert moved["digests"] == 2
    assert moved["subscriptions"] == 1
    assert moved["runs"] == 2
    assert store.canonical_repo(OLD) == NEW
    assert store.list_periods(NEW) == [AFTER, BEFORE]
    assert store.repo_privacy(OLD) is False
    last = store.last_run(OLD)  # the scheduler's catch-up asks by the configured (old) name
    assert last is not None
    assert (last.repo, last.period) == (NEW, AFTER)
    targets = {t.destination for t in as_targets(pipeline.destinations_for(OLD, "weekly"))}
    assert targets == {t.destination for t in as_targets(pipeline.destinations_for(NEW, "weekly"))}
    assert targets == {"slack:C9"}

    # the search was asked under the new name: under the old one it finds nothing
    searched = [c.json()["variables"]["q"] for c in github.calls("POST", "/graphql")]
    assert searched
    assert all(f"repo:{NEW} " in q for q in searched[-2:])
    assert ("GET", f"/repos/{OLD}", 301) in github.answers


def test_the_digest_after_the_move_says_so_once(
    site: Callable[..., tuple[Settings, Pipeline]], github: FakeGitHub
) -> None:
    _, pipeline = site()
    run(pipeline, OLD, BEFORE)
    github.move_to(NEW)
    after = run(pipeline, OLD, AFTER)
    for lang in ("zh", "en"):
        shown = after.model_copy(update={"language": lang})
        for fmt, key in MOVED.items():
            text = render_format(shown, fmt, lang, report_url=f"{BASE}/reports/{NEW}/{AFTER}")
            assert translator(lang).t(key, old=OLD, new=NEW) in text, (lang, fmt)
    assert run(pipeline, NEW, AFTER).moved_from == [OLD]  # the same week, rebuilt: still said
    assert run(pipeline, NEW, BEFORE).moved_from == []  # any other digest: said once only


def test_old_names_still_work_in_commands_and_report_links(
    site: Callable[..., tuple[Settings, Pipeline]], github: FakeGitHub
) -> None:
    settings, pipeline = site(reports_access="signed")
    run(pipeline, OLD, BEFORE)
    old_link = wiring.pipeline_links(settings, pipeline).url(OLD, BEFORE)  # in a card already
    github.move_to(NEW)
    run(pipeline, OLD, AFTER)

    ctx = wiring.engine_context(settings, pipeline)
    caller = Caller(user_id="U1", platform="slack", channel="C1")
    for text in (f"risks {AFTER} {OLD}", f"risks {BEFORE} {OLD}", f"risks {BEFORE} {NEW}"):
        reply = answer_text(text, caller, ctx)
        assert reply.kind is AnswerKind.RISKS, (text, reply)
        assert reply.repo == NEW
        assert f"/reports/{NEW}/" in reply.report_url
    unknown = answer_text(f"risks {AFTER} someone/else", caller, ctx)
    assert isinstance(unknown, UsageErrorAnswer)
    assert unknown.key == "cmd.error.unknown_repo"

    with run_app(wiring.build_app(settings, pipeline)) as url:

        def status(link: str) -> int:
            return requests.get(url + link.removeprefix(BASE), timeout=30).status_code

        assert status(old_link) == 200  # signed for the old name before the move
        assert status(wiring.pipeline_links(settings, pipeline).url(NEW, BEFORE)) == 200
        assert status(wiring.pipeline_links(settings, pipeline).url(OLD, AFTER)) == 200
        assert status(old_link.partition("?")[0]) == 404  # still signed-only
        page = requests.get(url + old_link.removeprefix(BASE), timeout=30).text
        assert "2026" in page


def test_a_new_name_in_the_settings_finds_the_history_of_the_old_one(
    site: Callable[..., tuple[Settings, Pipeline]], github: FakeGitHub
) -> None:
    _, pipeline = site()
    run(pipeline, OLD, BEFORE)  # GitHub's id recorded under the old name
    github.move_to(NEW)
    _, renamed = site(digest_repos=NEW)  # the operator updated DIGEST_REPOS first
    after = run(renamed, NEW, AFTER)
    assert after.moved_from == [OLD]
    assert after.trends.previous_period == BEFORE
    assert any(b.previous is not None for b in after.trends.modules)
    assert set(rows_named(renamed.store, OLD).values()) == {0}
    with renamed.store.engine.connect() as conn:
        aliases = conn.execute(select(tables.repository_aliases.c.alias)).scalars().all()
    assert aliases == [OLD]
