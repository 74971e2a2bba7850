"""Collector benchmark: collect_week against FakeGitHub with 50 ms of latency per request, for a
real verl week and a synthetic 2,000-PR week, cold and warm cache. Prints figures; not a test.

    .venv/bin/python benchmarks/collect.py [--latency 0.05] [--prs 2000]

The fake runs in a child process, so the peak RSS printed is the collector's own process.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from service.core.models import CollectedPeriod, Period  # noqa: E402
from service.core.profile import load_profile  # noqa: E402
from service.core.weeks import window_for  # noqa: E402
from service.github.collect import collect_week  # noqa: E402
from service.github.http import GitHubHttp  # noqa: E402
from service.store.repository import Store  # noqa: E402
from tests.fakes.github import FakeGitHub  # noqa: E402

WEEKS = ROOT / "tests" / "data" / "weeks"
REPO = "volcengine/verl"
TOKEN = "benchmark-token"  # noqa: S105 - the fake's, not a secret
TZ = "Asia/Shanghai"
REAL_WEEK = "2025-W48"


def _week_file(label: str) -> dict[str, Any]:
    return json.loads((WEEKS / f"{label}.json").read_text(encoding="utf-8"))


def _window(scenario: str) -> Period:
    if scenario == "real":
        year, week = REAL_WEEK.split("-W")
        return window_for(int(year), int(week), TZ)
    return window_for(2026, 4, TZ)


def synthetic(count: int, window: Period, *, distinct: bool = False) -> list[dict[str, Any]]:
    """`count` PRs made of the real recorded ones, renumbered and spread over the window.

    The copies share their patches' text unless `distinct`: then each patch ends with a context
    line naming its PR, so no two PRs carry the same patch, as in a real week."""
    real = [pr for path in sorted(WEEKS.glob("*.json")) for pr in _week_file(path.stem)["pulls"]]
    step = (window.end - window.start) / count
    made = []
    for i in range(count):
        pr = copy.deepcopy(real[i % len(real)])
        pr["number"] = 100_000 + i
        # every merge has its own commit, as on GitHub
        pr["merge_commit_sha"] = hashlib.sha1(str(pr["number"]).encode()).hexdigest()  # noqa: S324
        merged = (window.start + step * i + timedelta(seconds=1)).astimezone(UTC)
        pr["merged_at"] = pr["created_at"] = merged.strftime("%Y-%m-%dT%H:%M:%SZ")
        for change in pr["files"] if distinct else ():
            if change.get("patch"):
                change["patch"] += f"\n # copy {pr['number']}"
        made.append(pr)
    return made


def serve(scenario: str, prs: int, latency: float) -> None:
    """Child process: run the fake, print its URL, stop when stdin closes."""
    fake = FakeGitHub(REPO, token=TOKEN)
    if scenario == "real":
        fake.serve_week(_week_file(REAL_WEEK))
    else:
        for raw in synthetic(prs, _window(scenario)):
            fake.add_pr(raw)
    fake.api.latency = latency
    with fake.running():
        print(json.dumps({"url": fake.url}), flush=True)
        sys.stdin.read()


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def _phase(url: str, store: Store, scenario: str, token: str | None) -> dict[str, Any]:
    http = GitHubHttp(api_url=url, graphql_url=f"{url}/graphql", token=token, cache=store)
    started = time.perf_counter()
    week: CollectedPeriod = collect_week(
        http, REPO, _window(scenario), load_profile(REPO), check_references=False
    )
    wall = time.perf_counter() - started
    stats = http.stats.as_dict()
    http.close()
    patched = sum(1 for p in week.prs if p.patches_fetched) + sum(
        1 for m in week.completeness.missing if m.what == "patches"
    )
    return {
        "prs": len(week.prs),
        "patched": patched,
        "complete": week.completeness.complete,
        "wall_s": round(wall, 2),
        "peak_rss_mb": round(_peak_mb(), 1),
        **stats,
    }


def run(scenario: str, prs: int, latency: float, token: str | None) -> list[dict[str, Any]]:
    command = [sys.executable, __file__, "--serve", scenario, "--prs", str(prs)]
    child = subprocess.Popen(
        [*command, "--latency", str(latency)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    assert child.stdin is not None
    url = json.loads(child.stdout.readline())["url"]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        store = Store.open(f"sqlite:///{folder}/bench.sqlite")
        for phase in ("cold", "warm"):
            row = {"scenario": scenario, "path": "graphql" if token else "rest", "phase": phase}
            rows.append({**row, **_phase(url, store, scenario, token)})
        store.engine.dispose()
    child.stdin.close()
    child.wait(timeout=30)
    return rows


def _verdicts(rows: list[dict[str, Any]]) -> list[str]:
    lines = []
    for row in rows:
        name = f"{row['scenario']}/{row['path']}/{row['phase']}"
        if row["path"] == "graphql" and row["phase"] == "cold":
            bound = row["graphql_requests"] + row["patched"] + 2
            ok = row["requests"] <= bound
            lines.append(f"{name}: requests {row['requests']} <= pages+patched+2 = {bound}: {ok}")
        if row["phase"] == "warm":
            bodies = row["rest_requests"] - row["not_modified"]
            lines.append(f"{name}: REST bodies re-downloaded: {bodies} (target 0): {bodies == 0}")
        if row["scenario"] == "synthetic" and row["phase"] == "cold":
            ok = row["wall_s"] < 60 and row["peak_rss_mb"] < 300
            lines.append(
                f"{name}: {row['prs']} PRs in {row['wall_s']} s, peak RSS {row['peak_rss_mb']} MB "
                f"(targets < 60 s, < 300 MB): {ok}"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--serve", choices=["real", "synthetic"])
    parser.add_argument("--prs", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.prs, args.latency)
        return
    rows = run("real", args.prs, args.latency, TOKEN)
    rows += run("real", args.prs, args.latency, None)
    rows += run("synthetic", args.prs, args.latency, TOKEN)
    columns = ["scenario", "path", "phase", "prs", "patched", "requests", "graphql_requests",
               "rest_requests", "not_modified", "retries", "rate_limit_cost", "bytes_downloaded",
               "wall_s", "peak_rss_mb", "complete"]  # fmt: skip
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row[c]) for c in columns) + " |")
    print()
    for line in _verdicts(rows):
        print(line)


if __name__ == "__main__":
    main()
