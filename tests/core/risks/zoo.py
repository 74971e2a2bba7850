"""A synthetic fortnight in which every rule of every detector fires once (for catalog checks),
and a week in which rules fire on enough PRs to roll up."""

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
    body = "\n".join(f"+v{i} = compute(x, {i})" for i in range(lines))
    return f"@@ -1,2 +1,{lines + 1} @@\n-dtype = torch.float32\n+dtype = torch.bfloat16\n{body}"


def _config_rename() -> str:
    return "@@ -4,3 +4,3 @@ profiler:\n   enable: false\n-  step_start: 0\n+  first_step: 1\n"


def _user_facing_prs() -> list[PullRequest]:
    """A moved key, a new default, a renamed flag and variable, a moved function, and
    recipes moved to another repository."""
    config = (
        "@@ -4,4 +4,4 @@ rollout:\n-  max_num_seqs: 1024\n+  max_num_seqs: 256\n"
        "-  bucket_mb: 512\n+  bucket_megabytes: 512\n"
    )
    script = (
        '@@ -9,2 +9,2 @@ def main():\n-    parser.add_argument("--local_dir")\n'
        '+    parser.add_argument("--target_dir")\n'
        '-    level = os.getenv("VERL_LOGGING_LEVEL")\n+    level = os.getenv("VERL_LOG_LEVEL")\n'
    )
    moved = [
        change("verl/trainer/ppo/core_algos.py", "@@ -30,1 +30,0 @@\n-def compute_gae(x):"),
        change("verl/trainer/ppo/advantage.py", "@@ -0,0 +1,1 @@\n+def compute_gae(x):"),
        change("verl/trainer/main_ppo.py", "@@ -2,1 +2,1 @@\n-import compute_gae\n+import x"),
    ]
    recipes = [
        change(f"recipe/agents/{n}", None, FileStatus.REMOVED, deletions=10)
        for n in ("__init__.py", "a.py", "b.py")
    ]
    body = "Move `recipe/agents` to the new repository https://github.com/verl-project/verl-recipe"
    return [
        make_pr(
            38,
            "[rollout] refactor: rollout options",
            [
                change("verl/trainer/config/rollout/rollout.yaml", config),
                change("scripts/converter.py", script),
                *moved,
            ],
        ),
        make_pr(39, "[recipe] chore: move agents out", recipes, body=body),
    ]


def _submodule_prs() -> list[PullRequest]:
    gitmodules = (
        '@@ -0,0 +1,3 @@\n+[submodule "recipe"]\n+\tpath = recipe\n'
        "+\turl = https://github.com/verl-project/verl-recipe.git\n"
    )
    moved = [
        change(f"recipe/{n}", None, FileStatus.REMOVED, deletions=20)
        for n in ("README.md", "dapo/run.sh", "dapo/main.py", "spin/main.py")
    ]
    gitlink = change("recipe", "@@ -0,0 +1 @@\n+Subproject commit " + "a" * 40, FileStatus.ADDED)
    return [
        make_pr(
            27,
            "[recipe] chore: move recipes to a submodule",
            [change(".gitmodules", gitmodules, FileStatus.ADDED), gitlink, *moved],
        )
    ]


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
            28,
            "[trainer] refactor: rename",
            [
                change(
                    "verl/trainer/ppo/new_utils.py",
                    None,
                    FileStatus.RENAMED,
                    previous_path="verl/trainer/ppo/old_utils.py",
                ),
                change("verl/trainer/config/profiler/profiler.yaml", _config_rename()),
            ],
        ),
        make_pr(
            22,
            "[trainer] refactor: tidy more",
            [
                change("verl/trainer/ppo/core_algos.py", "@@ -9,1 +9,0 @@\n-def compute_old(x):"),
                change("docs/algo.md", "@@ -3,1 +3,0 @@\n-Call `compute_old` first."),
            ],
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


def _dangling_prs() -> list[PullRequest]:
    """#70 edits a page and links it from the index; #71 deletes the page two days later.
    #72 renames a function, adds a required argument and changes a default in core code."""
    api = (
        "@@ -10,4 +10,4 @@\n-def compute_score(batch, scale=1.0):\n"
        "+def compute_scores(batch, scale=1.0):\n     return batch\n \n"
        "-def apply(batch, mode='token'):\n+def apply(batch, level, mode='seq'):"
    )
    return [
        make_pr(
            70,
            "[doc] chore: refresh guide",
            [
                change("docs/old_guide.md", "@@ -1,1 +1,2 @@\n intro\n+new step"),
                change("docs/index.md", "@@ -1,1 +1,2 @@\n intro\n+See [guide](old_guide.md)."),
            ],
            merged_at=MERGED - timedelta(days=2),
        ),
        make_pr(
            71,
            "[doc] chore: drop old guide",
            [change("docs/old_guide.md", "@@ -1,2 +0,0 @@\n-intro\n-new step", FileStatus.REMOVED)],
        ),
        make_pr(72, "[trainer] feat: scores", [change("verl/trainer/ppo/core_algos.py", api)]),
    ]


def _searched_removals() -> list[PullRequest]:
    """Three large removals whose leftover references were searched (or not, for #52)."""
    return [
        make_pr(
            number,
            "[misc] chore: drop old code",
            [
                change(f"verl/old{number}/{n}.py", None, FileStatus.REMOVED, deletions=10)
                for n in ("__init__", "a", "b")
            ],
        )
        for number in (50, 51, 52)
    ]


SEARCHED = {"verl/old50": ["docs/x.md"], "verl/old51": []}


def zoo_prs() -> list[PullRequest]:
    """Every PR of the zoo, the previous week's first."""
    earlier = _earlier()
    week = _content_prs() + _review_prs() + _followup_prs(earlier) + _submodule_prs()
    week += _user_facing_prs() + _dangling_prs()
    return [earlier, *week, *_searched_removals()]


def zoo_risks(profile: RepoProfile) -> list[Risk]:
    earlier = _earlier()
    week = _content_prs() + _review_prs() + _followup_prs(earlier) + _submodule_prs()
    week += _user_facing_prs() + _dangling_prs()
    searched = detect_risks(_searched_removals(), profile, references=SEARCHED)
    return detect_risks(week, profile, earlier=[earlier]) + searched


def rollup_prs() -> list[PullRequest]:
    """Four PRs that each change core code and a dtype without tests and fail a check."""
    return [
        make_pr(
            60 + n,
            f"[trainer] feat: change {n}",
            [change("verl/trainer/ppo/ray_trainer.py", _core(40 + n * 50))],
            reviews=[Review(state=ReviewState.APPROVED)],
            check_state=CheckState.FAILURE,
            failing_checks=[Check(name=f"e2e-{n}", state="FAILURE")],
        )
        for n in range(4)
    ]


def rollup_risks(profile: RepoProfile) -> list[Risk]:
    """Three rules fire on the same four PRs: three roll-ups."""
    return detect_risks(rollup_prs(), profile)
