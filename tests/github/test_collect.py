"""collect_week and fetch_pr against FakeGitHub serving real verl weeks."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from service.core.models import FileStatus, PullRequest
from service.core.profile import RepoProfile
from service.core.relations import older_references
from service.core.weeks import window_for
from service.errors import AuthRefusedError, NotFoundError, RateLimitError, UnreachableError
from service.github import graphql, rest
from service.github.collect import MAX_OLDER, collect_week, fetch_pr
from service.github.http import GitHubHttp
from service.pipeline.recorded import pr_from_recorded
from tests.fakes.github import FakeGitHub
from tests.github.conftest import REPO, TOKEN, many_prs, w04, week_data, wide_pr

BARE = RepoProfile(name="bare")  # asks for no patches


def recorded_in_window() -> list[PullRequest]:
    window = w04()
    prs = [pr_from_recorded(raw, REPO) for raw in week_data("2026-W04")["pulls"]]
    return sorted(
        (p for p in prs if window.start <= p.merged_at < window.end), key=lambda p: p.merged_at
    )


def shape(prs: list[PullRequest]) -> list[tuple[object, ...]]:
    return [
        (p.number, p.additions, p.deletions, p.changed_files, [(f.path, f.status) for f in p.files])
        for p in sorted(prs, key=lambda p: p.number)
    ]


def test_graphql_week_is_the_recorded_week(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], verl_profile: RepoProfile
) -> None:
    week = collect_week(make_http(), REPO, w04(), verl_profile)
    expected = recorded_in_window()
    assert len(expected) >= 20
    assert shape(week.prs) == shape(expected)
    assert week.completeness.complete
    assert week.source == "github"
    by_number = {p.number: p for p in expected}
    for pr in week.prs:
        wanted = any(verl_profile.needs_patch(f.path) for f in pr.files)
        assert pr.patches_fetched is wanted
        if wanted:
            assert [f.patch for f in pr.files] == [f.patch for f in by_number[pr.number].files]
            assert [f.previous_path for f in pr.files] == [
                f.previous_path for f in by_number[pr.number].files
            ]
        assert pr.title == by_number[pr.number].title
        assert pr.merge_commit == by_number[pr.number].merge_commit


def test_cold_requests_are_pages_plus_patched_prs_plus_repo_check(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], verl_profile: RepoProfile
) -> None:
    http = make_http()
    week = collect_week(http, REPO, w04(), verl_profile, check_references=False)
    patched = sum(1 for p in week.prs if p.patches_fetched)
    # and one pulls/N per older PR the week names (test_older_links: then cached)
    older = len(older_references(REPO, week.prs, {p.number for p in week.prs}, MAX_OLDER))
    assert older > 0
    assert http.stats.graphql_requests == 1
    assert http.stats.rest_requests == patched + 1 + older
    assert http.stats.requests == 1 + patched + 1 + older
    assert http.stats.rate_limit_cost >= http.stats.rest_requests
    assert http.stats.bytes_downloaded > 0


def test_rest_path_returns_the_same_prs_as_graphql(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], verl_profile: RepoProfile
) -> None:
    with_token = collect_week(make_http(), REPO, w04(), verl_profile)
    without = collect_week(make_http(token=None), REPO, w04(), verl_profile)
    assert shape(without.prs) == shape(with_token.prs)
    assert all(p.patches_fetched for p in without.prs)
    assert all(p.reviews is None and p.check_state is None for p in without.prs)
    assert without.references_checked is False


def test_token_less_path_sends_no_authorization_and_no_graphql(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], verl_profile: RepoProfile
) -> None:
    collect_week(make_http(token=None), REPO, w04(), verl_profile)
    assert github.calls("POST", "/graphql") == []
    assert all(c.header("authorization") is None for c in github.calls())
    assert len(github.calls("GET", "/search/issues")) == 1


@pytest.mark.parametrize("token", [TOKEN, None])
def test_window_edges_in_asia_shanghai(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], token: str | None
) -> None:
    raw = week_data("2026-W04")["pulls"][0]
    edges = {
        1: "2026-01-18T16:00:00Z",  # Monday 00:00:00+08:00: first second of the week, in
        2: "2026-01-18T15:59:59Z",  # Sunday 23:59:59+08:00 of the week before, out
        3: "2026-01-25T15:59:59Z",  # Sunday 23:59:59+08:00, in
        4: "2026-01-25T16:00:00Z",  # next Monday 00:00:00+08:00, out
    }
    github.prs.clear()
    for number, merged in edges.items():
        github.add_pr({**raw, "number": number, "merged_at": merged, "created_at": merged})
    week = collect_week(make_http(token=token), REPO, w04(), BARE)
    assert [p.number for p in week.prs] == [1, 3]
    assert week.prs[1].merged_at == datetime.fromisoformat("2026-01-25T23:59:59+08:00")


def test_graphql_pagination_over_several_pages(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    github.prs.clear()
    for raw in many_prs(130, w04()):
        github.add_pr(raw)
    http = make_http()
    nodes = graphql.search_nodes(http, REPO, w04().start, w04().end, page_size=30)
    assert sorted(n["number"] for n in nodes) == sorted(github.prs)
    posts = github.calls("POST", "/graphql")
    assert len(posts) == 5
    cursors = [p.json()["variables"]["cursor"] for p in posts]
    assert cursors[0] is None
    assert len(set(cursors)) == 5
    week = collect_week(make_http(), REPO, w04(), BARE)
    assert len(week.prs) == 130


def test_rest_pagination_over_several_pages(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    github.prs.clear()
    for raw in many_prs(250, w04()):
        github.add_pr(raw)
    items = rest.search_items(make_http(token=None), REPO, w04().start, w04().end)
    assert sorted(i["number"] for i in items) == sorted(github.prs)
    pages = github.calls("GET", "/search/issues")
    assert [p.query.get("page", ["1"])[0] for p in pages] == ["1", "2", "3"]


@pytest.mark.parametrize("token", [TOKEN, None])
def test_a_pr_with_250_files_gets_them_all(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], token: str | None
) -> None:
    github.prs.clear()
    github.add_pr(wide_pr(777, 250, w04()))
    profile = RepoProfile(name="docs", patterns={"docs": ["docs/**"]})
    week = collect_week(make_http(token=token), REPO, w04(), profile)
    (pr,) = week.prs
    assert len(pr.files) == 250 == pr.changed_files
    assert len({f.path for f in pr.files}) == 250
    assert pr.patches_fetched
    assert sum(f.additions for f in pr.files) == pr.additions
    assert len(github.calls("GET", f"/repos/{REPO}/pulls/777/files")) == 3
    # REST lists its files with their patches: GraphQL is not asked for pages past the first
    assert more_files_asked(github) == 0


def more_files_asked(github: FakeGitHub) -> int:
    return sum(1 for c in github.calls("POST", "/graphql") if "MoreFiles" in c.json()["query"])


def test_a_wide_pr_whose_wanted_file_is_past_the_first_page_is_paged(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    github.prs.clear()
    github.add_pr(wide_pr(777, 250, w04()))
    last = github.prs[777].raw["files"][-1]["filename"]
    profile = RepoProfile(name="last", core_paths=[last])
    (pr,) = collect_week(make_http(), REPO, w04(), profile, check_references=False).prs
    assert more_files_asked(github) == 2  # only all 250 paths tell that a patch is wanted
    assert pr.patches_fetched
    assert len(pr.files) == 250


def test_a_wide_pr_whose_rest_files_fail_gets_graphqls_whole_list(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    github.prs.clear()
    github.add_pr(wide_pr(777, 250, w04()))
    github.break_path(f"/repos/{REPO}/pulls/777/files")
    profile = RepoProfile(name="docs", patterns={"docs": ["docs/**"]})
    week = collect_week(make_http(), REPO, w04(), profile, check_references=False)
    (pr,) = week.prs
    assert not pr.patches_fetched
    assert len(pr.files) == 250  # as GraphQL lists them, asked only once REST had failed
    assert more_files_asked(github) == 2
    assert [(m.number, m.what) for m in week.completeness.missing] == [(777, "patches")]


@pytest.mark.parametrize("token", [TOKEN, None])
def test_more_than_1000_results_split_the_window(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], token: str | None
) -> None:
    github.prs.clear()
    for raw in many_prs(1500, w04()):
        github.add_pr(raw)
    http = make_http(token=token)
    if token:
        found = [n["number"] for n in graphql.search_nodes(http, REPO, w04().start, w04().end)]
        queries = [c.json()["variables"]["q"] for c in github.calls("POST", "/graphql")]
    else:
        found = [i["number"] for i in rest.search_items(http, REPO, w04().start, w04().end)]
        queries = [c.query["q"][0] for c in github.calls("GET", "/search/issues")]
    assert sorted(found) == sorted(github.prs)
    assert len(found) == 1500
    assert len(set(queries)) >= 3  # the whole week, then its parts


@pytest.mark.parametrize("token", [TOKEN, None])
def test_repeat_run_is_answered_with_304s(
    github: FakeGitHub,
    make_http: Callable[..., GitHubHttp],
    verl_profile: RepoProfile,
    token: str | None,
) -> None:
    cold = collect_week(make_http(token=token), REPO, w04(), verl_profile, check_references=False)
    github.reset_log()
    http = make_http(token=token)
    warm = collect_week(http, REPO, w04(), verl_profile, check_references=False)
    assert warm == cold
    assert github.rest_bodies_sent() == 0
    rest_gets = len(github.calls("GET"))
    assert rest_gets == http.stats.not_modified == http.stats.rest_requests > 1
    assert all(c.header("if-none-match") for c in github.calls("GET"))


def test_pr_whose_patches_keep_failing_is_listed_missing(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], verl_profile: RepoProfile
) -> None:
    broken = next(
        p.number
        for p in recorded_in_window()
        if any(verl_profile.needs_patch(f.path) for f in p.files)
    )
    github.break_path(f"/repos/{REPO}/pulls/{broken}/files")
    week = collect_week(make_http(), REPO, w04(), verl_profile)
    assert not week.completeness.complete
    (missing,) = week.completeness.missing
    assert (missing.number, missing.what) == (broken, "patches")
    assert "502" in missing.reason
    assert len(week.prs) == len(recorded_in_window())
    pr = next(p for p in week.prs if p.number == broken)
    assert not pr.patches_fetched
    assert pr.files
    assert sum(1 for p in week.prs if p.patches_fetched) > 10


def test_token_less_pr_whose_files_keep_failing_is_listed_missing(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], verl_profile: RepoProfile
) -> None:
    broken = recorded_in_window()[0].number
    github.break_path(f"/repos/{REPO}/pulls/{broken}/files")
    week = collect_week(make_http(token=None), REPO, w04(), verl_profile)
    assert [(m.number, m.what) for m in week.completeness.missing] == [(broken, "files")]
    assert next(p for p in week.prs if p.number == broken).files == []


def test_unknown_repository_is_not_found(make_http: Callable[..., GitHubHttp]) -> None:
    with pytest.raises(NotFoundError) as info:
        collect_week(make_http(), "volcengine/nope", w04(), BARE)
    assert str(info.value) == "repository volcengine/nope not found (or the token can't see it)"


def test_wrong_token_is_refused(make_http: Callable[..., GitHubHttp]) -> None:
    with pytest.raises(AuthRefusedError) as info:
        collect_week(make_http(token="wrong-token"), REPO, w04(), BARE)
    assert str(info.value) == "GitHub refused the token (401): check GITHUB_TOKEN"
    assert "wrong-token" not in str(info.value)


def test_reviews_threads_and_checks_come_through(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    target = github.prs[recorded_in_window()[0].number]
    target.labels = ["documentation"]
    target.reviews = [("COMMENTED", "alice"), ("APPROVED", "bob")]
    target.review_decision = "APPROVED"
    target.comments = 4
    target.threads = [
        {"resolved": True, "path": "docs/a.rst", "line": 3, "body": "ok"},
        {
            "resolved": False,
            "path": "verl/protocol.py",
            "line": 9,
            "body": "why?",
            "author": "carol",
        },
    ]
    target.rollup = "FAILURE"
    target.contexts = [
        {"__typename": "CheckRun", "name": "unit", "conclusion": "SUCCESS", "detailsUrl": "u"},
        {"__typename": "CheckRun", "name": "e2e", "conclusion": "FAILURE", "detailsUrl": "e"},
    ]
    week = collect_week(make_http(), REPO, w04(), BARE)
    pr = next(p for p in week.prs if p.number == target.number)
    assert pr.labels == ["documentation"]
    assert [(r.state, r.author) for r in pr.reviews or []] == [
        ("COMMENTED", "alice"),
        ("APPROVED", "bob"),
    ]
    assert (pr.review_decision, pr.comments) == ("APPROVED", 4)
    assert (pr.review_threads_total, pr.review_threads_unresolved) == (2, 1)
    assert pr.unresolved_threads[0].author == "carol"
    assert pr.check_state == "FAILURE"
    assert [(c.name, c.state) for c in pr.failing_checks] == [("e2e", "FAILURE")]


def test_remaining_references_to_removed_directories(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    github.prs.clear()
    github.serve_week(week_data("2025-W48"))
    github.tree = {
        "docs/start/agentic_rl.rst": "see recipe/langgraph_agent/react_agent_loop.py for the loop",
        "examples/retool.sh": "python3 -m recipe.retool.retool_sft_preprocess",
        "verl/trainer/main_ppo.py": "import verl.workers.fsdp_workers  # roles are gone",
        "docs/recipes.md": "each recipe lives in its own folder; retool is one",
    }
    week = collect_week(make_http(), REPO, window_for(2025, 48, "Asia/Shanghai"), BARE)
    assert week.references_checked
    assert week.remaining_references == {
        "recipe/retool": ["examples/retool.sh"],
        "recipe/langgraph_agent": ["docs/start/agentic_rl.rst"],
        "verl/workers/roles": [],
    }
    queries = [c.query["q"][0] for c in github.calls("GET", "/search/code")]
    assert queries == [
        '"recipe.langgraph_agent" repo:volcengine/verl',
        '"recipe.retool" repo:volcengine/verl',
        '"verl.workers.roles" repo:volcengine/verl',
    ]


def test_fetch_pr_live_with_patches(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    expected = recorded_in_window()[2]
    for token in (TOKEN, None):
        pr = fetch_pr(make_http(token=token), REPO, expected.number)
        assert shape([pr]) == shape([expected])
        assert [f.patch for f in pr.files] == [f.patch for f in expected.files]
    with pytest.raises(NotFoundError, match="#999999"):
        fetch_pr(make_http(), REPO, 999999)
    with pytest.raises(NotFoundError, match="#999999"):
        fetch_pr(make_http(token=None), REPO, 999999)


def test_file_statuses_keep_renames(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    profile = RepoProfile(name="all", patterns={"docs": ["**"]})
    week = collect_week(make_http(), REPO, w04(), profile)
    renamed = [f for p in week.prs for f in p.files if f.status == FileStatus.RENAMED]
    assert renamed
    assert all(f.previous_path for f in renamed)


@pytest.mark.parametrize(("token", "path"), [(TOKEN, "/graphql"), (None, "/search/issues")])
def test_a_failed_search_page_is_fatal(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], token: str | None, path: str
) -> None:
    github.break_path(path, 502)
    with pytest.raises(UnreachableError, match="kept answering 502"):
        collect_week(make_http(token=token), REPO, w04(), BARE)


def test_rate_limit_while_fetching_patches_ends_the_run(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], verl_profile: RepoProfile
) -> None:
    target = next(
        p.number
        for p in recorded_in_window()
        if any(verl_profile.needs_patch(f.path) for f in p.files)
    )
    reset = str(int(datetime.now(UTC).timestamp()) + 3600)
    limit = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset}
    github.break_path(f"/repos/{REPO}/pulls/{target}/files", 403, limit)
    with pytest.raises(RateLimitError, match="UTC"):
        collect_week(make_http(), REPO, w04(), verl_profile)


def test_refused_code_search_ran_but_answered_nothing(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    # the search ran (a token was there): no path has an answer, and none is claimed clean
    github.prs.clear()
    github.serve_week(week_data("2025-W48"))
    github.break_path("/search/code", 403)
    week = collect_week(make_http(), REPO, window_for(2025, 48, "Asia/Shanghai"), BARE)
    assert week.references_checked is True
    assert week.remaining_references == {}
    assert len(week.prs) == len(week_data("2025-W48")["pulls"])


def test_progress_reports_each_pr(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], verl_profile: RepoProfile
) -> None:
    seen: list[tuple[int, int]] = []
    week = collect_week(
        make_http(token=None), REPO, w04(), verl_profile, progress=lambda d, t: seen.append((d, t))
    )
    assert seen == [(i, len(week.prs)) for i in range(1, len(week.prs) + 1)]
