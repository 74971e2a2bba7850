"""Rebuild benchmark: the whole `verl-week digest` (collect → store → analyse → render one format)
as a user runs it, against FakeGitHub with a latency on every request, cold (empty database) and
warm (the same finished week again, on the database the cold run left). Prints figures; not a test.

    .venv/bin/python benchmarks/rebuild.py [--latency 0.05] [--sizes 500,2000] [--no-profile]

Scenarios: the real verl week 2025-W48 (tests/data/weeks) and synthetic weeks of 500 and 2,000
PRs made of the 132 recorded PRs (benchmarks/collect.py). The fake runs in a child process and
counts what it received; each CLI run is a child process too, so its CPU (user + sys) and peak
RSS come from its own rusage. The network floor is requests × latency ÷ GITHUB_PATCH_CONCURRENCY
(issue 14's definition). With profiling on, each phase runs a second time under cProfile (on a
fresh copy of the same database) under py-spy (the `dev` extra), which samples every thread,
and the top functions by own CPU samples are printed.
"""

from __future__ import annotations

import argparse
import collections
import json
import logging
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

REAL_WEEK = "2025-W48"  # benchmarks/collect.py's
SYNTHETIC_WEEK = "2026-W04"
REPO = "volcengine/verl"
TOKEN = "benchmark-token"  # noqa: S105 - the fake's, not a secret
CONCURRENCY = 4
TOP_FUNCTIONS = 12
SAMPLE_RATE = 100  # py-spy samples per second
KINDS = (
    ("graphql", re.compile(r"^POST /graphql$")),
    ("pulls/N/files", re.compile(r"^GET /repos/[^/]+/[^/]+/pulls/\d+/files$")),
    ("pulls/N", re.compile(r"^GET /repos/[^/]+/[^/]+/pulls/\d+$")),
    ("repo", re.compile(r"^GET /repos/[^/]+/[^/]+$")),
    ("search/code", re.compile(r"^GET /search/code$")),
    ("search/issues", re.compile(r"^GET /search/issues$")),
)


# --- the fake, in its own process ----------------------------------------------------------


def _kind(method: str, path: str) -> str:
    line = f"{method} {path}"
    return next((name for name, pattern in KINDS if pattern.match(line)), "other")


def serve(scenario: str, prs: int, latency: float, distinct: bool) -> None:
    """Child process: run the fake; on each `stats` line print the counts since the last one."""
    from benchmarks.collect import _week_file, _window, synthetic  # the CLI child skips these
    from tests.fakes.github import FakeGitHub

    fake = FakeGitHub(REPO, token=TOKEN)
    if scenario == "real":
        fake.serve_week(_week_file(REAL_WEEK))
    else:
        for raw in synthetic(prs, _window("synthetic"), distinct=distinct):
            fake.add_pr(raw)
    fake.api.latency = latency
    start = resource.getrusage(resource.RUSAGE_SELF)
    spent = start.ru_utime + start.ru_stime  # the fake's own CPU counted so far
    with fake.running():
        print(json.dumps({"url": fake.url}), flush=True)
        for line in sys.stdin:
            if line.strip() != "stats":
                continue
            kinds = collections.Counter(_kind(m, p) for m, p, _ in fake.answers)
            not_modified = sum(1 for _, _, status in fake.answers if status == 304)
            usage = resource.getrusage(resource.RUSAGE_SELF)
            cpu = round(usage.ru_utime + usage.ru_stime - spent, 2)
            spent += cpu
            print(
                json.dumps({"kinds": kinds, "not_modified": not_modified, "cpu": cpu}), flush=True
            )
            fake.reset_log()


