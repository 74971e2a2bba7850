"""A PR that names an older PR the digest does not read is linked to it by number and title.

Real case: volcengine/verl#4969 ("[vllm] fix: vllm TP+DP suuport bug", 2026-W04) names #4715
(2026-W03). Here the store holds no 2026-W03, as when a deployment starts in W04: the collector
asks GitHub for `pulls/4715` once (kept in the store's cache), the digest relates the two, and
`pr 4969` and the report say so."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from service.commands.answer import AnswerKind, Caller, EngineContext, answer_text
from service.core.digest import build_digest
from service.core.models import CollectedPeriod, Digest
from service.core.profile import RepoProfile
from service.github.collect import collect_week
from service.github.http import GitHubHttp
from service.render import feishu, slack
from service.render.report import render_html
from service.render.text import render_answer_text
from service.store.repository import Store
from tests.fakes._server import Recorded, Reply
from tests.fakes.github import FakeGitHub
from tests.github.conftest import REPO, w04, week_data

NOW = datetime(2026, 2, 2, tzinfo=UTC)
USER = Caller(user_id="U1", platform="slack", channel="C1")
OLDER = 4715
HOSTILE_TITLE = "[vllm] feat: <!channel> support TP+DP *now*"


def _serve_older(github: FakeGitHub, title: str | None = None) -> None:
    raw = next(p for p in week_data("2026-W03")["pulls"] if p["number"] == OLDER)
    github.add_pr({**raw, "title": title or raw["title"]})


def _older_requests(github: FakeGitHub) -> int:
    return sum(1 for r in github.api.requests if r.path.endswith(f"/pulls/{OLDER}"))


@pytest.fixture
def collected(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], verl_profile: RepoProfile
) -> CollectedPeriod:
    _serve_older(github)
    return collect_week(make_http(), REPO, w04(), verl_profile, check_references=False)


def test_older_named_prs_are_fetched_once_and_kept(
    github: FakeGitHub,
    collected: CollectedPeriod,
    make_http: Callable[..., GitHubHttp],
    verl_profile: RepoProfile,
) -> None:
    assert [p.number for p in collected.older] == [OLDER]
    (older,) = collected.older
    assert older.title == "[sglang] fix: sglang TP+DP support / port bug"
    assert older.files == []
    # numbers GitHub does not serve (issues, other PRs the fake lacks) are left out quietly
    assert collected.completeness.complete
    assert _older_requests(github) == 1
    again = collect_week(make_http(), REPO, w04(), verl_profile, check_references=False)
    assert [p.number for p in again.older] == [OLDER]
    assert _older_requests(github) == 1  # the store's cache answered


def test_the_digest_relates_the_fix_to_the_older_pr(
    collected: CollectedPeriod, verl_profile: RepoProfile
) -> None:
    digest = build_digest(collected, verl_profile, language="en", now=NOW)
    links = [(r.pr, r.other, r.kind, r.week) for r in digest.relations if r.other == OLDER]
    assert links == [(4969, OLDER, "fixes", "2026-W03")]
    # the full report's PR table says it, by number, title and week
    row = render_html(digest, "en").split('<tr id="pr-4969">')[1].split("</tr>")[0]
    assert "Builds on earlier work: fixes up #4715 “[sglang] fix: sglang TP+DP support" in row
    assert "(Week 3, 2026)" in row


def _ctx(store: Store) -> EngineContext:
    return EngineContext(
        reader=store,
        repos=[REPO],
        language="en",
        timezone="Asia/Shanghai",
        clock=lambda: NOW,
        admins=frozenset(),
        subscriptions=store,
        report_url=lambda repo, week: f"http://reports.test/reports/{repo}/{week}",
    )


def test_pr_answer_names_the_older_pr_on_every_surface_escaped(
    github: FakeGitHub,
    make_http: Callable[..., GitHubHttp],
    verl_profile: RepoProfile,
    store: Store,
) -> None:
    _serve_older(github, HOSTILE_TITLE)
    week = collect_week(make_http(), REPO, w04(), verl_profile, check_references=False)
    digest: Digest = build_digest(week, verl_profile, language="en", now=NOW)
    store.save_digest(digest)
    reply = answer_text("pr 4969", USER, _ctx(store))
    assert reply.kind is AnswerKind.PR
    text = render_answer_text(reply, "en", digest)
    assert "Earlier work it builds on:" in text
    shown = "“\\[vllm\\] feat: &lt;!channel> support TP+DP \\*now\\*” (Week 3, 2026)"
    assert f"- fixes up #4715 {shown}" in text
    blocks = json.dumps(slack.render_answer(reply, "en").blocks)
    assert "fixes up #4715" in blocks
    assert "<!channel>" not in blocks
    card = json.dumps(feishu.render_answer(reply, "en"), ensure_ascii=False)
    assert "fixes up #4715" in card
    assert "<!channel>" not in card


def test_older_prs_are_looked_up_beside_the_file_fetches(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], verl_profile: RepoProfile
) -> None:
    _serve_older(github)
    held = max(
        n
        for n, pr in github.prs.items()
        if n != OLDER and any(verl_profile.needs_patch(f["filename"]) for f in pr.raw["files"])
    )
    asked = threading.Event()
    released: list[bool] = []
    pulls_route = next(h for m, p, h in github.api.prefix_routes if p == f"/repos/{REPO}/pulls/")

    def hold_files(rec: Recorded) -> Reply:
        released.append(asked.wait(10))
        return pulls_route(rec)

    def note_older(rec: Recorded) -> Reply:
        asked.set()
        return pulls_route(rec)

    github.api.route("GET", f"/repos/{REPO}/pulls/{held}/files", hold_files)
    github.api.route("GET", f"/repos/{REPO}/pulls/{OLDER}", note_older)
    week = collect_week(make_http(), REPO, w04(), verl_profile, check_references=False)
    assert released == [True]  # the older PR was asked while that fetch was still waiting
    assert [p.number for p in week.older] == [OLDER]
    assert held in [p.number for p in week.prs if p.patches_fetched]
