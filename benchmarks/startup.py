"""Start-up time of the command line: wall time of `verl-week --help`, `--version` and
`digest --sample --no-llm` (median of N runs, each a fresh interpreter), and the modules
`import service.cli` loads. `--tree DIR` measures another checkout (e.g. main, for a before/after).

    .venv/bin/python benchmarks/startup.py                  # this checkout
    .venv/bin/python benchmarks/startup.py --tree /work/main
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

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    "--help": ["--help"],
    "--version": ["--version"],
    "digest --sample": ["digest", "--sample", "--no-llm"],
}
HEAVY = ("openai", "slack_bolt", "slack_sdk", "sqlalchemy", "alembic", "starlette", "apscheduler")
PROBE = "import json, sys, service.cli; print(json.dumps(sorted(sys.modules)))"


def _env(tree: Path, data: Path) -> dict[str, str]:
    return os.environ | {"PYTHONPATH": str(tree), "DATABASE_URL": f"sqlite:///{data / 'b.db'}"}


def _seconds(args: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "service", *args], env=env, cwd=cwd, capture_output=True, check=True
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tree", type=Path, default=ROOT)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        data = Path(scratch)
        env = _env(args.tree.resolve(), data)
        _seconds(COMMANDS["digest --sample"], env, data)  # creates and migrates the database
        print(f"tree: {args.tree}  runs: {args.runs} (median, wall seconds)")
        for name, command in COMMANDS.items():
            times = [_seconds(command, env, data) for _ in range(args.runs)]
            print(f"{name:<18} {statistics.median(times):6.2f}  (min {min(times):.2f})")
        loaded = json.loads(
            subprocess.run(
                [sys.executable, "-c", PROBE], env=env, cwd=data, capture_output=True, check=True
            ).stdout
        )
    heavy = [name for name in HEAVY if name in loaded]
    print(f"import service.cli: {len(loaded)} modules; heavy ones loaded: {heavy or 'none'}")


if __name__ == "__main__":
    main()