class Fake:
    def __init__(self, scenario: str, prs: int, latency: float, distinct: bool = False) -> None:
        command = [sys.executable, __file__, "--serve", scenario, "--prs", str(prs)]
        command += ["--distinct"] if distinct else []
        self.child = subprocess.Popen(
            [*command, "--latency", str(latency)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.child.stdout is not None
        self.url = json.loads(self.child.stdout.readline())["url"]

    def stats(self) -> dict[str, Any]:
        assert self.child.stdin is not None
        assert self.child.stdout is not None
        self.child.stdin.write("stats\n")
        self.child.stdin.flush()
        return dict(json.loads(self.child.stdout.readline()))

    def close(self) -> None:
        assert self.child.stdin is not None
        self.child.stdin.close()
        self.child.wait(timeout=60)


# --- one CLI run ---------------------------------------------------------------------------


def _environment(url: str, database: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    return {
        **keep,
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_API_URL": url,
        "DATABASE_URL": f"sqlite:///{database}",
        "DIGEST_REPOS": REPO,
        "DIGEST_TIMEZONE": "Asia/Shanghai",
        "DIGEST_LANGUAGE": "zh",
        "GITHUB_PATCH_CONCURRENCY": str(CONCURRENCY),
        "LOG_LEVEL": "WARNING",
        "LOG_FORMAT": "json",
    }


def cli_run(week: str, output: str) -> None:
    """Child process: what `verl-week digest --week W --format markdown --output F` does
    (service/cli/digest.py), step by step with a clock around each."""
    started = time.perf_counter()
    from service import wiring
    from service.cli import leave_to_exit
    from service.cli.common import configure_logging
    from service.core.weeks import parse_week
    from service.pipeline.jobs import build_week
    from service.render.formats import render_format
    from service.settings import load_settings

    settings = load_settings()
    configure_logging(settings)
    logging.getLogger("service.pipeline.jobs").setLevel(logging.DEBUG)  # its "week built" line
    imported = time.perf_counter()
    pipeline = wiring.build_pipeline(settings, with_senders=False)
    window = parse_week(week, settings.digest_timezone, wiring.utc_now())
    ready = time.perf_counter()
    digest = build_week(pipeline, REPO, window)
    built = time.perf_counter()
    url = wiring.pipeline_links(settings, pipeline).url(digest.repo, digest.period)
    Path(output).write_text(render_format(digest, "markdown", "zh", report_url=url), "utf-8")
    done = time.perf_counter()
    laps = {
        "import_s": imported - started,
        "setup_s": ready - imported,
        "build_s": built - ready,
        "render_s": done - built,
        "run_s": done - imported,
    }
    print(json.dumps({"code": 0, **{k: round(v, 2) for k, v in laps.items()}}), flush=True)
    leave_to_exit()  # as the `verl-week` process ends (cli.console)


def run_cli(
    url: str, database: Path, week: str, folder: Path, profile: Path | None = None
) -> dict[str, Any]:
    """The digest of `week` in a child process (cli_run): wall, CPU, peak RSS, phases."""
    command = [sys.executable, __file__, "--cli", week, "--output", str(folder / "out.md")]
    if profile is not None:  # py-spy samples every thread (cProfile sees the main one only)
        spy = [shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy"), "record"]
        spy += ["-r", str(SAMPLE_RATE), "--gil", "--format", "raw", "-o", str(profile), "--"]
        command = [*spy, *command]
    env = {**_environment(url, database), "PYTHONPATH": str(ROOT)}
    out, err = folder / "child.out", folder / "child.err"
    started = time.perf_counter()
    with out.open("wb") as stdout, err.open("wb") as stderr:  # files: a pipe could fill up
        child = subprocess.Popen(command, cwd=folder, env=env, stdout=stdout, stderr=stderr)
        _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    lines = [line for line in out.read_text().splitlines() if line.startswith("{")]
    result = json.loads(lines[-1]) if lines else {"code": None}
    log = err.read_text()
    if os.waitstatus_to_exitcode(status) != 0 or result["code"] != 0:
        raise SystemExit(f"verl-week digest failed: {log.strip()[-2000:]}")
    built = next((json.loads(line) for line in log.splitlines() if '"week built"' in line), {})
    names = ("collect_s", "analyse_s", "analyse_cpu_s", "store_s")
    phases = {k: round(built.get(k, 0.0), 2) for k in names}
    return {
        "wall_s": round(wall, 2),
        **{k: result[k] for k in ("import_s", "setup_s", "run_s", "render_s")},
        **phases,
        "reused": built.get("reused"),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "report_kb": (folder / "out.md").stat().st_size // 1024,
    }


def _row(scenario: str, phase: str, cli: dict[str, Any], seen: dict[str, Any], latency: float):
    kinds = seen["kinds"]
    requests = sum(kinds.values())
    floor = requests * latency / CONCURRENCY
    return {
        "scenario": scenario,
        "phase": phase,
        "requests": requests,
        "kinds": kinds,
        "by_kind": ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())),
        "not_modified": seen["not_modified"],
        **cli,
        "floor_s": round(floor, 2),
        "fake_cpu_s": seen["cpu"],
        "ratio": round(cli["wall_s"] / floor, 2) if floor else None,
    }


def _top(raw: Path) -> list[str]:
    """Top functions of a py-spy raw profile (`frame;frame;... count` lines) by own samples."""
    own: collections.Counter[str] = collections.Counter()
    total: collections.Counter[str] = collections.Counter()
    for line in raw.read_text(encoding="utf-8").splitlines():
        stack, _, count = line.rpartition(" ")
        frames = [_short(f) for f in stack.split(";")]
        own[frames[-1]] += int(count)
        for frame in set(frames):
            total[frame] += int(count)
    samples = sum(own.values()) or 1
    return [
        f"    {n / SAMPLE_RATE:6.2f} s own {total[f] / SAMPLE_RATE:6.2f} s cum "
        f"({100 * n / samples:4.1f} %)  {f}"
        for f, n in own.most_common(TOP_FUNCTIONS)
    ]


def _short(frame: str) -> str:
    """`parse_patch (service/core/risks/base.py:95)` → `parse_patch (core/risks/base.py)`."""
    if not frame.strip():
        return "(no Python frame: start-up, exit or native code)"
    name, _, where = frame.partition(" (")
    path = where.rstrip(")").rsplit(":", 1)[0]
    for prefix in ("site-packages/", "service/", "lib/python3."):
        if prefix in path:
            path = path.split(prefix, 1)[1]
    return f"{name} ({path})"


@dataclass(frozen=True)
class Options:
    latency: float
    profile: bool
    distinct: bool


def scenario_rows(scenario: str, prs: int, opts: Options) -> tuple[list[dict[str, Any]], list[str]]:
    label = REAL_WEEK if scenario == "real" else SYNTHETIC_WEEK
    name = "real" if scenario == "real" else f"synthetic-{prs}" + ("-distinct" * opts.distinct)
    fake = Fake(scenario, prs, opts.latency, opts.distinct)
    rows, notes = [], []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        database = folder / "bench.sqlite"
        for phase in ("cold", "warm"):
            if phase == "warm":
                shutil.copy(database, folder / "after-cold.sqlite")
            cli = run_cli(fake.url, database, label, folder)
            rows.append(_row(name, phase, cli, fake.stats(), opts.latency))
        for phase in ("cold", "warm") if opts.profile else ():
            copy = folder / f"profile-{phase}.sqlite"
            if phase == "warm":
                shutil.copy(folder / "after-cold.sqlite", copy)
            prof = folder / f"{phase}.txt"
            run_cli(fake.url, copy, label, folder, profile=prof)
            fake.stats()
            notes += [f"  {name} {phase}: top functions by own CPU (py-spy --gil)", *_top(prof)]
    fake.close()
    return rows, notes


def _verdicts(rows: list[dict[str, Any]]) -> list[str]:
    """Each row against issue 14's targets."""
    lines = []
    for row in rows:
        name, kinds = f"{row['scenario']}/{row['phase']}", row["kinds"]
        pages = kinds.get("graphql", 0)
        if row["phase"] == "warm":
            more = row["requests"] - pages
            lines.append(
                f"{name}: files requests {kinds.get('pulls/N/files', 0)} (target 0), "
                f"requests beyond the GraphQL pages {more} (target <= 2)"
            )
            lines.append(
                f"{name}: reused the stored digest: {row['reused']}; run {row['run_s']} s "
                f"(targets: < 1 s real week, < 10 s for 2,000 PRs)"
            )
        elif row["scenario"] == "real":
            files, refs = kinds.get("pulls/N/files", 0), kinds.get("search/code", 0)
            lines.append(
                f"{name}: requests {row['requests']} = pages {pages} + patched {files} "
                f"+ {row['requests'] - pages - files - refs} + {refs} reference "
                f"searches (target: pages + patched + 2, plus capped searches)"
            )
            lines.append(
                f"{name}: analysis + rendering {row['analyse_s'] + row['render_s']:.2f} s "
                f"(target < 1 s)"
            )
        else:
            lines.append(
                f"{name}: wall {row['wall_s']} s / floor {row['floor_s']} s = "
                f"{row['ratio']} (target <= 1.5); CPU {row['cpu_s']} s (<= 25); "
                f"peak RSS {row['peak_rss_mb']} MB (<= 400)"
            )
    return lines  # fmt: skip


COLUMNS = ["scenario", "phase", "requests", "by_kind", "not_modified", "wall_s", "floor_s",
           "ratio", "import_s", "setup_s", "run_s", "collect_s", "analyse_s", "analyse_cpu_s",
           "store_s", "render_s", "reused", "cpu_s", "peak_rss_mb", "fake_cpu_s",
           "report_kb"]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--serve", choices=["real", "synthetic"])
    parser.add_argument("--cli", metavar="WEEK", help="(internal) run the digest of WEEK")
    parser.add_argument("--output", help="(internal) where --cli writes the report")
    parser.add_argument("--prs", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--sizes", default="500,2000", help="synthetic week sizes")
    parser.add_argument("--no-profile", action="store_true", help="skip the profiled runs")
    parser.add_argument(
        "--distinct", action="store_true", help="synthetic PRs with patches of their own"
    )
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.prs, args.latency, args.distinct)
        return
    if args.cli:
        cli_run(args.cli, args.output)
        return
    opts = Options(args.latency, not args.no_profile, args.distinct)
    plan = [("real", 0)] + [("synthetic", int(n)) for n in args.sizes.split(",") if n]
    rows, notes = [], []
    load = os.getloadavg()[0]
    for scenario, prs in plan:
        found, noted = scenario_rows(scenario, prs, opts)
        rows += found
        notes += noted
        for row in found:
            print(json.dumps(row), file=sys.stderr, flush=True)
    print(f"load average (1 min) at start {load:.2f}, at end {os.getloadavg()[0]:.2f}\n")
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for row in rows:
        print("| " + " | ".join(str(row[c]) for c in COLUMNS) + " |")
    print()
    for line in [*_verdicts(rows), "", *notes]:
        print(line)


if __name__ == "__main__":
    main()
