"""The shared diff reader: added lines carry their line number in the NEW file."""

from __future__ import annotations

from service.core.models import CollectedPeriod, EvidenceSide, FileStatus, RiskKind, Severity
from service.core.profile import RepoProfile
from service.core.risks import DETECTORS
from service.core.risks.base import (
    SNIPPET_MAX,
    Context,
    changed_texts,
    full_new_content,
    parse_patch,
    snippet,
    sort_risks,
)
from service.core.risks.base import make_risk as build
from tests.core.risks.helpers import LABELS, change, new_file, real_pr, week_context

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


def test_real_patch_line_numbers_match_the_hunk_header(weeks: dict[str, CollectedPeriod]) -> None:
    pr = real_pr(weeks, "2025-W47", 4221)
    added = parse_patch(pr.files[0].patch).added
    # "@@ -47,6 +47,8 @@": three context lines, then the two additions
    assert [(line.number, line.text.strip()) for line in added] == [
        (50, '"use_precision_aware_optimizer": True,'),
        (51, '"store_param_remainders": True,'),
    ]


def test_full_content_only_for_added_files(verl_profile: RepoProfile) -> None:
    context = Context(profile=verl_profile)
    added = new_file("a.sh", ["#!/bin/bash", "echo hi"])
    assert full_new_content(added, context) == "#!/bin/bash\necho hi\n"
    assert full_new_content(change("a.sh", PATCH), context) is None
    assert full_new_content(change("a.sh", None, FileStatus.ADDED), context) is None


def test_visible_lines_are_the_new_file_in_order() -> None:
    visible = parse_patch(PATCH).visible
    assert [(line.number, line.side) for line in visible] == [
        (10, EvidenceSide.CONTEXT),
        (11, EvidenceSide.ADDED),
        (12, EvidenceSide.ADDED),
        (13, EvidenceSide.CONTEXT),
        (41, EvidenceSide.CONTEXT),
        (42, EvidenceSide.ADDED),
    ]


def test_a_cleaned_line_is_still_quoted_as_the_patch_shows_it() -> None:
    line = parse_patch(PATCH).added[0]
    cleaned = line.cleaned("new = ")
    assert (cleaned.text, cleaned.patch_text, cleaned.number) == ("new = ", "new = 2", 11)
    assert cleaned.cleaned("new").patch_text == "new = 2"


def test_a_build_parses_each_patch_once(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    """One Context is one build: every detector gets the same parsed patch (and the same text
    of its changed lines), and they are the build's own (a new Context starts empty)."""
    context = week_context(weeks, "2025-W48", verl_profile)
    for detector in DETECTORS:
        detector.detect(weeks["2025-W48"].prs, context)
    patches = {f.patch for pr in (*context.week, *context.earlier) for f in pr.files if f.patch}
    assert context.patches
    assert set(context.patches) <= patches
    assert set(context.texts) <= patches
    for pr in context.week:
        for file in pr.files:
            parsed = context.parsed(file)
            assert parsed is context.parsed(file)
            assert parsed == parse_patch(file.patch)
            texts = context.changed(file)
            assert texts is context.changed(file)
            assert texts == tuple(map(tuple, changed_texts(file.patch)))
    fresh = Context(profile=verl_profile)
    assert (fresh.patches, fresh.texts) == ({}, {})


def test_changed_texts_are_the_parsed_lines_texts(weeks: dict[str, CollectedPeriod]) -> None:
    files = [f for label in LABELS for pr in weeks[label].prs for f in pr.files]
    assert sum(1 for f in files if f.patch) > 600  # every patch of the four weeks
    for file in [*files, change("a.py", PATCH)]:
        parsed = parse_patch(file.patch)
        removed = [line.text for line in parsed.removed]
        added = [line.text for line in parsed.added]
        assert changed_texts(file.patch) == (removed, added), file.path


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
