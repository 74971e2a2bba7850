"""convert.py on the payload shapes of tests/data/github (real verl PR #4970)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from service.core.models import CheckState, FileStatus, ReviewState
from service.github import convert

DATA = Path(__file__).parents[1] / "data" / "github"


def load(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def test_graphql_node_to_pull_request() -> None:
    pr = convert.pr_from_graphql(load("graphql_pr_node.json"))
    assert (pr.number, pr.author, pr.author_association) == (4970, "aphrodite1028", "CONTRIBUTOR")
    assert (pr.additions, pr.deletions, pr.changed_files) == (4, 4, 4)
    assert [f.path for f in pr.files][-1] == "verl/protocol.py"
    assert all(f.status == FileStatus.MODIFIED and f.patch is None for f in pr.files)
    assert not pr.patches_fetched
    assert pr.labels == ["documentation"]
    assert [r.state for r in pr.reviews or []] == [ReviewState.COMMENTED, ReviewState.APPROVED]
    assert (pr.comments, pr.review_comments) == (3, 3)
    assert (pr.review_threads_total, pr.review_threads_unresolved) == (2, 1)
    (thread,) = pr.unresolved_threads
    assert (thread.path, thread.line, thread.author) == ("verl/protocol.py", 12, "reviewer-b")
    assert pr.check_state == CheckState.FAILURE
    assert [(c.name, c.state) for c in pr.failing_checks] == [
        ("doc_test", "FAILURE"),
        ("ci/external", "ERROR"),
    ]
    assert pr.merge_commit == "5053d42a36de5e2e8ef952d6510b9eaa8efb1a43"
    assert pr.merged_at.isoformat() == "2026-01-19T05:19:00+00:00"


def test_graphql_node_without_rollup_or_author() -> None:
    node = load("graphql_pr_node.json")
    node["author"] = None
    node["commits"] = {"nodes": [{"commit": {"statusCheckRollup": None}}]}
    pr = convert.pr_from_graphql(node)
    assert pr.author is None
    assert (pr.check_state, pr.failing_checks) == (None, [])


def test_rest_pull_and_files_to_pull_request() -> None:
    pr = convert.pr_from_rest(load("rest_pull.json"), [load("rest_file.json")])
    assert (pr.number, pr.url) == (4970, "https://github.com/volcengine/verl/pull/4970")
    assert pr.patches_fetched
    (change,) = pr.files
    assert change.path == "docs/api/data.rst"
    assert change.patch
    assert change.patch.startswith("@@")
    assert pr.labels == []
    assert pr.reviews is None
    assert pr.review_decision is None
    assert (pr.comments, pr.review_comments) == (0, 0)


def test_rest_file_statuses_and_renames() -> None:
    entry = {**load("rest_file.json"), "status": "renamed", "previous_filename": "docs/old.rst"}
    change = convert.file_from_rest(entry)
    assert (change.status, change.previous_path) == (FileStatus.RENAMED, "docs/old.rst")
    assert convert.file_from_rest({**entry, "status": "something-new"}).status == FileStatus.CHANGED


def test_search_item_alone_to_pull_request() -> None:
    pr = convert.pr_from_search_item(load("rest_search_item.json"))
    assert pr.number == 4970
    assert pr.files == []
    assert not pr.patches_fetched
    assert convert.merged_at_of_item(load("rest_search_item.json")) == pr.merged_at


def test_code_search_paths() -> None:
    assert convert.code_search_paths(load("rest_code_search.json")) == ["recipe/README.md"]
