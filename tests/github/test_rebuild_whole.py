"""A stored snapshot stands for its PR on a rebuild only when it is whole: one a file page
missed, or one read without a token (no reviews, checks or decision), is read again."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from service.core.models import CollectedPeriod
from service.core.profile import RepoProfile
from service.github.collect import collect_week
from service.github.http import GitHubHttp
from service.store.repository import Store
from tests.fakes._server import Recorded, Reply
from tests.fakes.github import FakeGitHub
from tests.github.conftest import REPO, many_prs, w04, wide_pr

WIDE = 99_000
BARE = RepoProfile(name="bare")  # asks for no patches: GraphQL's file lists only


def collect_and_keep(
    make_http: Callable[..., GitHubHttp], store: Store, **kw: object
) -> CollectedPeriod:
    week = collect_week(make_http(**kw), REPO, w04(), BARE, stored=store, check_references=False)
    store.save_prs(REPO, w04().label, week.prs)
    return week


@pytest.fixture
def big(github: FakeGitHub) -> FakeGitHub:
    """A window of more than a page of PRs (rebuilt from what changed), one with 250 files."""
    github.prs.clear()
    for raw in many_prs(150, w04()):
        github.add_pr(raw)
    github.add_pr(wide_pr(WIDE, 250, w04()))
    return github


def break_file_pages(github: FakeGitHub, number: int) -> list[bool]:
    """GraphQL's further file pages of `number` fail (502) while the returned flag is set."""
    broken = [True]
    route = github.api.routes[("POST", "/graphql")]

    def failing(rec: Recorded) -> Reply:
        body = rec.json() or {}
        more = "MoreFiles" in body.get("query", "")
        if broken[0] and more and (body.get("variables") or {}).get("number") == number:
            return 502, {}, {"message": "Server Error"}
        return route(rec)

    github.api.route("POST", "/graphql", failing)
    return broken


def pr_reads(github: FakeGitHub) -> list[int]:
    return [
        c.json()["variables"]["number"]
        for c in github.calls("POST", "/graphql")
        if "query PullRequest" in c.json()["query"]
    ]


def test_a_partial_snapshot_is_read_again_and_its_gap_stays_until_whole(
    big: FakeGitHub, make_http: Callable[..., GitHubHttp], store: Store
) -> None:
    broken = break_file_pages(big, WIDE)
    partial = collect_and_keep(make_http, store)
    assert [(m.number, m.what) for m in partial.completeness.missing] == [(WIDE, "files")]
    big.reset_log()
    again = collect_and_keep(make_http, store)  # still failing: the gap is said again
    assert pr_reads(big) == [WIDE]
    assert [(m.number, m.what) for m in again.completeness.missing] == [(WIDE, "files")]
    broken[0] = False
    big.reset_log()
    healed = collect_and_keep(make_http, store)
    assert pr_reads(big) == [WIDE]
    assert healed.completeness.complete
    assert len(next(p for p in healed.prs if p.number == WIDE).files) == 250
    big.reset_log()
    collect_and_keep(make_http, store)  # whole now: it stands, nothing is read by number
    assert pr_reads(big) == []


def test_a_snapshot_read_without_a_token_is_read_again_with_one(
    big: FakeGitHub, make_http: Callable[..., GitHubHttp], store: Store
) -> None:
    plain = collect_and_keep(make_http, store, token=None)
    assert all(p.reviews is None for p in plain.prs)
    big.reset_log()
    rich = collect_and_keep(make_http, store)
    assert all(p.reviews is not None for p in rich.prs)
    big.reset_log()
    collect_and_keep(make_http, store)  # the snapshots are whole now: a few requests
    assert len(big.calls()) == 3
