"""The build's Context keeps each patch's lines once (issue 30: a 2,000-PR week's parsed
patches are most of the analysis's memory): the changed texts of a parsed patch are its
lines' own strings, and the scoring takes each parsed patch over instead of keeping it."""

from __future__ import annotations

from service.core.models import FileChange
from service.core.profile import RepoProfile
from service.core.risks import risk_context
from service.core.risks.base import NO_PATCH, changed_texts, parse_patch
from tests.conftest import load_week


def _patched() -> list[FileChange]:
    week = load_week("2025-W48")
    return [f for pr in week.prs for f in pr.files if f.patch and "\n-" in f.patch]


def test_changed_texts_share_the_parsed_lines_strings_whichever_is_asked_first(
    verl_profile: RepoProfile,
) -> None:
    files = _patched()
    context = risk_context([], verl_profile)
    first, second = files[0], files[1]
    context.changed(first)  # read from the patch, then parsed: kept once
    parsed = context.parsed(first)
    removed, added = context.changed(first)
    assert all(a is b.text for a, b in zip(added, parsed.added, strict=True))
    assert all(a is b.text for a, b in zip(removed, parsed.removed, strict=True))
    parsed = context.parsed(second)  # parsed first, then its texts: the same strings
    removed, added = context.changed(second)
    assert all(a is b.text for a, b in zip(added, parsed.added, strict=True))
    for change in (first, second):  # and the texts are what the patch reads
        assert context.changed(change) == tuple(map(tuple, changed_texts(change.patch)))


def test_take_hands_a_parsed_patch_over_once(verl_profile: RepoProfile) -> None:
    files = _patched()
    context = risk_context([], verl_profile)
    kept = context.parsed(files[0])
    assert context.take(files[0]) is kept
    assert files[0].patch not in context.patches  # no longer held by the Context
    assert context.take(files[0]) == parse_patch(files[0].patch)  # parsed anew if asked again
    assert context.take(FileChange(path="a.py", patch=None)) is NO_PATCH
