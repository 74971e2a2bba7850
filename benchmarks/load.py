"""Load: signed slash commands and report page GETs, in parallel from 50 clients, against
`verl-week serve` (a real subprocess on 127.0.0.1, fed by FakeGitHub/FakeSlack/FakeFeishu on
loopback). Every request must get HTTP 200; prints p50/p90/p99/max latency per kind (commands,
report GETs), throughput and the server's RSS before and after. `--reports-every N` makes every
N-th request a report GET (default 3); `--hostile N` mixes N `path:` glob commands of the shape
that froze the server (issue 19) into the load; `--code DIR` runs the server from another
checkout (the "before" figures: `--code /path/to/main`). Bounded: it stops by itself (each
request times out after 30 s, the whole run after --deadline seconds, the server killed then).
Prints figures; not a test.

    .venv/bin/python benchmarks/load.py [--requests 500] [--clients 50] [--hostile 0]
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
    last_window,
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
REPORT_FORMATS = ("", ".json", ".md")
# under the 8-wildcard cap, so the glob is matched (not refused) on every path of the week
HOSTILE = "risks path:" + "*a?" * 4 + "X"
# the glob of issue 19 that froze every thread (refused at once since: over the cap)
FREEZER = "risks path:" + "*" * 40 + "X"


@dataclass
class Sample:
    kind: str  # command | report | hostile
    status: int
    seconds: float
    ok_body: bool


def rss_mb(pid: int) -> float:
    """Resident set size of `pid` from /proc (Linux), in MiB."""
    status = Path(f"/proc/{pid}/status")
    if not status.exists():  # killed at the deadline (a frozen server)
        return float("nan")
    for line in status.read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def one_report(session: requests.Session, serve: Serve, n: int) -> Sample:
    url = f"{serve.url}/reports/{REPO}/{last_window().label}{REPORT_FORMATS[n % 3]}"
    started = time.perf_counter()
    try:
        response = session.get(url, timeout=REQUEST_TIMEOUT)
    except requests.RequestException:
        return Sample("report", 0, time.perf_counter() - started, False)
    seconds = time.perf_counter() - started
    return Sample("report", response.status_code, seconds, len(response.content) > 1000)


def one_command(
    session: requests.Session, serve: Serve, fakes: Fakes, n: int, text: str, kind: str
) -> Sample:
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
        return Sample(kind, 0, time.perf_counter() - started, False)
    seconds = time.perf_counter() - started
    ok_body = response.status_code == 200 and bool(response.json().get("text"))
    return Sample(kind, response.status_code, seconds, ok_body)


@dataclass(frozen=True)
class Mix:
    """Which request the n-th one is: a report GET every `every` requests, the first
    `hostile` commands of the hostile shape, else an ordinary command."""

    every: int
    hostile: int
    text: str = HOSTILE

    def pick(self, n: int) -> str:
        if self.every and n % self.every == self.every - 1:
            return "report"
        return "hostile" if n < self.hostile else "command"


def hammer(
    serve: Serve, fakes: Fakes, total: int, clients: int, mix: Mix
) -> tuple[list[Sample], float]:
    local = threading.local()

    def task(n: int) -> Sample:
        if not hasattr(local, "session"):
            local.session = requests.Session()
        kind = mix.pick(n)
        if kind == "report":
            return one_report(local.session, serve, n)
        text = mix.text if kind == "hostile" else COMMANDS[n % len(COMMANDS)]
        return one_command(local.session, serve, fakes, n, text, kind)

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        futures = [pool.submit(task, n) for n in range(total)]
        samples = [f.result() for f in as_completed(futures)]
    return samples, time.perf_counter() - started


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))
    return ordered[index]


def latencies(samples: list[Sample]) -> dict[str, Any]:
    ms = [s.seconds * 1000 for s in samples]
    if not ms:
        return {"count": 0}
    return {
        "count": len(ms),
        "ok_200": sum(1 for s in samples if s.status == 200),
        "answered": sum(1 for s in samples if s.ok_body),
        "p50_ms": round(statistics.median(ms), 1),
        "p90_ms": round(percentile(ms, 90), 1),
        "p99_ms": round(percentile(ms, 99), 1),
        "max_ms": round(max(ms), 1),
    }


def report(samples: list[Sample], wall: float, before: float, after: float,
           clients: int) -> dict[str, Any]:  # fmt: skip
    return {
        "requests": len(samples),
        "clients": clients,
        "statuses": dict(Counter(s.status for s in samples)),
        "acknowledged_200": sum(1 for s in samples if s.status == 200),
        "answered_with_text": sum(1 for s in samples if s.ok_body),
        "wall_s": round(wall, 2),
        "throughput_rps": round(len(samples) / wall, 1),
        **{f"all_{k}": v for k, v in latencies(samples).items() if k.endswith("_ms")},
        **{
            kind: latencies([s for s in samples if s.kind == kind])
            for kind in ("command", "report", "hostile")
        },
        "rss_before_mb": round(before, 1),
        "rss_after_mb": round(after, 1),
    }


def run(total: int, clients: int, deadline: float, mix: Mix, code: Path | None) -> dict[str, Any]:
    with ExitStack() as stack, tempfile.TemporaryDirectory() as folder:
        github = FakeGitHub(REPO, token=GITHUB_TOKEN)
        for raw in shifted_pulls():
            github.add_pr(raw)
        stack.enter_context(github.running())
        slack = stack.enter_context(running_fake_slack())
        feishu = stack.enter_context(serve_feishu(app_secret=FEISHU_SECRET))
        fakes = Fakes(github, slack, feishu)
        env = serve_env(fakes, Path(folder), LOG_LEVEL="WARNING")
        if code is not None:  # the server runs another checkout's code (the "before" figures)
            env["PYTHONPATH"] = str(code.resolve())
        serve = Serve(env, Path(folder))
        serve.start()
        stack.callback(serve.stop)
        wait_for(lambda: len(slack.messages("C1")) == 1, what="the week posted at start-up")
        assert serve.proc is not None
        timer = threading.Timer(deadline, serve.kill)  # the bound: never runs forever
        timer.start()
        stack.callback(timer.cancel)
        serve.slash(fakes, "risks")  # warm-up: first request builds bolt's auth cache
        before = rss_mb(serve.proc.pid)
        samples, wall = hammer(serve, fakes, total, clients, mix)
        after = rss_mb(serve.proc.pid)
        return report(samples, wall, before, after, clients)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--deadline", type=float, default=300.0, help="kill the server after")
    parser.add_argument("--reports-every", type=int, default=3, help="a report GET every N")
    parser.add_argument("--hostile", type=int, default=0, help="hostile glob commands first")
    parser.add_argument("--freezer", action="store_true", help="hostile: the 40-star glob")
    parser.add_argument("--code", type=Path, default=None, help="checkout the server runs")
    args = parser.parse_args()
    text = FREEZER if args.freezer else HOSTILE
    mix = Mix(every=args.reports_every, hostile=args.hostile, text=text)
    figures = run(args.requests, args.clients, args.deadline, mix, args.code)
    figures["code"] = str(args.code or ROOT)
    print(json.dumps(figures, indent=2))
    every = figures["acknowledged_200"] == figures["requests"]
    print(f"every request answered with 200: {every}")
    if not every:
        sys.exit(1)


if __name__ == "__main__":
    main()
