"""Machine-specific absolute paths added to docs, scripts and examples."""

from __future__ import annotations

import pytest

from service.core.models import CollectedPeriod, FileChange, Risk, Severity
from service.core.profile import RepoProfile
from service.core.risks import abs_paths
from service.core.risks.base import Context
from tests.core.risks.helpers import LABELS, change, make_pr, real_pr, week_context


def run(files: list[FileChange], profile: RepoProfile) -> list[Risk]:
    pr = make_pr(200, "[doc] chore: npu guide", files)
    return abs_paths.DETECTOR.detect([pr], Context(profile=profile))


def doc(line: str, path: str = "docs/ascend_tutorial/quick_start.rst") -> FileChange:
    return change(path, f"@@ -7,1 +7,2 @@\n Setup:\n+{line}")


@pytest.mark.parametrize(
    ("line", "rule", "found"),
    [
        (
            "export LD_PRELOAD=/usr/local/lib/libjemalloc.so.2",
            "ld_preload",
            "/usr/local/lib/libjemalloc.so.2",
        ),
        (  # verl #6285: the library, then what was preloaded before it
            'export LD_PRELOAD="/usr/lib/aarch64-linux-gnu/libjemalloc.so.2${LD_PRELOAD:+:$L}"',
            "ld_preload",
            "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2",
        ),
        ("MODEL=/home/zhangsan/models/Qwen3-8B", "home_dir", "/home/zhangsan/models/Qwen3-8B"),
        ("python x.py --ckpt /Users/alice/ckpt", "mac_home", "/Users/alice/ckpt"),
        (
            "data.train_files=/mnt/hdfs/data/gsm8k/train.parquet",
            "mnt_volume",
            "/mnt/hdfs/data/gsm8k/train.parquet",
        ),
    ],
)
def test_machine_specific_path_is_flagged(
    line: str, rule: str, found: str, verl_profile: RepoProfile
) -> None:
    (risk,) = run([doc(line)], verl_profile)
    assert (risk.rule, risk.params["found"], risk.params["line"]) == (rule, found, 8)
    assert risk.evidence[0].snippet == line
    assert risk.severity == (Severity.MEDIUM if rule == "ld_preload" else Severity.LOW)


@pytest.mark.parametrize(
    "line",
    [
        "MODEL=/home/user/models/Qwen3-8B",
        "MODEL=/home/<user>/models",
        "MODEL=/home/$USER/models",
        "MODEL=/home/your_name/models",
        "export LD_PRELOAD=/path/to/libjemalloc.so",
        "cache in /dev/shm and /tmp/ray, binaries in /usr/local/bin and /opt/conda",
        "- /data00/models:/github/home/models",
        "(e.g., `/mnt/traces`)",
    ],
)
def test_placeholders_and_system_paths_are_not_flagged(
    line: str, verl_profile: RepoProfile
) -> None:
    assert run([doc(line)], verl_profile) == []


def test_deleted_home_path_is_not_flagged(verl_profile: RepoProfile) -> None:
    patch = "@@ -1,2 +1,2 @@\n Setup:\n-MODEL=/home/alice/qwen\n+MODEL=${MODEL:-Qwen/Qwen3-8B}"
    assert run([change("examples/run.sh", patch)], verl_profile) == []


def test_paths_in_dockerfiles_and_core_code_are_not_read(verl_profile: RepoProfile) -> None:
    dockerfile = change(
        "docker/Dockerfile.stable.trtllm", "@@ -1,0 +1,1 @@\n+WORKDIR /home/dpsk_a2a"
    )
    core = change("verl/utils/device.py", "@@ -1,0 +1,1 @@\n+ROOT = '/home/alice/x'")
    assert run([dockerfile, core], verl_profile) == []


def test_real_docker_home_paths_of_4665_are_not_flagged(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    pr = real_pr(weeks, "2026-W04", 4665)
    dockerfile = next(f for f in pr.files if f.path == "docker/Dockerfile.stable.trtllm")
    assert "+WORKDIR /home/dpsk_a2a" in (dockerfile.patch or "")
    assert abs_paths.DETECTOR.detect([pr], Context(profile=verl_profile)) == []


def test_real_doc_example_mount_of_4320_is_not_flagged(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    pr = real_pr(weeks, "2026-W04", 4320)
    text = next(f.patch for f in pr.files if f.path == "docs/perf/torch_profiling.md")
    assert "(e.g., `/mnt/traces`)" in (text or "")
    assert abs_paths.DETECTOR.detect([pr], Context(profile=verl_profile)) == []


def test_real_weeks_have_no_machine_specific_paths(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    # checked by hand: /home/dpsk_a2a is inside Dockerfiles (the image's own layout), /root/…
    # in the VLA scripts is the container's home, /mnt/traces is an "e.g." in a doc
    for label in LABELS:
        context = week_context(weeks, label, verl_profile)
        assert abs_paths.DETECTOR.detect(weeks[label].prs, context) == []
