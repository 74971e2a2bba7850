"""The build's Context keeps each patch's lines once (issue 30: a 2,000-PR week's parsed
patches are most of the analysis's memory): the changed texts of a parsed patch are its
lines' own strings, and the detectors hold one PR's parsed patches at a time, which the
scoring reads before they are let go."""

from __future__ import annotations

from service.core.models import FileChange
from service.core.points import parse_file, pr_facts
from service.core.profile import RepoProfile
from service.core.risks import (
    config_changes,
    detect_risks,
    detectors,
    ranked,
    risk_context,
    risks_by_pr,
)
from service.core.risks.base import changed_texts
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


def test_risks_by_pr_holds_one_prs_parsed_patches_at_a_time(verl_profile: RepoProfile) -> None:
    weeks = {label: load_week(label) for label in ("2025-W47", "2025-W48")}
    prs, earlier = weeks["2025-W48"].prs, weeks["2025-W47"].prs
    context = risk_context(prs, verl_profile, earlier=earlier)
    held = 0
    for pr, _ in risks_by_pr(prs, context):
        held = max(held, len(context.patches))
        for change in pr.files:  # what the scoring reads next is what the detectors parsed
            if change.patch in context.patches:
                assert context.parsed(change) is context.patches[change.patch]
    assert not context.patches  # all released at the end
    assert not context.texts
    week = {change.patch for pr in (*prs, *earlier) for change in pr.files if change.patch}
    assert held < len(week) / 10  # a PR's and the few others a week-wide rule reads


def test_risks_by_pr_finds_what_the_detectors_find_one_after_another(
    verl_profile: RepoProfile,
) -> None:
    weeks = {label: load_week(label) for label in ("2025-W47", "2025-W48")}
    prs, earlier = weeks["2025-W48"].prs, weeks["2025-W47"].prs
    context = risk_context(prs, verl_profile, earlier=earlier)
    whole = [risk for detector in detectors() for risk in detector.detect(prs, context)]
    assert detect_risks(prs, verl_profile, earlier=earlier) == ranked(whole)


def test_a_prs_setting_changes_are_worked_out_once_for_its_turn(
    verl_profile: RepoProfile,
) -> None:
    """The breaking risk and the PR's points read the same setting changes: one reading a
    turn, the same as read anew, let go with the turn's patches."""
    weeks = {label: load_week(label) for label in ("2025-W47", "2025-W48")}
    prs, earlier = weeks["2025-W48"].prs, weeks["2025-W47"].prs
    context = risk_context(prs, verl_profile, earlier=earlier)
    told = 0
    for pr, _ in risks_by_pr(prs, context):
        changes = config_changes.of_pr(pr, context)
        assert config_changes.of_pr(pr, context) is changes
        anew = config_changes.config_changes(
            config_changes.read_configs(pr, verl_profile, parse_file)
        )
        assert changes == anew
        assert list(context.settings) == [pr.number]
        told += bool(changes)
    assert told  # the week re-defaults and removes keys
    assert not context.settings


def test_points_told_from_the_builds_setting_changes_read_as_points_read_alone(
    verl_profile: RepoProfile,
) -> None:
    prs = load_week("2025-W48").prs
    context = risk_context(prs, verl_profile)
    for pr, _ in risks_by_pr(prs, context):
        shared = config_changes.of_pr(pr, context)
        given = pr_facts(pr, verl_profile, "feat", [], context.parsed, shared)
        assert given == pr_facts(pr, verl_profile, "feat", [])
