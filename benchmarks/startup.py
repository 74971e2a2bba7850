"""Start-up time of the command line: wall and CPU time of `verl-week --help`, `--version` and
`digest --sample --no-llm` (median of N runs, each a fresh interpreter; `digest --sample` on the
database a first run made and migrated, and once more on a fresh database each time), and the
modules `import service.cli` loads. `--tree DIR` measures another checkout (e.g. main, for a
before/after). Modules run from bytecode, as from an installed wheel (pip compiles it): the
bytecode goes to a scratch folder whatever PYTHONDONTWRITEBYTECODE says.

    .venv/bin/python benchmarks/startup.py                  # this checkout
    .venv/bin/python benchmarks/startup.py --tree /work/main
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    "--help": ["--help"],
    "--version": ["--version"],
    "digest --sample": ["digest", "--sample", "--no-llm"],
}
HEAVY = ("openai", "slack_bolt", "slack_sdk", "sqlalchemy", "alembic", "starlette", "apscheduler")
PROBE = "import json, sys, service.cli; print(json.dumps(sorted(sys.modules)))"


def _env(tree: Path, data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return env | {
        "PYTHONPATH": str(tree),
        "PYTHONPYCACHEPREFIX": str(data / "pycache"),
        "DATABASE_URL": f"sqlite:///{data / 'b.db'}",
    }


def _seconds(args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "service", *args], env=env, cwd=cwd, capture_output=True, check=True
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def _line(name: str, runs: list[tuple[float, float]]) -> str:
    wall, cpu = [r[0] for r in runs], [r[1] for r in runs]
    return (
        f"{name:<28} wall {statistics.median(wall):5.2f} (min {min(wall):.2f})"
        f"   cpu {statistics.median(cpu):5.2f} (min {min(cpu):.2f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tree", type=Path, default=ROOT)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        data = Path(scratch)
        env = _env(args.tree.resolve(), data)
        _seconds(COMMANDS["digest --sample"], env, data)  # creates and migrates the database
        print(f"tree: {args.tree}  runs: {args.runs} (median and min, seconds)")
        for name, command in COMMANDS.items():
            print(_line(name, [_seconds(command, env, data) for _ in range(args.runs)]))
        fresh = []
        for run in range(args.runs):
            url = f"sqlite:///{data / f'fresh{run}.db'}"
            fresh.append(_seconds(COMMANDS["digest --sample"], env | {"DATABASE_URL": url}, data))
        print(_line("digest --sample (fresh db)", fresh))
        loaded = json.loads(
            subprocess.run(
                [sys.executable, "-c", PROBE], env=env, cwd=data, capture_output=True, check=True
            ).stdout
        )
    heavy = [name for name in HEAVY if name in loaded]
    print(f"import service.cli: {len(loaded)} modules; heavy ones loaded: {heavy or 'none'}")


if __name__ == "__main__":
    main()
