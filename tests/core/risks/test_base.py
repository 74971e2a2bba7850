"""The shared diff reader: added lines carry their line number in the NEW file."""

from __future__ import annotations

from service.core.models import CollectedWeek, FileStatus, RiskKind, Severity
from service.core.risks.base import (
    SNIPPET_MAX,
    full_new_content,
    parse_patch,
    snippet,
    sort_risks,
)
from service.core.risks.base import make_risk as build
from tests.core.risks.helpers import change, new_file, real_pr

PATCH = """@@ -10,4 +10,5 @@ def f():
 keep = 1
-old = 2
+new = 2
+extra = 3
 tail = 4
@@ -40,2 +41,3 @@ def g():
 a = 1
+b = 2
\\ No newline at end of file"""


def test_added_lines_are_numbered_in_the_new_file() -> None:
    parsed = parse_patch(PATCH)
    assert [(line.number, line.text) for line in parsed.added] == [
        (11, "new = 2"),
        (12, "extra = 3"),
        (42, "b = 2"),
    ]


def test_removed_lines_keep_old_number_and_new_position() -> None:
    (removed,) = parse_patch(PATCH).removed
    assert (removed.number, removed.at, removed.text) == (11, 11, "old = 2")


def test_context_lines_are_numbered_in_the_new_file() -> None:
    assert [line.number for line in parse_patch(PATCH).context] == [10, 13, 41]


def test_real_patch_line_numbers_match_the_hunk_header(weeks: dict[str, CollectedWeek]) -> None:
    pr = real_pr(weeks, "2025-W47", 4221)
    added = parse_patch(pr.files[0].patch).added
    # "@@ -47,6 +47,8 @@": three context lines, then the two additions
    assert [(line.number, line.text.strip()) for line in added] == [
        (50, '"use_precision_aware_optimizer": True,'),
        (51, '"store_param_remainders": True,'),
    ]


def test_full_content_only_for_added_files() -> None:
    added = new_file("a.sh", ["#!/bin/bash", "echo hi"])
    assert full_new_content(added) == "#!/bin/bash\necho hi\n"
    assert full_new_content(change("a.sh", PATCH)) is None
    assert full_new_content(change("a.sh", None, FileStatus.ADDED)) is None


def test_snippet_is_one_line_of_at_most_200_characters() -> None:
    text = snippet("  a\tb  " + "x" * 500)
    assert len(text) == SNIPPET_MAX
    assert text.startswith("a b x")
    assert text.endswith("…")


def test_risks_sort_by_severity_then_pr() -> None:
    low = build(RiskKind.PRECISION, "r", Severity.LOW, [1], [])
    high = build(RiskKind.PRECISION, "r", Severity.HIGH, [9], [])
    medium_a = build(RiskKind.PRECISION, "r", Severity.MEDIUM, [5], [])
    medium_b = build(RiskKind.PRECISION, "r", Severity.MEDIUM, [3], [])
    assert [r.prs[0] for r in sort_risks([low, medium_a, high, medium_b])] == [9, 3, 5, 1]


def test_removed_lines_know_their_top_level_scope() -> None:
    patch = (
        "@@ -10,5 +10,2 @@ class Config(BaseConfig):\n"
        "     a: int = 1\n"
        "-    def old(self):\n"
        "-        pass\n"
        " def helper():\n"
        "-    def inner():\n"
    )
    assert [(line.text.strip(), line.scope) for line in parse_patch(patch).removed] == [
        ("def old(self):", "class Config(BaseConfig):"),
        ("pass", "class Config(BaseConfig):"),
        ("def inner():", "def helper():"),
    ]
