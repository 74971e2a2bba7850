"""detect_risks over whole weeks: the public entry point, its order and its totals."""

from __future__ import annotations

from collections import Counter

from service.core.models import CollectedPeriod, Risk, RiskKind, Severity
from service.core.profile import RepoProfile
from service.core.ranking import SEVERITY_RANK
from service.core.risks import (
    DETECTORS,
    abs_paths,
    commands,
    detect_risks,
    message_keys,
    message_params,
    secrets,
)
from service.core.risks.base import SNIPPET_MAX
from tests.core.risks.helpers import LABELS
from tests.core.risks.zoo import rollup_risks, zoo_risks

# risk items per week (a roll-up counts once): before issue 10 they were 10, 13, 6 and 8
EXPECTED_COUNTS = {
    "2025-W47": {
        "breaking": 2,
        "core_without_tests": 3,
        "followup": 1,
        "precision": 1,
        "unset_shell_var": 1,
    },
    "2025-W48": {
        "breaking": 4,
        "core_without_tests": 1,
        "dangling": 2,
        "followup": 6,
        "migration": 2,
        "unset_shell_var": 1,
    },
    "2026-W03": {"breaking": 4, "core_without_tests": 1, "followup": 1},
    "2026-W04": {"breaking": 5, "core_without_tests": 3, "followup": 1},
}


def test_one_detector_per_kind_in_catalog_order() -> None:
    assert [d.kind for d in DETECTORS] == list(RiskKind)


def test_real_weeks_totals_by_kind(real_risks: dict[str, list[Risk]]) -> None:
    for label in LABELS:
        counts = dict(Counter(str(r.kind) for r in real_risks[label]))
        assert counts == EXPECTED_COUNTS[label], label


def test_risks_come_high_first_then_by_pr(real_risks: dict[str, list[Risk]]) -> None:
    risks = real_risks["2025-W48"]
    keys = [(SEVERITY_RANK[r.severity], r.prs[0]) for r in risks]
    assert keys == sorted(keys)
    assert risks[0].severity == Severity.HIGH
    assert risks[0].prs == [4283]


def test_evidence_is_bounded_and_names_its_pr(real_risks: dict[str, list[Risk]]) -> None:
    for label in LABELS:
        for risk in real_risks[label]:
            for member in [risk, *risk.members]:
                for found in member.evidence:
                    assert len(found.snippet) <= SNIPPET_MAX
                    assert found.pr in member.prs, (label, member.rule)


def test_migration_references_switch_verification(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    prs = weeks["2025-W48"].prs
    unverified = [r for r in detect_risks(prs, verl_profile) if r.kind == RiskKind.MIGRATION]
    searched: dict[str, list[str]] = {
        "recipe/retool": [],
        "recipe/langgraph_agent": [],
        "verl/workers/roles": [],
    }
    verified = [
        r
        for r in detect_risks(prs, verl_profile, references=searched)
        if r.kind == RiskKind.MIGRATION
    ]
    assert {r.verified for r in unverified} == {False}
    # #4283 says where its recipes went: that is the item, verified clean
    assert {(r.verified, r.rule) for r in verified} == {
        (True, "no_references"),
        (True, "moved_repository"),
    }
    # a search that ran but did not cover a PR's targets verifies nothing about that PR, and
    # does not claim a token is missing
    partial = detect_risks(prs, verl_profile, references={"verl/workers/roles": []})
    by_pr = {r.prs[0]: (r.verified, r.rule) for r in partial if r.kind == RiskKind.MIGRATION}
    assert by_pr == {4283: (False, "search_incomplete"), 4352: (True, "no_references")}


def test_zoo_fires_every_rule(verl_profile: RepoProfile) -> None:
    rules = {(str(r.kind), r.rule) for r in zoo_risks(verl_profile)}
    expected = {
        ("core_without_tests", "core_without_tests"),
        ("breaking", "declared"),
        ("breaking", "declared_removal"),
        ("breaking", "removed_module"),
        ("breaking", "renamed_module"),
        ("breaking", "removed_config_key"),
        ("breaking", "removed_symbol"),
        ("breaking", "moved_config_key"),
        ("breaking", "default_changed"),
        ("breaking", "removed_flag"),
        ("breaking", "removed_env"),
        ("breaking", "moved_symbol"),
        ("breaking", "renamed_symbol"),
        ("breaking", "required_argument"),
        ("breaking", "code_default_changed"),
        ("dangling", "edits_deleted_file"),
        ("dangling", "links_deleted_file"),
        ("migration", "moved_repository"),
        ("migration", "unverified"),
        ("migration", "search_incomplete"),
        ("migration", "references_remain"),
        ("migration", "no_references"),
        ("migration", "submodule"),
        *(("dangerous_command", rule) for rule in commands.SEVERITY),
        *(("absolute_path", rule) for rule in abs_paths.SEVERITY),
        ("unset_shell_var", "unset_var"),
        ("unset_shell_var", "assignment_removed"),
        ("followup", "revert"),
        ("followup", "fix_reference"),
        ("followup", "fix_same_code"),
        ("precision", "dtype_change"),
        ("open_concerns", "changes_requested"),
        ("open_concerns", "failing_checks"),
        ("open_concerns", "no_approval"),
        ("open_concerns", "unresolved_threads"),
        ("open_concerns", "pending_checks"),
        *(("secret", rule) for rule in secrets.PATTERNS),
    }
    assert rules == expected


def test_message_keys_and_params(verl_profile: RepoProfile) -> None:
    risk = zoo_risks(verl_profile)[0]
    assert message_keys(risk, "summary") == (
        f"risk.{risk.kind}.{risk.rule}.summary",
        f"risk.{risk.kind}.summary",
    )
    params = message_params(risk)
    assert params["pr"] == risk.prs[0]
    assert params["prs"] == ", ".join(f"#{n}" for n in risk.prs)


def test_message_keys_of_a_rollup(verl_profile: RepoProfile) -> None:
    rolled = next(r for r in rollup_risks(verl_profile) if r.rule == "failing_checks")
    assert message_keys(rolled, "summary") == (
        "risk.open_concerns.failing_checks.rollup",
        "risk.open_concerns.rollup",
    )
    assert message_keys(rolled, "recommendation") == (
        "risk.open_concerns.failing_checks.rollup_recommendation",
        "risk.open_concerns.recommendation",
    )
    assert message_keys(rolled, "title") == (
        "risk.open_concerns.failing_checks.title",
        "risk.open_concerns.title",
    )
    assert message_params(rolled)["prs"] == "#60, #61, #62, #63"
