"""Load: 500 signed slash commands from 50 concurrent clients against `verl-week serve` (a real
subprocess on 127.0.0.1, fed by FakeGitHub/FakeSlack/FakeFeishu on loopback). Every command must
be acknowledged with HTTP 200; prints p50/p90/p99/max latency, throughput and the server's RSS
before and after. Bounded: it stops by itself (each request times out after 30 s, the whole run
after --deadline seconds). Prints figures; not a test.

    .venv/bin/python benchmarks/load.py [--requests 500] [--clients 50]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.e2e.conftest import (  # noqa: E402
    FEISHU_SECRET,
    GITHUB_TOKEN,
    Fakes,
    Serve,
    serve_env,
    shifted_pulls,
    wait_for,
)
from tests.fakes.feishu import serve_feishu  # noqa: E402
from tests.fakes.github import FakeGitHub  # noqa: E402
from tests.fakes.signing import sign_slack  # noqa: E402
from tests.fakes.slack import form_body, running_fake_slack  # noqa: E402

REPO = "volcengine/verl"
COMMANDS = ["risks", "top 5", "summary", "trends", "pr 4280", "help", "week", "risks high",
            "top 3 public", "nonsense"]  # fmt: skip
REQUEST_TIMEOUT = 30.0


@dataclass
class Sample:
    status: int
    seconds: float
    ok_body: bool


def rss_mb(pid: int) -> float:
    """Resident set size of `pid` from /proc (Linux), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def one_command(session: requests.Session, serve: Serve, fakes: Fakes, n: int) -> Sample:
    text = COMMANDS[n % len(COMMANDS)]
    body = form_body(
        {
            "team_id": "T0001",
            "channel_id": "C1",
            "user_id": f"U{n % 50:03d}",
            "command": "/verl-week",
            "text": text,
            "api_app_id": "A0001",
            "response_url": fakes.slack.response_url(),
            "trigger_id": f"{n}.1.2",
        }
    )
    headers = sign_slack(body, serve.env["SLACK_SIGNING_SECRET"])
    started = time.perf_counter()
    try:
        response = session.post(
            f"{serve.url}/slack/events", data=body, headers=headers, timeout=REQUEST_TIMEOUT
        )
    except requests.RequestException:
        return Sample(0, time.perf_counter() - started, False)
    seconds = time.perf_counter() - started
    ok_body = response.status_code == 200 and bool(response.json().get("text"))
    return Sample(response.status_code, seconds, ok_body)


def hammer(serve: Serve, fakes: Fakes, total: int, clients: int) -> tuple[list[Sample], float]:
    local = threading.local()

    def task(n: int) -> Sample:
        if not hasattr(local, "session"):
            local.session = requests.Session()
        return one_command(local.session, serve, fakes, n)

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        futures = [pool.submit(task, n) for n in range(total)]
        samples = [f.result() for f in as_completed(futures)]
    return samples, time.perf_counter() - started


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))
    return ordered[index]


def report(samples: list[Sample], wall: float, before: float, after: float,
           clients: int) -> dict[str, Any]:  # fmt: skip
    ms = [s.seconds * 1000 for s in samples]
    return {
        "requests": len(samples),
        "clients": clients,
        "statuses": dict(Counter(s.status for s in samples)),
        "acknowledged_200": sum(1 for s in samples if s.status == 200),
        "answered_with_text": sum(1 for s in samples if s.ok_body),
        "wall_s": round(wall, 2),
        "throughput_rps": round(len(samples) / wall, 1),
        "p50_ms": round(statistics.median(ms), 1),
        "p90_ms": round(percentile(ms, 90), 1),
        "p99_ms": round(percentile(ms, 99), 1),
        "max_ms": round(max(ms), 1),
        "rss_before_mb": round(before, 1),
        "rss_after_mb": round(after, 1),
    }


def run(total: int, clients: int, deadline: float) -> dict[str, Any]:
    with ExitStack() as stack, tempfile.TemporaryDirectory() as folder:
        github = FakeGitHub(REPO, token=GITHUB_TOKEN)
        for raw in shifted_pulls():
            github.add_pr(raw)
        stack.enter_context(github.running())
        slack = stack.enter_context(running_fake_slack())
        feishu = stack.enter_context(serve_feishu(app_secret=FEISHU_SECRET))
        fakes = Fakes(github, slack, feishu)
        serve = Serve(serve_env(fakes, Path(folder), LOG_LEVEL="WARNING"), Path(folder))
        serve.start()
        stack.callback(serve.stop)
        wait_for(lambda: len(slack.messages("C1")) == 1, what="the week posted at start-up")
        assert serve.proc is not None
        timer = threading.Timer(deadline, serve.kill)  # the bound: never runs forever
        timer.start()
        stack.callback(timer.cancel)
        serve.slash(fakes, "risks")  # warm-up: first request builds bolt's auth cache
        before = rss_mb(serve.proc.pid)
        samples, wall = hammer(serve, fakes, total, clients)
        after = rss_mb(serve.proc.pid)
        return report(samples, wall, before, after, clients)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--deadline", type=float, default=300.0, help="kill the server after")
    args = parser.parse_args()
    figures = run(args.requests, args.clients, args.deadline)
    print(json.dumps(figures, indent=2))
    every = figures["acknowledged_200"] == figures["requests"]
    print(f"every command acknowledged with 200: {every}")
    if not every:
        sys.exit(1)


if __name__ == "__main__":
    main()
