"""A malformed GitHub answer (truncated, HTML, empty, null, an `errors`-only 200, a missing or
null field) is retried like a 5xx, and when it persists it is a GitHub error naming the request
(method and path, never the token), not a TypeError; and a PR longer than GitHub's 3,000-file
REST list makes the digest say it is partial, in every format."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from service.core.digest import build_digest
from service.core.models import CollectedPeriod
from service.core.profile import RepoProfile
from service.errors import UpstreamError
from service.github import rest
from service.github.collect import collect_week, fetch_pr
from service.github.http import GitHubHttp
from service.render.formats import render_format
from service.store.repository import Store
from tests.fakes._server import Recorded, Reply
from tests.fakes.github import FakeGitHub
from tests.github.conftest import REPO, TOKEN, w04, wide_pr

PULL = 4970  # a real verl PR of 2026-W04
HTML: Reply = (200, {"content-type": "text/html"}, b"<html><body>Unicorn!</body></html>")
TRUNCATED: Reply = (200, {"content-type": "application/json"}, b'{"number": 49')
EMPTY: Reply = (200, {"content-type": "application/json"}, b"\n")
NULL: Reply = (200, {"content-type": "application/json"}, b"null")
ERRORS_ONLY: Reply = (
    200,
    {},
    {"data": None, "errors": [{"message": "Something went wrong while executing your query."}]},
)
MALFORMED = {"html": HTML, "truncated": TRUNCATED, "empty": EMPTY, "null": NULL}


class Script:
    """A route answering its calls from `script` first, then as it always does."""

    def __init__(self, github: FakeGitHub, key: tuple[str, str], script: list[Any]) -> None:
        self.original = github.api.routes[key]
        self.script = script
        self.calls = 0
        github.api.routes[key] = self

    def __call__(self, rec: Recorded) -> Reply:
        self.calls += 1
        if self.script:
            step = self.script.pop(0)
            reply: Reply = step(self.original(rec)) if callable(step) else step
            return reply
        answer: Reply = self.original(rec)
        return answer


def search_with(change: Callable[[dict[str, Any]], None]) -> Callable[[Reply], Reply]:
    """A search answer with `change` made to its JSON (a field dropped or nulled)."""

    def edit(reply: Reply) -> Reply:
        status, headers, payload = reply
        changed = json.loads(json.dumps(payload))
        change(changed)
        return status, headers, changed

    return edit


@pytest.mark.parametrize("fault", sorted(MALFORMED))
def test_a_malformed_rest_answer_is_asked_again(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], fault: str
) -> None:
    http = make_http()
    github.api.fail_next(*MALFORMED[fault])
    page = http.get(f"/repos/{REPO}/pulls/{PULL}")
    assert page.data["number"] == PULL
    assert http.stats.retries == 1


@pytest.mark.parametrize("fault", sorted(MALFORMED))
def test_a_malformed_rest_answer_that_persists_names_the_request(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], fault: str
) -> None:
    http = make_http(max_retries=2)
    status, headers, payload = MALFORMED[fault]
    github.api.fail_next(status, headers, payload, times=3)
    with pytest.raises(UpstreamError) as caught:
        http.get(f"/repos/{REPO}/pulls/{PULL}")
    message = caught.value.message
    assert message.startswith(f"GitHub answered GET /repos/{REPO}/pulls/{PULL} with ")
    assert message.endswith("after 3 attempts")
    assert TOKEN not in message
    assert "127.0.0.1" not in message
    assert len(github.calls()) == 3


def test_an_errors_only_graphql_answer_is_retried_then_the_week_completes(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    script = Script(github, ("POST", "/graphql"), [ERRORS_ONLY, ERRORS_ONLY])
    week = collect_week(make_http(), REPO, w04(), RepoProfile(name="bare"))
    assert week.completeness.complete
    assert len(week.prs) == 22
    assert script.calls >= 3


def test_an_errors_only_graphql_answer_that_persists_names_the_query(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    Script(github, ("POST", "/graphql"), [ERRORS_ONLY] * 4)
    with pytest.raises(UpstreamError) as caught:
        collect_week(make_http(), REPO, w04(), RepoProfile(name="bare"))
    assert caught.value.message == (
        "GitHub answered POST /graphql (SearchMerged) with errors only: Something went wrong "
        "while executing your query. after 4 attempts"
    )


def _null_created(payload: dict[str, Any]) -> None:
    payload["data"]["search"]["nodes"][0]["createdAt"] = None


def _no_page_info(payload: dict[str, Any]) -> None:
    del payload["data"]["search"]["pageInfo"]


def _null_search(payload: dict[str, Any]) -> None:
    payload["data"]["search"] = None


def _string_nodes(payload: dict[str, Any]) -> None:
    payload["data"]["search"]["nodes"] = "oops"


SHAPES = {
    "null createdAt": _null_created,
    "no pageInfo": _no_page_info,
    "null search": _null_search,
    "nodes not a list": _string_nodes,
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_an_unexpected_graphql_shape_is_retried_then_reported(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], shape: str
) -> None:
    bad = search_with(SHAPES[shape])
    once = Script(github, ("POST", "/graphql"), [bad])
    week = collect_week(make_http(), REPO, w04(), RepoProfile(name="bare"))
    assert len(week.prs) == 22
    assert once.calls >= 2

    github.api.routes[("POST", "/graphql")] = once.original
    Script(github, ("POST", "/graphql"), [bad] * 4)
    with pytest.raises(UpstreamError) as caught:
        collect_week(make_http(), REPO, w04(), RepoProfile(name="bare"))
    message = caught.value.message
    assert message.startswith("GitHub answered POST /graphql (SearchMerged) with an unexpected")
    assert TOKEN not in message


def test_a_pull_with_a_null_field_is_a_github_error_for_pr_lookups(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    def no_created(reply: Reply) -> Reply:
        status, headers, payload = reply
        return status, headers, {**payload, "created_at": None}

    key = ("GET", f"/repos/{REPO}/pulls/")
    route = next(h for m, p, h in github.api.prefix_routes if (m, p) == key)
    calls: list[str] = []

    def broken(rec: Recorded) -> Reply:
        calls.append(rec.path)
        reply: Reply = route(rec)
        return no_created(reply) if rec.path.endswith(f"/pulls/{PULL}") else reply

    github.api.prefix_routes.insert(0, ("GET", key[1], broken))
    with pytest.raises(UpstreamError) as caught:
        fetch_pr(make_http(token=None), REPO, PULL)
    assert caught.value.message.startswith(f"GitHub answered GET /repos/{REPO}/pulls/{PULL} with")
    assert calls.count(f"/repos/{REPO}/pulls/{PULL}") == 4  # asked again, like a 5xx


# --- a PR longer than GitHub's REST file list ----------------------------------------------


@pytest.mark.parametrize("token", [None, TOKEN])
def test_a_5000_file_pr_is_partial_on_the_digest_s_face(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], token: str | None
) -> None:
    github.prs.clear()
    github.add_pr(wide_pr(888, 5000, w04()))
    profile = RepoProfile(name="docs", patterns={"docs": ["docs/**"]})
    week = collect_week(make_http(token=token), REPO, w04(), profile, check_references=False)
    (pr,) = week.prs
    assert not week.completeness.complete
    (missing,) = week.completeness.missing
    assert missing.number == 888
    assert "at most 3,000 files" in missing.reason
    assert "3,000 of 5,000" in missing.reason
    # without a token REST is all there is; with one, GraphQL listed every file
    assert len(pr.files) == (rest.FILES_LISTED_MAX if token is None else 5000)
    digest = build_digest(week, profile, language="en", now=w04().end)
    for fmt in ("markdown", "html", "json", "slack", "feishu"):
        shown = render_format(digest, fmt, "en", report_url="http://reports.test/x")
        assert "ncomplete" in shown, fmt  # "Incomplete data" (cards) / "incomplete" (json)
        if fmt in ("markdown", "html", "json"):
            assert "3,000 of 5,000" in shown, fmt
            assert "888" in shown, fmt


@pytest.mark.parametrize("token", [None, TOKEN])
def test_a_5000_file_pr_stays_partial_on_every_build_until_its_data_is_whole(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], store: Store, token: str | None
) -> None:
    github.prs.clear()
    github.add_pr(wide_pr(888, 5000, w04()))
    profile = RepoProfile(name="docs", patterns={"docs": ["docs/**"]})

    def build(with_token: str | None) -> CollectedPeriod:
        http = make_http(token=with_token)
        week = collect_week(http, REPO, w04(), profile, stored=store, check_references=False)
        store.save_prs(REPO, w04().label, week.prs)
        return week

    first = build(token)
    for again in (build(token), build(token)):  # the stored snapshot is reused: still partial
        assert not again.completeness.complete
        assert [m.model_dump() for m in again.completeness.missing] == [
            m.model_dump() for m in first.completeness.missing
        ]
        assert len(again.prs[0].files) == len(first.prs[0].files)
        digest = build_digest(again, profile, language="en", now=w04().end)
        assert "3,000 of 5,000" in render_format(digest, "markdown", "en", report_url="")
    if token is None:  # a token arrives: GraphQL lists every file, the snapshot is not reused
        whole = build(TOKEN)
        assert len(whole.prs[0].files) == 5000
        (missing,) = whole.completeness.missing
        assert missing.key == "patches_capped"  # the files are whole; REST patches 3,000
