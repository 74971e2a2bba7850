"""Core-path changes without test changes, graded by size."""

from __future__ import annotations

from service.core.models import CollectedPeriod, PullRequest, Risk, Severity
from service.core.profile import RepoProfile
from service.core.risks import tests_missing
from service.core.risks.base import Context
from tests.core.risks.helpers import LABELS, change, make_pr, real_pr, week_context


def detect(pr_list: list[PullRequest], profile: RepoProfile) -> list[Risk]:
    return tests_missing.DETECTOR.detect(pr_list, Context(profile=profile))


def core_patch(lines: int) -> str:
    return f"@@ -1,0 +1,{lines} @@\n" + "\n".join(f"+x{i} = {i}" for i in range(lines))


def test_real_npu_patch_without_tests_is_medium(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #4186 rewrites 134 lines of verl/models/transformers/npu_patch.py and touches no test
    (risk,) = detect([real_pr(weeks, "2025-W47", 4186)], verl_profile)
    assert risk.severity == Severity.MEDIUM
    assert risk.params == {
        "lines": 134,
        "files": 1,
        "top_path": "verl/models/transformers/npu_patch.py",
    }
    assert risk.evidence[0].path == "verl/models/transformers/npu_patch.py"


def test_real_core_change_with_tests_is_not_flagged(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #4211 changes 585 core lines but also six test files
    assert detect([real_pr(weeks, "2025-W48", 4211)], verl_profile) == []


def test_real_small_fix_is_not_flagged(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #4962 is a 2-line core fix: below the reporting floor
    assert detect([real_pr(weeks, "2026-W03", 4962)], verl_profile) == []


def test_real_revert_is_not_flagged(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #4260 reverts 132 core lines of #4226 (which itself was flagged): restoring is not new code
    assert detect([real_pr(weeks, "2025-W48", 4260)], verl_profile) == []
    assert [r.prs for r in detect([real_pr(weeks, "2025-W47", 4226)], verl_profile)] == [[4226]]


def test_severity_grows_with_size(verl_profile: RepoProfile) -> None:
    def severity(lines: int) -> Severity | None:
        pr = make_pr(
            1, "[trainer] feat: x", [change("verl/trainer/ppo/ray_trainer.py", core_patch(lines))]
        )
        found = detect([pr], verl_profile)
        return found[0].severity if found else None

    assert [severity(n) for n in (29, 30, 99, 100, 499, 500)] == [
        None,
        Severity.LOW,
        Severity.LOW,
        Severity.MEDIUM,
        Severity.MEDIUM,
        Severity.HIGH,
    ]


def test_non_code_and_non_core_files_do_not_count(verl_profile: RepoProfile) -> None:
    pr = make_pr(
        2,
        "[cfg] feat: x",
        [
            change("verl/trainer/config/_generated_ppo_trainer.yaml", core_patch(300)),
            change("recipe/dapo/main_dapo.py", core_patch(300)),
        ],
    )
    assert detect([pr], verl_profile) == []


def test_real_weeks_flag_these_prs(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    flagged = {
        label: [
            (r.prs[0], r.severity.value)
            for r in tests_missing.DETECTOR.detect(
                weeks[label].prs, week_context(weeks, label, verl_profile)
            )
        ]
        for label in LABELS
    }
    assert flagged == {
        "2025-W47": [(4186, "medium"), (4179, "low"), (4226, "medium")],
        "2025-W48": [(4224, "medium")],
        "2026-W03": [(4715, "low"), (4902, "low"), (4916, "low"), (4956, "low")],
        "2026-W04": [(4936, "medium"), (4931, "medium"), (5033, "medium")],
    }


def test_evidence_shows_the_new_definitions_not_boilerplate(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #4936 (MTP) opens mtp_patch.py with `try:` and imports; the evidence names the new function
    (risk,) = detect([real_pr(weeks, "2026-W04", 4936)], verl_profile)
    shown = {e.path: (e.line, e.snippet) for e in risk.evidence}
    assert shown["verl/models/mcore/mtp_patch.py"] == (
        35,
        "def _get_patching_model(model: torch.nn.Module):",
    )
    assert shown["verl/workers/config/model.py"] == (31, "class MtpConfig(BaseConfig):")
