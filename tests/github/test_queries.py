"""Our GraphQL documents validate against GitHub's schema (the part they touch)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from graphql import parse, validate

from service.errors import UpstreamError
from service.github.graphql import load_query
from service.github.http import GitHubHttp
from tests.fakes.github import SCHEMA, FakeGitHub


@pytest.mark.parametrize("name", ["search_merged", "more_files", "pull_request"])
def test_query_validates_against_the_schema(name: str) -> None:
    assert [e.message for e in validate(SCHEMA, parse(load_query(name)))] == []


def test_schema_refuses_a_patch_on_changed_files() -> None:
    query = load_query("more_files").replace("changeType", "changeType patch")
    messages = [e.message for e in validate(SCHEMA, parse(query))]
    assert messages == [
        "Cannot query field 'patch' on type 'PullRequestChangedFile'. Did you mean 'path'?"
    ]


def test_fake_answers_an_invalid_query_like_github(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp]
) -> None:
    with pytest.raises(UpstreamError, match="Cannot query field 'patch'"):
        make_http().graphql("query MoreFiles { rateLimit { cost patch } }", {})
