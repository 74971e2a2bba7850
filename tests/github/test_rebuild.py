"""A rebuild of a finished week against FakeGitHub: the files of a merged PR stored under the
same merge commit are not asked again, one stored under another merge commit is; capped search
windows are cut once into parts; code-search answers are reused while fresh."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from itertools import pairwise

import pytest

from service.core.models import CollectedPeriod
from service.core.profile import RepoProfile
from service.core.relations import older_references
from service.core.weeks import window_for
from service.github import graphql
from service.github.collect import MAX_OLDER, collect_week
from service.github.http import GitHubHttp
from service.github.search import SEARCH_CAP, split
from service.store.repository import Store
from tests.fakes._server import Recorded, Reply
from tests.fakes.github import QUERY_RE, FakeGitHub
from tests.github.conftest import REPO, TOKEN, many_prs, w04, week_data

FILES = "/files"
PAGE = graphql.PAGE_SIZE


def files_calls(github: FakeGitHub) -> list[int]:
    """PR numbers whose `pulls/N/files` the fake was asked for, in order."""
    return [
        int(c.path.split("/")[-2])
        for c in github.calls("GET")
        if c.path.startswith(f"/repos/{REPO}/pulls/") and c.path.endswith(FILES)
    ]


def merged_between(github: FakeGitHub, q: str) -> list[int]:
    """The fake's PRs a `merged:LOW..HIGH` query (both ends inclusive) covers."""
    match = QUERY_RE.match(q)
    assert match is not None
    low, high = (datetime.fromisoformat(match.group(i)) for i in (2, 3))
    return [n for n, pr in github.prs.items() if low <= pr.merged_at <= high]


def collect_and_keep(
    make_http: Callable[..., GitHubHttp], store: Store, profile: RepoProfile, **kw: object
) -> CollectedPeriod:
    """What the pipeline does: collect with the store as the memory of PRs, keep the PRs."""
    week = collect_week(make_http(**kw), REPO, w04(), profile, stored=store, check_references=False)
    store.save_prs(REPO, w04().label, week.prs)
    return week


@pytest.mark.parametrize("token", [TOKEN, None])
def test_warm_rebuild_asks_no_files_of_stored_merged_prs(
    github: FakeGitHub,
    make_http: Callable[..., GitHubHttp],
    store: Store,
    verl_profile: RepoProfile,
    token: str | None,
) -> None:
    cold = collect_and_keep(make_http, store, verl_profile, token=token)
    patched = [p.number for p in cold.prs if p.patches_fetched]
    assert sorted(files_calls(github)) == sorted(patched)
    assert len(patched) >= 15
    github.reset_log()
    warm = collect_and_keep(make_http, store, verl_profile, token=token)
    assert files_calls(github) == []
    assert warm == cold  # the stored files, patches included, are the ones GitHub gave
    if token:  # only the search page (reviews, labels, checks afresh) and the repository
        assert len(github.calls("POST", "/graphql")) == 1
        assert [c.path for c in github.calls("GET")] == [f"/repos/{REPO}"]
    else:  # REST has no search that carries the details: pulls/N (304s), never their files
        assert len(github.calls("GET", "/search/issues")) == 1
        pulls = [c for c in github.calls("GET") if c.path.count("/") == 5]
        assert len(pulls) == len(cold.prs)


