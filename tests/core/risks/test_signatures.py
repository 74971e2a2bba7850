"""Python API changes callers meet: a rename without an alias, a new required argument, a
default changed in code. Real cases: verl-project/verl#6300 and #6322 (fixtures trimmed from
the recorded weeks 2026-W19 and W20), volcengine/verl#4544 (tests/data/weeks/2026-W03)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from service.core.models import CollectedPeriod, PullRequest
from service.core.profile import RepoProfile
from service.core.risks import breaking
from service.core.risks.base import Context
from service.core.risks.signatures import signature_changes
from service.pipeline.recorded import load_recorded
from tests.core.risks.helpers import change, make_pr, real_pr

CASES = Path(__file__).parents[2] / "data" / "risk_cases"
NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


def case(name: str) -> PullRequest:
    return load_recorded(CASES / f"{name}.json", NOW).prs[0]


def found(pr: PullRequest, profile: RepoProfile) -> list[tuple[str, str, int]]:
    return [
        (c.rule, c.label, c.new[1].number) for c in signature_changes(pr, Context(profile=profile))
    ]


def test_a_class_renamed_in_place_without_alias_6300(verl_profile: RepoProfile) -> None:
    pr = case("verl-6300-renamed-class")
    assert found(pr, verl_profile) == [
        ("renamed_symbol", "FunctionToolListWrap → ToolListWrap", 180)
    ]
    risks = breaking.DETECTOR.detect([pr], Context(profile=verl_profile))
    assert [(r.rule, r.params["names"]) for r in risks] == [
        ("renamed_symbol", "FunctionToolListWrap → ToolListWrap")
    ]
    old, new = risks[0].evidence
    assert (old.path, old.line, old.side, old.snippet) == (
        "verl/experimental/agent_loop/agent_loop.py",
        180,
        "removed",
        "class FunctionToolListWrap:",
    )
    assert (new.line, new.side, new.snippet) == (180, "added", "class ToolListWrap:")


def test_a_function_renamed_is_one_rename_not_a_removal_6322(verl_profile: RepoProfile) -> None:
    pr = case("verl-6322-renamed-function")
    risks = breaking.DETECTOR.detect([pr], Context(profile=verl_profile))
    assert [(r.rule, r.params["names"]) for r in risks] == [
        (
            "renamed_symbol",
            "apply_patch_megatron_v012_with_torch_v28"
            " → apply_patch_megatron_v012_with_torch_v28_v29",
        )
    ]


def test_an_alias_left_behind_is_no_rename(verl_profile: RepoProfile) -> None:
    pr = case("verl-6322-renamed-function")
    alias = change(
        "verl/models/mcore/patch.py",
        "@@ -500,1 +500,2 @@\n last = 1\n"
        "+apply_patch_megatron_v012_with_torch_v28 = apply_patch_megatron_v012_with_torch_v28_v29",
    )
    pr = pr.model_copy(update={"files": [*pr.files, alias]})
    assert found(pr, verl_profile) == []


def test_required_arguments_and_a_changed_default_4544(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    pr = real_pr(weeks, "2026-W03", 4544)
    assert found(pr, verl_profile) == [
        (
            "code_default_changed",
            'compute_rollout_rejection_mask(rollout_rs="token" → "token_k1")',
            159,
        ),
        (
            "required_argument",
            "compute_rs_metrics(+option_name +rs_statistic +seq_valid_mask …)",
            376,
        ),
    ]


def _signature_pr(
    old: list[str], new: list[str], path: str = "verl/workers/engine_workers.py"
) -> PullRequest:
    patch = f"@@ -10,{len(old)} +10,{len(new)} @@ class ActorWorker(Worker):\n" + "\n".join(
        ["-" + line for line in old] + ["+" + line for line in new]
    )
    return make_pr(7, "[worker] feat: x", [change(path, patch)])


def test_a_renamed_parameter_is_no_new_required_argument(verl_profile: RepoProfile) -> None:
    # #4322's pop(tensordict, keys) → pop(tensordict, key, default=None): as many to pass
    pr = _signature_pr(
        ["def pop(tensordict: TensorDict, keys: Iterator[str]) -> TensorDict:"],
        ["def pop(tensordict: TensorDict, key: str, default=None) -> Any:"],
        "verl/utils/tensordict_utils.py",
    )
    assert found(pr, verl_profile) == []


def test_a_constructor_argument_without_default_and_a_field_default(
    verl_profile: RepoProfile,
) -> None:
    pr = _signature_pr(
        ["    def __init__(self, config, role: str):", "    micro_batch: int = 4"],
        [
            "    def __init__(self, config, role: str, device_mesh,",
            "                 profile: bool = False):",
            "    micro_batch: int = 8",
        ],
    )
    assert found(pr, verl_profile) == [
        ("required_argument", "ActorWorker.__init__(+device_mesh)", 10),
        ("code_default_changed", "ActorWorker.micro_batch: 4 → 8", 12),
    ]


def test_private_helpers_and_tests_are_not_api(verl_profile: RepoProfile) -> None:
    private = _signature_pr(["def _helper(a):"], ["def _helper(a, b):"])
    tests = _signature_pr(["def helper(a):"], ["def helper(a, b):"], "tests/test_x.py")
    assert found(private, verl_profile) == found(tests, verl_profile) == []
