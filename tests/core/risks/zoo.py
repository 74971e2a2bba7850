"""A synthetic fortnight in which every rule of every detector fires once (for catalog checks)."""

from __future__ import annotations

from datetime import timedelta

from service.core.models import (
    Check,
    CheckState,
    FileStatus,
    PullRequest,
    Review,
    ReviewState,
    ReviewThread,
    Risk,
)
from service.core.profile import RepoProfile
from service.core.risks import detect_risks
from tests.core.risks.helpers import MERGED, change, make_pr, new_file

TOKEN = "gh" + "p_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8"
SLACK = "xo" + "xb-" + "1234567890" + "-" + "0987654321" + "-" + "AbCdEfGhIjKlMnOpQrStUv"
AWS = "AK" + "IA" + "Q3EGRT7Y2LPX9MNB"
PEM = "-----BEGIN " + "OPENSSH PRIVATE KEY-----"
DANGEROUS = [
    "sudo rm -rf /",
    "rm -rf $CKPT_DIR/",
    "curl -fsSL https://get.example.org/i.sh | bash",
    "pkill -9 python",
    "killall ray",
    "chmod -R 777 /data",
    "kill -9 $PID",
]
PATHS = [
    "export LD_PRELOAD=/usr/local/lib/libjemalloc.so",
    "MODEL=/home/zhangsan/models/qwen",
    "OUT=/Users/bob/out",
    "DATA=/mnt/nas01/datasets/gsm8k",
]


def _core(lines: int) -> str:
    return f"@@ -1,0 +1,{lines} @@\n" + "\n".join(f"+v{i} = torch.bfloat16" for i in range(lines))


def _earlier() -> PullRequest:
    added = (
        "@@ -1,0 +1,2 @@\n+    value = compute_something(alpha)\n+    other = compute_more(beta)"
    )
    return make_pr(
        10,
        "[trainer] feat: new estimator",
        [change("verl/trainer/ppo/core_algos.py", added)],
        merged_at=MERGED - timedelta(days=8),
    )


def _content_prs() -> list[PullRequest]:
    removed = [
        change(f"recipe/old/{n}", None, FileStatus.REMOVED, deletions=30)
        for n in ("__init__.py", "a.py", "b.py", "run.sh")
    ]
    renamed_var = (
        "@@ -3,2 +3,2 @@\n set -x\n-MODEL=$HOME/m\n+echo go\n python x.py $MODEL\n+echo $MODEL\n"
    )
    return [
        make_pr(20, "[BREAKING][trainer] feat: drop v1 API", []),
        make_pr(
            26,
            "[BREAKING][worker] refactor: drop the old worker",
            [change("verl/workers/old_worker.py", None, FileStatus.REMOVED, deletions=50)],
        ),
        make_pr(
            21,
            "[trainer] refactor: tidy",
            [change("verl/trainer/ppo/metric_utils.py", None, FileStatus.REMOVED, deletions=40)],
        ),
        make_pr(
            22,
            "[trainer] refactor: tidy more",
            [change("verl/trainer/ppo/core_algos.py", "@@ -9,1 +9,0 @@\n-def compute_old(x):")],
        ),
        make_pr(23, "[recipe] chore: move old recipe out", removed),
        make_pr(
            24,
            "[doc] chore: ops guide",
            [
                new_file("docs/ops.md", DANGEROUS + PATHS),
                new_file("examples/run_zoo.sh", ["#!/bin/bash", "set -u", "echo $UNSET_ONE"]),
                change("examples/run_old.sh", renamed_var),
                new_file("scripts/keys.env", [f"T={TOKEN}", f"S={SLACK}", f"A={AWS}", PEM]),
            ],
        ),
        make_pr(
            25,
            "[trainer] feat: bf16 everywhere",
            [change("verl/trainer/ppo/ray_trainer.py", _core(120))],
        ),
    ]


def _review_prs() -> list[PullRequest]:
    thread = ReviewThread(path="verl/x.py", line=3, body="please keep the old key")
    return [
        make_pr(
            30, "[ci] fix: a", [], reviews=[Review(state=ReviewState.CHANGES_REQUESTED, author="r")]
        ),
        make_pr(
            31,
            "[ci] fix: b",
            [],
            reviews=[],
            check_state=CheckState.FAILURE,
            failing_checks=[Check(name="e2e", state="FAILURE")],
        ),
        make_pr(
            32,
            "[ci] fix: c",
            [],
            reviews=[Review(state=ReviewState.APPROVED)],
            unresolved_threads=[thread],
        ),
        make_pr(
            33,
            "[ci] fix: d",
            [],
            reviews=[Review(state=ReviewState.APPROVED)],
            check_state=CheckState.PENDING,
        ),
    ]


def _followup_prs(earlier: PullRequest) -> list[PullRequest]:
    rework = (
        "@@ -1,2 +1,1 @@\n-    value = compute_something(alpha)\n"
        "-    other = compute_more(beta)\n+    x = 1"
    )
    return [
        make_pr(
            40, 'Revert "[trainer] feat: new estimator"', [], merged_at=MERGED - timedelta(days=1)
        ),
        make_pr(41, "[trainer] fix: follow-up of #10", []),
        make_pr(
            42,
            "[trainer] fix: estimator",
            [change("verl/trainer/ppo/core_algos.py", rework)],
            merged_at=MERGED - timedelta(days=6),
        ),
    ]


def zoo_risks(profile: RepoProfile) -> list[Risk]:
    earlier = _earlier()
    week = _content_prs() + _review_prs() + _followup_prs(earlier)
    return detect_risks(week, profile, earlier=[earlier])
