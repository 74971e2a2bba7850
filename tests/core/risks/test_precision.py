"""Precision and dtype changes in core code."""

from __future__ import annotations

from service.core.models import CollectedWeek, Severity
from service.core.profile import RepoProfile
from service.core.risks import precision
from service.core.risks.base import Context
from tests.core.risks.helpers import LABELS, change, make_pr, real_pr, week_context


def test_real_fp8_training_4223(weeks: dict[str, CollectedWeek], verl_profile: RepoProfile) -> None:
    (risk,) = precision.DETECTOR.detect(
        [real_pr(weeks, "2025-W47", 4223)], Context(profile=verl_profile)
    )
    assert (risk.severity, risk.params["terms"], risk.params["count"]) == (
        Severity.MEDIUM,
        "fp8",
        8,
    )
    first = risk.evidence[0]
    assert (first.path, first.line) == ("verl/models/mcore/model_forward.py", 44)
    assert first.snippet == "fp8 = unwrap_model(model).config.fp8"


def test_real_fp16_recipe_4158_is_not_core(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    # "moe fp16 training" only adds recipe/dapo/test_dapo_qwen3_moe_30b_megatron_fp16.sh
    pr = real_pr(weeks, "2025-W47", 4158)
    assert [f.path for f in pr.files] == ["recipe/dapo/test_dapo_qwen3_moe_30b_megatron_fp16.sh"]
    assert precision.DETECTOR.detect([pr], Context(profile=verl_profile)) == []


def test_real_bf16_precision_aware_optimizer_4221_is_flagged(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    # "BF16 mode should use PAO" turns on the precision-aware optimizer in the Megatron optimizer
    # config (core); the title is about bf16, so it is medium. It was reverted in #4234.
    pr = real_pr(weeks, "2025-W47", 4221)
    assert verl_profile.is_core(pr.files[0].path)
    (risk,) = precision.DETECTOR.detect([pr], Context(profile=verl_profile))
    assert risk.severity is Severity.MEDIUM
    assert risk.params["terms"] == "precision_aware"
    assert [e.line for e in risk.evidence] == [50]


def test_mention_in_passing_is_low(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    # #4936 (MTP) passes use_fp8_padding through in two new calls
    (risk,) = precision.DETECTOR.detect(
        [real_pr(weeks, "2026-W04", 4936)], Context(profile=verl_profile)
    )
    assert (risk.severity, risk.params["count"]) == (Severity.LOW, 2)


def test_removed_dtype_line_and_non_core_files_are_not_flagged(verl_profile: RepoProfile) -> None:
    pr = make_pr(
        7,
        "[fsdp] fix: x",
        [
            change(
                "verl/workers/engine/fsdp/transformer_impl.py",
                "@@ -5,2 +5,1 @@\n"
                "-    with torch.autocast('cuda', dtype=torch.bfloat16):\n+    pass",
            ),
            change("tests/workers/test_fsdp.py", "@@ -1,0 +1,1 @@\n+dtype = torch.float16"),
            change("examples/run.sh", "@@ -1,0 +1,1 @@\n+actor.fsdp_config.param_dtype=bf16"),
        ],
    )
    assert precision.DETECTOR.detect([pr], Context(profile=verl_profile)) == []


def test_autocast_and_grad_scaler_are_found(verl_profile: RepoProfile) -> None:
    pr = make_pr(
        8,
        "[fsdp] fix: honor mixed_precision.param_dtype in autocast",
        [
            change(
                "verl/workers/engine/fsdp/transformer_impl.py",
                "@@ -5,1 +5,3 @@\n ctx\n+    with torch.autocast('cuda', dtype=self.param_dtype):\n"
                "+        scaler = ShardedGradScaler()",
            ),
        ],
    )
    (risk,) = precision.DETECTOR.detect([pr], Context(profile=verl_profile))
    assert risk.params["terms"] == "autocast, param_dtype, GradScaler"
    assert [e.line for e in risk.evidence] == [6, 7]
    assert risk.severity == Severity.MEDIUM  # the title is about precision


def test_real_weeks_flag_these_prs(
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
) -> None:
    flagged = [
        (r.prs[0], r.severity.value)
        for label in LABELS
        for r in precision.DETECTOR.detect(
            weeks[label].prs, week_context(weeks, label, verl_profile)
        )
    ]
    assert flagged == [
        (3519, "medium"),
        (4223, "medium"),
        (4221, "medium"),
        (4063, "medium"),
        (4936, "low"),
        (4885, "low"),
        (4280, "medium"),
    ]