@pytest.mark.parametrize("token", [TOKEN, None])
def test_a_pr_stored_under_another_merge_commit_is_fetched_again(
    github: FakeGitHub,
    make_http: Callable[..., GitHubHttp],
    store: Store,
    verl_profile: RepoProfile,
    token: str | None,
) -> None:
    cold = collect_and_keep(make_http, store, verl_profile, token=token)
    target = next(p for p in cold.prs if p.patches_fetched)
    raw = github.prs[target.number].raw
    raw["merge_commit_sha"] = "f" * 40  # merged again (e.g. history rewritten)
    changed = next(f for f in raw["files"] if f.get("patch"))
    changed["patch"] = "@@ -1,0 +1,1 @@\n+rm -rf /tmp/new-content"
    github.reset_log()
    warm = collect_and_keep(make_http, store, verl_profile, token=token)
    assert files_calls(github) == [target.number]
    again = next(p for p in warm.prs if p.number == target.number)
    assert again.merge_commit == "f" * 40
    assert "@@ -1,0 +1,1 @@\n+rm -rf /tmp/new-content" in [f.patch for f in again.files]
    assert store.stored_prs(REPO, [target.number])[target.number] == again
    others = [p for p in warm.prs if p.number != target.number]
    assert others == [p for p in cold.prs if p.number != target.number]


def test_a_pr_stored_without_its_patches_is_fetched(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], store: Store
) -> None:
    bare = RepoProfile(name="bare")  # asks for no patches: snapshots hold GraphQL's file list
    cold = collect_and_keep(make_http, store, bare)
    assert files_calls(github) == []
    docs = RepoProfile(name="docs", patterns={"docs": ["**/*.md", "**/*.rst"]})
    wanted = sorted(p.number for p in cold.prs if any(docs.needs_patch(f.path) for f in p.files))
    assert wanted
    collect_and_keep(make_http, store, docs)
    assert sorted(files_calls(github)) == wanted


def test_without_a_store_the_files_stay_etag_cached(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], verl_profile: RepoProfile
) -> None:
    collect_week(make_http(), REPO, w04(), verl_profile, check_references=False)
    asked = len(files_calls(github))
    github.reset_log()
    collect_week(make_http(), REPO, w04(), verl_profile, check_references=False)
    assert len(files_calls(github)) == asked
    assert github.rest_bodies_sent() == 0


