"""Family benchmark (issue 30: "a four-repository family costs at most its largest member's time
plus 20%"): the real `verl-week digest` of the verl family's recorded week 2026-W21 (verl 31
PRs, verl-omni 8, verl-recipe 3, verl-vla 1; tests/data/weeks/verl-project) against FakeGitHub
with a latency on every request, cold (a fresh database each run): each member alone, then the
four in one digest (`--repo` four times). Prints the median wall, CPU and requests of each and
the family's ratio to its largest member; not a test.

    .venv/bin/python benchmarks/family.py [--latency 0.05] [--runs 3]

The fake runs in this process (a thread); each digest is a child process, so its wall and CPU
are its own. The same GitHub client and rate budget serve the four collections in the family's
run (service/pipeline/jobs.py `collect_scope`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.github import FakeGitHub  # noqa: E402

WEEK = "2026-W21"
DATA = ROOT / "tests" / "data" / "weeks" / "verl-project"
MEMBERS = ("verl", "verl-omni", "verl-recipe", "verl-vla")
TOKEN = "ghp_familyBenchToken0123456789abcd"  # noqa: S105 - the fake's


def _fake(latency: float) -> FakeGitHub:
    """One fake serving the four repositories' recorded week."""
    weeks = [json.loads((DATA / f"{name}.{WEEK}.json").read_text("utf-8")) for name in MEMBERS]
    github = FakeGitHub(weeks[0]["repo"], token=TOKEN)
    github.serve_week(weeks[0])
    for data in weeks[1:]:
        github.add_repo(data["repo"]).serve_week(data)
    github.api.latency = latency
    return github


def _digest(github: FakeGitHub, repos: list[str]) -> dict[str, Any]:
    """One cold `verl-week digest` of `repos`: wall, CPU (user + sys), requests."""
    with tempfile.TemporaryDirectory() as folder:
        env = {
            **os.environ,
            "GITHUB_API_URL": github.url,
            "GITHUB_GRAPHQL_URL": github.graphql_url,
            "GITHUB_TOKEN": TOKEN,
            "DATABASE_URL": f"sqlite:///{folder}/family.db",
            "DIGEST_REPOS": ",".join(repos),
            "DIGEST_TIMEZONE": "Asia/Shanghai",
            "LOG_LEVEL": "WARNING",
        }
        command = [str(ROOT / ".venv" / "bin" / "verl-week"), "digest", "--week", WEEK]
        command += [arg for repo in repos for arg in ("--repo", repo)]
        command += ["--no-llm", "--format", "markdown", "--output", os.devnull]
        before = len(github.answers)
        started = time.perf_counter()
        child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"verl-week digest {' '.join(repos)} failed")
        return {
            "wall_s": wall,
            "cpu_s": usage.ru_utime + usage.ru_stime,
            "requests": len(github.answers) - before,
        }


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    github = _fake(args.latency)
    repos = [github.repo, *github.siblings]
    load = os.getloadavg()[0]
    rows: dict[str, dict[str, Any]] = {}
    with github.running():
        for repo in repos:
            rows[repo] = _median([_digest(github, [repo]) for _ in range(args.runs)])
        rows["family (4)"] = _median([_digest(github, repos) for _ in range(args.runs)])
    print(f"load average (1 min) at start {load:.2f}, at end {os.getloadavg()[0]:.2f}\n")
    print("| scope | requests | wall_s (median) | cpu_s |\n|---|---|---|---|")
    for scope, row in rows.items():
        print(f"| {scope} | {row['requests']} | {row['wall_s']:.2f} | {row['cpu_s']:.2f} |")
    largest = max(rows[repo]["wall_s"] for repo in repos)
    ratio = rows["family (4)"]["wall_s"] / largest
    print(f"\nfamily wall / largest member's wall = {ratio:.2f} (target <= 1.2)")


if __name__ == "__main__":
    main()
