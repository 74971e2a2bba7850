"""Dangerous commands added to docs, scripts and examples."""

from __future__ import annotations

import pytest

from service.core.models import CollectedPeriod, FileChange, FileStatus, Risk, Severity
from service.core.profile import RepoProfile
from service.core.risks import commands
from service.core.risks.base import Context
from tests.core.risks.helpers import LABELS, change, make_pr, new_file, week_context
from tests.core.risks.zoo import DANGEROUS


def run(pr_files: list[FileChange], profile: RepoProfile) -> list[Risk]:
    pr = make_pr(100, "[doc] chore: add guide", pr_files)
    return commands.DETECTOR.detect([pr], Context(profile=profile))


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        ("pkill -9 python", "pkill_9"),
        ("pkill -f -9 ray::", "pkill_9"),
        ("ps aux | grep vllm | awk '{print $2}' | xargs kill -9", "kill_9"),
        ("kill -9 $(cat /tmp/ray.pid)", "kill_9"),
        ("killall -9 python3", "killall"),
        ("sudo rm -rf /", "rm_rf_root"),
        ("rm -rf ~/", "rm_rf_root"),
        ('rm -rf "$HOME"', "rm_rf_root"),
        ("curl -fsSL https://get.example.com/install.sh | bash", "curl_pipe_shell"),
        ("wget -qO- https://x.io/i.sh | sudo sh", "curl_pipe_shell"),
        ("chmod -R 777 /data", "chmod_777"),
    ],
)
def test_dangerous_command_in_docs_is_flagged(
    line: str, rule: str, verl_profile: RepoProfile
) -> None:
    risks = run(
        [change("docs/start/quickstart.md", f"@@ -1,1 +1,2 @@\n intro\n+{line}")], verl_profile
    )
    assert [r.rule for r in risks] == [rule]
    (risk,) = risks
    assert risk.evidence[0].path == "docs/start/quickstart.md"
    assert risk.evidence[0].line == 2
    assert risk.evidence[0].snippet == line
    assert risk.severity == commands.SEVERITY[rule]


@pytest.mark.parametrize(
    "line",
    [
        "rm -rf /var/lib/apt/lists/*",
        "rm -rf ./build dist",
        "rm -rf /tmp/verl_ckpt",
        "rm -rf $HOME/ckpts",
        "pkill -f vllm",
        "chmod 755 run.sh",
        "curl -O https://example.com/model.tar && tar xf model.tar",
        "os.kill(os.getpid(), signal.SIGKILL)",
    ],
)
def test_routine_commands_are_not_flagged(line: str, verl_profile: RepoProfile) -> None:
    assert (
        run([change("examples/run.sh", f"@@ -3,1 +3,2 @@\n set -x\n+{line}")], verl_profile) == []
    )


def test_rm_rf_apt_lists_in_a_dockerfile_is_not_flagged(verl_profile: RepoProfile) -> None:
    dockerfile = change(
        "docker/Dockerfile.stable.vllm",
        "@@ -1,1 +1,2 @@\n FROM x\n+RUN apt-get update && rm -rf /var/lib/apt/lists/*",
    )
    assert run([dockerfile], verl_profile) == []


def test_deleted_pkill_line_is_not_flagged(verl_profile: RepoProfile) -> None:
    patch = "@@ -1,3 +1,2 @@\n # stop\n-pkill -9 python\n+ray stop\n"
    assert run([change("docs/ascend_tutorial/quick_start.rst", patch)], verl_profile) == []


def test_commented_command_in_a_script_is_not_flagged(verl_profile: RepoProfile) -> None:
    patch = "@@ -1,1 +1,2 @@\n set -x\n+# pkill -9 python  # if ray hangs\n"
    assert run([change("examples/run_qwen.sh", patch)], verl_profile) == []


def test_command_in_core_code_is_not_read(verl_profile: RepoProfile) -> None:
    patch = "@@ -1,1 +1,2 @@\n import os\n+os.system('pkill -9 python')\n"
    assert run([change("verl/workers/fsdp_workers.py", patch)], verl_profile) == []