def test_a_capped_window_is_cut_once_into_parts_searched_together(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    github.prs.clear()
    for raw in many_prs(2000, w04()):
        github.add_pr(raw)
    http = make_http()
    nodes = graphql.search_nodes(http, REPO, w04().start, w04().end, concurrency=4)
    assert sorted(n["number"] for n in nodes) == sorted(github.prs)
    queries = [c.json()["variables"] for c in github.calls("POST", "/graphql")]
    firsts = [v["q"] for v in queries if v["cursor"] is None]
    assert len(firsts) == 1 + 3  # the whole week, then its three parts: none capped again
    counts = [len(merged_between(github, q)) for q in firsts[1:]]
    assert all(n < SEARCH_CAP for n in counts)
    assert len(queries) == 1 + sum(-(-n // PAGE) for n in counts)
    assert {v["first"] for v in queries} == {100}  # GitHub's largest page: 1 + 21 requests
    assert len(queries) == 22


def test_split_cuts_on_whole_seconds_into_parts_of_three_quarters_of_the_cap() -> None:
    start, end = w04().start, w04().end
    parts = split(start, end, 2000)
    assert len(parts) == 3
    assert parts[0][0] == start
    assert parts[-1][1] == end
    assert all(a[1] == b[0] for a, b in pairwise(parts))
    assert all((hi - lo).total_seconds() % 1 == 0 for lo, hi in parts)
    assert len(split(start, end, SEARCH_CAP)) == 2
    tiny = split(start, start + timedelta(seconds=3), 5000)
    assert [hi - lo for lo, hi in tiny] == [timedelta(seconds=1)] * 3


def test_code_search_answers_are_reused_while_fresh(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], store: Store
) -> None:
    github.prs.clear()
    github.serve_week(week_data("2025-W48"))
    github.tree = {"docs/start/agentic_rl.rst": "see recipe.langgraph_agent.react_agent_loop"}
    window = window_for(2025, 48, "Asia/Shanghai")
    bare = RepoProfile(name="bare")
    cold = collect_week(make_http(), REPO, window, bare, stored=store)
    assert len(github.calls("GET", "/search/code")) == 3
    github.reset_log()
    http = make_http()
    warm = collect_week(http, REPO, window, bare, stored=store)
    assert github.calls("GET", "/search/code") == []
    # the older PRs the week names were looked up once too (cached, found or not)
    older = len(older_references(REPO, cold.prs, {p.number for p in cold.prs}, MAX_OLDER))
    assert http.stats.fresh == 3 + older
    assert warm.remaining_references == cold.remaining_references
    assert warm.remaining_references["recipe/langgraph_agent"] == ["docs/start/agentic_rl.rst"]


def test_a_big_finished_week_is_rebuilt_from_the_store_with_a_few_requests(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], store: Store
) -> None:
    github.prs.clear()
    for raw in many_prs(2000, w04()):
        github.add_pr(raw)
    bare = RepoProfile(name="bare")
    cold = collect_and_keep(make_http, store, bare)
    assert len(github.calls("POST", "/graphql")) == 22
    github.reset_log()
    warm = collect_and_keep(make_http, store, bare)
    # the repository, how many PRs the week has, and which of them changed since: none
    assert len(github.calls()) == 3
    assert warm == cold

    # a PR labelled after the week was kept: only it is read again, the others stand
    touched = cold.prs[700].number
    github.prs[touched].labels = ["needs-backport"]
    github.prs[touched].touch(datetime.now(UTC))
    github.reset_log()
    again = collect_and_keep(make_http, store, bare)
    assert len(github.calls()) == 3
    changed = [c.json()["variables"]["q"] for c in github.calls("POST", "/graphql")][-1]
    assert "updated:>=" in changed
    assert [p.labels for p in again.prs if p.number == touched] == [["needs-backport"]]
    assert [p for p in again.prs if p.number != touched] == [
        p for p in cold.prs if p.number != touched
    ]


def test_a_window_the_store_holds_only_part_of_is_searched_whole(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], store: Store
) -> None:
    github.prs.clear()
    for raw in many_prs(1200, w04()):
        github.add_pr(raw)
    bare = RepoProfile(name="bare")
    cold = collect_week(make_http(), REPO, w04(), bare, check_references=False)
    store.save_prs(REPO, w04().label, cold.prs[:900])  # e.g. a month's edge, or a lost save
    github.reset_log()
    warm = collect_and_keep(make_http, store, bare)
    assert warm == cold
    plain = [
        c for c in github.calls("POST", "/graphql") if "updated:" not in c.json()["variables"]["q"]
    ]
    assert len(plain) > 10  # the count, then every page of the window again


def test_code_searches_run_beside_the_file_fetches(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], verl_profile: RepoProfile
) -> None:
    github.prs.clear()
    github.serve_week(week_data("2025-W48"))
    github.tree = {"docs/start/agentic_rl.rst": "see recipe.langgraph_agent.react_agent_loop"}
    window = window_for(2025, 48, "Asia/Shanghai")
    plain = collect_week(make_http(), REPO, window, verl_profile, check_references=False)
    # a PR that removes nothing: its files are held until a code search has arrived
    held = next(
        p.number
        for p in reversed(plain.prs)
        if p.patches_fetched and not any(f.status.value in ("removed", "renamed") for f in p.files)
    )
    searched = threading.Event()
    released: list[bool] = []
    files_route = next(h for m, p, h in github.api.prefix_routes if p == f"/repos/{REPO}/pulls/")
    code_route = github.api.routes[("GET", "/search/code")]

    def hold_files(rec: Recorded) -> Reply:
        released.append(searched.wait(10))
        return files_route(rec)

    def note_search(rec: Recorded) -> Reply:
        searched.set()
        return code_route(rec)

    github.api.route("GET", f"/repos/{REPO}/pulls/{held}/files", hold_files)
    github.api.route("GET", "/search/code", note_search)
    week = collect_week(make_http(), REPO, window, verl_profile)
    assert released == [True]  # the search went out while that fetch was still waiting
    assert week.remaining_references  # and its answers are the week's
    assert week.prs == plain.prs
