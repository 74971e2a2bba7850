"""Shell variables used but never set, in added or changed shell scripts."""

from __future__ import annotations

import pytest

from service.core.models import CollectedPeriod, FileChange, Risk, Severity
from service.core.profile import RepoProfile
from service.core.risks import shell, shell_vars
from service.core.risks.base import Context, Line, parse_patch
from tests.core.risks.helpers import LABELS, change, make_pr, new_file, real_pr, week_context


def run(files: list[FileChange], profile: RepoProfile) -> list[Risk]:
    pr = make_pr(300, "[recipe] feat: add script", files)
    return shell_vars.DETECTOR.detect([pr], Context(profile=profile))


def script(*lines: str, path: str = "examples/run.sh") -> FileChange:
    return new_file(path, ["#!/usr/bin/env bash", *lines])


def test_shellcheck_is_installed_for_these_tests() -> None:
    assert shellcheck_vars("echo $missing") == {"missing": 2}


def shellcheck_vars(body: str) -> dict[str, int] | None:
    return shell_vars.shellcheck_unassigned(f"#!/bin/bash\n{body}\n")


def test_real_mindspeed_script_uses_unset_use_dummy_model(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #3465 adds a `set -u` script that reads $USE_DUMMY_MODEL without any default
    pr = real_pr(weeks, "2025-W47", 3465)
    (risk,) = shell_vars.DETECTOR.detect([pr], Context(profile=verl_profile))
    assert (risk.rule, risk.severity, risk.params["vars"]) == (
        "unset_var",
        Severity.MEDIUM,
        "USE_DUMMY_MODEL",
    )
    assert risk.evidence[0].path == "tests/special_npu/run_qwen3_30b_dapo_mindspeed.sh"
    assert risk.evidence[0].line == 12
    assert risk.evidence[0].snippet == 'if [[ "$USE_DUMMY_MODEL" == "True" ]]; then'


def test_real_gspo_example_uses_cluster_variables(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #4211 re-formats the GSPO example with the cluster's $ARNOLD_WORKER_* variables
    pr = real_pr(weeks, "2025-W48", 4211)
    (risk,) = shell_vars.DETECTOR.detect([pr], Context(profile=verl_profile))
    assert risk.params["vars"] == "ARNOLD_WORKER_GPU, ARNOLD_WORKER_NUM"
    assert [e.line for e in risk.evidence] == [183, 184]
    assert risk.severity == Severity.LOW


def test_real_scripts_with_defaults_are_not_flagged(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #4158 and #4223 add recipes driven by ${VAR:-default}; #4665's trtllm script uses
    # ${EXP_NAME_SUFFIX:+"-"}${EXP_NAME_SUFFIX}, an optional suffix the author guarded
    for label, number in (("2025-W47", 4158), ("2025-W47", 4223), ("2026-W04", 4665)):
        pr = real_pr(weeks, label, number)
        assert shell_vars.DETECTOR.detect([pr], Context(profile=verl_profile)) == []


@pytest.mark.parametrize(
    "lines",
    [
        ("MODEL=${MODEL:-Qwen/Qwen3-8B}", 'echo "$MODEL"'),
        (": ${NNODES:=1}", "echo $NNODES"),
        ("echo ${TAG-latest} ${EXTRA:+--extra}",),
        ("export NCCL_DEBUG=INFO", "echo $NCCL_DEBUG"),
        ("read -r -p 'name? ' answer", 'echo "$answer"'),
        ("for gpu in 0 1; do", '  echo "$gpu"', "done"),
        ("f() {", "  local tmp=1", '  echo "$tmp $1 $@ $# $? $$ $!"', "}"),
        ("declare -a arr=(a b)", 'echo "${arr[@]}" ${#arr[@]}'),
        ('echo "$HOME $PWD $USER $RANDOM ${BASH_SOURCE[0]} $GITHUB_WORKSPACE"',),
        ("echo '$NOT_EXPANDED' \\$ALSO_NOT",),
        ('if [ -z "$CKPT" ]; then echo "set CKPT"; exit 1; fi',),
        ("cat <<'EOF'", "$LITERAL_IN_QUOTED_HEREDOC", "EOF"),
        ("# echo $ONLY_IN_A_COMMENT",),
    ],
)
def test_set_defaulted_or_special_variables_are_not_flagged(
    lines: tuple[str, ...], verl_profile: RepoProfile
) -> None:
    assert run([script(*lines)], verl_profile) == []


def test_unset_upper_and_lower_case_variables_are_flagged(verl_profile: RepoProfile) -> None:
    (risk,) = run([script("python train.py --nodes $NNODES --lr ${lr}")], verl_profile)
    assert risk.params["vars"] == "NNODES, lr"
    assert risk.params["count"] == 2
    assert risk.evidence[0].line == 2
    assert risk.severity == Severity.LOW


def test_set_u_makes_it_medium(verl_profile: RepoProfile) -> None:
    (risk,) = run([script("set -euo pipefail", "echo $MISSING")], verl_profile)
    assert risk.severity == Severity.MEDIUM


def test_variables_of_a_sourced_file_in_the_same_pr_count_as_set(
    verl_profile: RepoProfile,
) -> None:
    common = new_file("examples/common.sh", ["MODEL_PATH=/models/qwen", "export NNODES=2"])
    main = script('source "$(dirname "$0")/common.sh"', "echo $MODEL_PATH $NNODES")
    assert run([main, common], verl_profile) == []
    # without common.sh in the PR nothing can be said: it may set anything
    assert run([main], verl_profile) == []
    alone = script("echo $MODEL_PATH $NNODES")
    assert [r.params["vars"] for r in run([alone], verl_profile)] == ["MODEL_PATH, NNODES"]


def test_shellcheck_clears_what_the_builtin_reader_cannot_see(verl_profile: RepoProfile) -> None:
    # `(( total = 3 ))` assigns in arithmetic context: the built-in reader does not see it,
    # shellcheck's data flow does, and it has the last word on lower-case names
    added = script("(( total = 3 ))", 'echo "$total"')
    assert "total" not in shell.assigned_names(shell.code_lines(parse_patch(added.patch).added))
    assert run([added], verl_profile) == []


def test_builtin_reader_on_its_own(verl_profile: RepoProfile) -> None:
    lines = parse_patch(script("echo $NNODES ${lr} ${opt:-adam}", "lr=1").patch).added
    code = list(shell.code_lines(lines))
    assert shell.assigned_names(code) == {"lr"}
    assert shell.guarded_names(code) == {"opt"}
    assert [u.name for line in code for u in shell.expanded_names(line)] == ["NNODES", "lr"]


def test_removed_assignment_in_a_changed_script_is_flagged(verl_profile: RepoProfile) -> None:
    patch = (
        "@@ -10,3 +10,3 @@\n"
        " set -x\n"
        "-MODEL_PATH=$HOME/models/qwen\n"
        "+echo start\n"
        " python train.py \\\n"
        "@@ -40,1 +40,2 @@\n"
        "     trainer.n_gpus_per_node=8 \\\n"
        "+    actor_rollout_ref.model.path=$MODEL_PATH\n"
    )
    (risk,) = run([change("examples/grpo/run.sh", patch)], verl_profile)
    assert (risk.rule, risk.params["vars"]) == ("assignment_removed", "MODEL_PATH")
    assert risk.evidence[0].line == 41


def test_partial_patch_without_removed_assignment_is_not_flagged(
    verl_profile: RepoProfile,
) -> None:
    # the variable may well be set above the hunk: a partial patch is not conclusive
    patch = "@@ -40,1 +40,2 @@\n     trainer.n_gpus_per_node=8 \\\n+    model.path=$MODEL_PATH\n"
    assert run([change("examples/grpo/run.sh", patch)], verl_profile) == []


def test_only_shell_scripts_are_read(verl_profile: RepoProfile) -> None:
    assert run([new_file("docs/run.md", ["echo $UNSET_IN_DOC"])], verl_profile) == []


def test_real_weeks_flag_exactly_two_scripts(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    found = []
    for label in LABELS:
        context = week_context(weeks, label, verl_profile)
        found += [
            (label, r.prs[0], r.params["path"])
            for r in shell_vars.DETECTOR.detect(weeks[label].prs, context)
        ]
    assert found == [
        ("2025-W47", 3465, "tests/special_npu/run_qwen3_30b_dapo_mindspeed.sh"),
        ("2025-W48", 4211, "examples/gspo_trainer/run_qwen30b_gspo.sh"),
    ]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ('source "$(dirname "$0")/common.sh" --quiet', ["common.sh"]),
        (". ./env.sh", ["env.sh"]),
        ("source ${ROOT}/scripts/env.sh; echo ok", ["env.sh"]),
        ("echo source-less", []),
    ],
)
def test_sourced_file_names(text: str, names: list[str]) -> None:
    assert shell.sourced_files([Line(1, text)]) == names