def test_rm_rf_on_an_unset_variable_is_flagged(verl_profile: RepoProfile) -> None:
    script = new_file("examples/cleanup.sh", ["#!/bin/bash", "set -x", "rm -rf $CKPT_DIR/"])
    (risk,) = run([script], verl_profile)
    assert (risk.rule, risk.severity, risk.params["var"]) == (
        "rm_rf_unset_var",
        Severity.HIGH,
        "CKPT_DIR",
    )
    assert risk.evidence[0].line == 3


def test_rm_rf_braced_unset_variable_in_new_script_is_flagged(verl_profile: RepoProfile) -> None:
    script = new_file("scripts/clean.sh", ["#!/bin/bash", 'rm -rf "${OUT}"'])
    assert [r.rule for r in run([script], verl_profile)] == ["rm_rf_unset_var"]


@pytest.mark.parametrize(
    "lines",
    [
        ["CKPT_DIR=/tmp/ckpt", "rm -rf $CKPT_DIR/"],
        ["CKPT_DIR=${CKPT_DIR:-/tmp/ckpt}", "rm -rf ${CKPT_DIR}/*"],
        ['rm -rf "${CKPT_DIR:?}/"'],
        ["for d in a b; do", "  rm -rf $d", "done"],
    ],
)
def test_rm_rf_on_a_set_or_guarded_variable_is_not_flagged(
    lines: list[str], verl_profile: RepoProfile
) -> None:
    assert run([new_file("examples/clean.sh", ["#!/bin/bash", *lines])], verl_profile) == []


def test_partial_patch_flags_only_the_root_shape(verl_profile: RepoProfile) -> None:
    # in a partial patch OUT may be set above the hunk: only `$OUT/` (empty → `/`) is reported
    narrow = change("examples/a.sh", "@@ -50,1 +50,2 @@\n echo\n+rm -rf $OUT/logs\n")
    wide = change("examples/b.sh", "@@ -50,1 +50,2 @@\n echo\n+rm -rf $OUT/\n")
    risks = run([narrow, wide], verl_profile)
    assert [(r.rule, r.evidence[0].path) for r in risks] == [("rm_rf_unset_var", "examples/b.sh")]


def test_real_mindspeed_script_rm_rf_of_set_variables_is_not_flagged(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # #3465 adds `rm -rf $DUMMY_MODEL_PATH` / `$DIST_CKPT_PATH`, both set earlier in the script
    pr = next(p for p in weeks["2025-W47"].prs if p.number == 3465)
    script = next(f for f in pr.files if f.path.endswith("mindspeed.sh"))
    assert script.status == FileStatus.ADDED
    assert "rm -rf $DUMMY_MODEL_PATH" in (script.patch or "")
    assert commands.DETECTOR.detect([pr], Context(profile=verl_profile)) == []


def test_real_weeks_have_no_dangerous_commands(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # checked by hand: the weeks add `rm -rf /var/lib/apt/lists/*`, `rm -rf checkpoints` (CI),
    # `rm -rf /home/dpsk_a2a/.../build` (Dockerfile) and `os.kill(..., SIGKILL)` in core code,
    # and no pkill/killall/curl|sh/chmod 777 in docs, scripts or examples
    for label in LABELS:
        context = week_context(weeks, label, verl_profile)
        assert commands.DETECTOR.detect(weeks[label].prs, context) == []


def test_the_cheap_first_look_never_hides_a_rule(weeks: dict[str, CollectedPeriod]) -> None:
    """A patch or line without the hint's words is skipped before the rule patterns run: every
    line any pattern (or the `rm -rf $VAR` reader) matches has them, on the recorded lines and
    on the commands the rules are written for."""
    lines = [
        line
        for label in LABELS
        for pr in weeks[label].prs
        for f in pr.files
        for raw in (f.patch or "").splitlines()
        if (line := raw[1:])
    ]
    lines += [*DANGEROUS, "sudo rm\t-rf\t/", "rm  --force --recursive ${OUT}/", "(kill\t-KILL 1)"]
    lines += ["cleanup; killall\tray", "wget -q x|sh", "chmod\t0777 d"]
    matched = 0
    for line in lines:
        rules = [rule for rule, pattern in commands.PATTERNS.items() if pattern.search(line)]
        if rules or commands._RM_VAR.search(line):
            matched += 1
            assert commands._HINT.search(line), line
        assert commands.matched_rules(line) == rules
    assert matched >= len(DANGEROUS)
