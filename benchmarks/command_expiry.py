"""Commands across digest cache expiries: `pr N`, `risks` and `top` on a 2,000-PR store, signed
slash commands from many parallel clients for a while, the cache's ttl short enough to expire
several times meanwhile. Prints figures; not a test.

    .venv/bin/python benchmarks/command_expiry.py [--clients 50] [--seconds 12] [--ttl 3]
    .venv/bin/python benchmarks/command_expiry.py --code /path/to/other/checkout   # "before"

The server (the real Slack endpoint in the real web app, under uvicorn, with FakeSlack for
bolt's auth.test) runs in a child process on a SQLite store holding the replicated 2,000-PR
digest (tests/commands/builders.py) as the newest week, with `CachedReader(ttl=--ttl)` as the
engine's reader; it counts the store's digest reads. The parent sends the commands (a thread
and a keep-alive session per client), asks `/livez` every 100 ms, and samples the child's RSS.
`/livez` is asked from a process of its own too (`livez_*`): the parent's probe thread waits
for the GIL behind its 50 client threads (`client_livez_*`), which says little of the server.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SECRET = "8f742231b10e8888abcd99yyyzzz85a5"  # noqa: S105 - the fake's signing secret
REPO = "volcengine/verl"
TIMEOUT = 30.0


def _no_regenerate(repo: str, week: str, requested_by: str) -> Any:
    raise RuntimeError("the benchmark sends no regenerate")


def serve(ttl: float) -> None:
    """The child: the store, the app, the port on stdout; the digest reads on stdout at the end."""
    import tempfile

    from service.commands.answer import EngineContext
    from service.commands.context import CachedReader
    from service.runtime.web import build_web_app
    from service.slack.app import build_slack_app, build_slack_endpoint
    from service.slack.sender import build_web_client
    from service.store.repository import Store
    from tests.commands.builders import huge_digest
    from tests.fakes.asgi import run_app
    from tests.fakes.slack import BOT_TOKEN, running_fake_slack

    folder = tempfile.mkdtemp(prefix="command-expiry-")
    store = Store.open(f"sqlite:///{folder}/store.db")
    digest = huge_digest("en", by_hand=True)
    store.save_digest(digest)
    reads = {"digest": 0, "revision": 0}
    lock = threading.Lock()

    class Counting:
        def get_digest(self, repo: str, week: str, language: str) -> Any:
            with lock:
                reads["digest"] += 1
            return store.get_digest(repo, week, language)

        def digest_revision(self, repo: str, week: str, language: str) -> Any:
            with lock:
                reads["revision"] += 1
            revision = getattr(store, "digest_revision", None)  # a "before" tree has none
            return revision(repo, week, language) if revision else None

        def latest_digest(self, repo: str, language: str) -> Any:
            return store.latest_digest(repo, language)

        def list_periods(self, repo: str, language: str | None = None) -> list[str]:
            return store.list_periods(repo, language)

    kept: dict[str, Any] = {}
    try:  # the digests kept out of gc's passes, as service/wiring.py has it ("before": absent)
        from service.runtime.long_lived import keep_out_of_collections

        kept["kept"] = keep_out_of_collections
    except ImportError:
        pass
    if "timezone" in inspect.signature(CachedReader).parameters:  # reads stored labels as periods
        kept["timezone"] = "Asia/Shanghai"
    with running_fake_slack() as slack:
        clock = lambda: datetime.now(UTC)  # noqa: E731
        engine = EngineContext(
            reader=CachedReader(Counting(), clock, ttl=timedelta(seconds=ttl), **kept),
            repos=[REPO],
            language="en",
            timezone="Asia/Shanghai",
            clock=lambda: datetime.now(UTC),
            subscriptions=store,
        )
        client = build_web_client(BOT_TOKEN, slack.api_url)
        app = build_slack_app(
            client=client,
            signing_secret=SECRET,
            engine=engine,
            regenerate=_no_regenerate,
            language="en",
        )
        web = build_web_app(
            store=store, endpoints={"/slack/events": build_slack_endpoint(app)}, language="en"
        )
        with run_app(web) as url:
            numbers = [p.number for p in digest.prs]
            print(json.dumps({"url": url, "numbers": numbers, "slack": slack.response_url()}))
            sys.stdout.flush()
            sys.stdin.read()  # until the parent closes it
            print(json.dumps(reads), flush=True)


def probe_livez(url: str, seconds: float) -> None:
    """Child: GET `url`/livez every 100 ms for `seconds`; prints the latencies (ms) as JSON."""
    import requests

    session = requests.Session()
    found: list[float] = []
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        started = time.perf_counter()
        session.get(f"{url}/livez", timeout=TIMEOUT)
        found.append((time.perf_counter() - started) * 1000)
        time.sleep(0.1)
    print(json.dumps(found), flush=True)


def _probe_process(url: str, seconds: float) -> subprocess.Popen[str]:
    command = [sys.executable, str(Path(__file__).resolve()), "--probe", url]
    command += ["--seconds", str(seconds)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True)


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _cpu_s(pid: int) -> float:
    """The process's user + system CPU seconds so far (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _command(url: str, response_url: str, text: str, session: Any) -> tuple[int, float]:
    from urllib.parse import urlencode

    from tests.fakes.signing import sign_slack

    fields = {
        "team_id": "T0001",
        "channel_id": "C1",
        "user_id": "UBENCH",
        "command": "/verl-week",
        "text": text,
        "response_url": response_url,
        "trigger_id": "1.2.3",
    }
    body = urlencode(fields).encode()
    started = time.perf_counter()
    try:
        response = session.post(
            f"{url}/slack/events", data=body, headers=sign_slack(body, SECRET), timeout=TIMEOUT
        )
        status = response.status_code
    except Exception:  # a timeout or a reset: counted as an error
        status = 0
    return status, (time.perf_counter() - started) * 1000


def run(args: argparse.Namespace) -> dict[str, Any]:
    import requests

    code = Path(args.code).resolve() if args.code else ROOT
    env = {**os.environ, "PYTHONPATH": str(code), "LOG_LEVEL": "WARNING"}
    command = [sys.executable, str(Path(__file__).resolve()), "--serve", "--ttl", str(args.ttl)]
    child = subprocess.Popen(
        command, cwd=code, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert child.stdin is not None
    assert child.stdout is not None
    ready = json.loads(child.stdout.readline())
    url, numbers, response_url = ready["url"], ready["numbers"], ready["slack"]
    warm = requests.Session()
    _command(url, response_url, "risks", warm)  # the first read, before the clock starts
    idle = _rss_mb(child.pid)
    cpu_before = _cpu_s(child.pid)
    stop = time.monotonic() + args.seconds
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    livez: list[float] = []
    peak = [idle]
    lock = threading.Lock()

    def client(seed: int) -> None:
        rng = random.Random(seed)
        session = requests.Session()
        while time.monotonic() < stop:
            text = rng.choice(["risks", "top 5", f"pr {rng.choice(numbers)}"])
            status, ms = _command(url, response_url, text, session)
            with lock:
                latencies.append(ms)
                statuses[status] = statuses.get(status, 0) + 1

    def probe() -> None:
        session = requests.Session()
        while time.monotonic() < stop:
            started = time.perf_counter()
            session.get(f"{url}/livez", timeout=TIMEOUT)
            livez.append((time.perf_counter() - started) * 1000)
            peak[0] = max(peak[0], _rss_mb(child.pid))
            time.sleep(0.1)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(args.clients)]
    threads.append(threading.Thread(target=probe))
    prober = _probe_process(url, args.seconds)
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    cpu = _cpu_s(child.pid) - cpu_before
    alone: list[float] = json.loads(prober.communicate(timeout=TIMEOUT)[0])
    child.stdin.close()
    reads = json.loads(child.stdout.readline())
    child.wait(timeout=30)
    return {
        "code": "before" if args.code else "after",
        "clients": args.clients,
        "ttl_s": args.ttl,
        "seconds": args.seconds,
        "requests": len(latencies),
        "errors": sum(n for s, n in statuses.items() if s != 200),
        "p50_ms": round(statistics.median(latencies), 1) if latencies else 0,
        "p99_ms": round(_percentile(latencies, 0.99), 1),
        "max_ms": round(max(latencies, default=0), 1),
        "livez_p99_ms": round(_percentile(alone, 0.99), 1),
        "livez_max_ms": round(max(alone, default=0), 1),
        "client_livez_max_ms": round(max(livez, default=0), 1),
        "rss_idle_mb": round(idle, 1),
        "rss_peak_mb": round(peak[0], 1),
        "digest_reads": reads["digest"],
        "revision_checks": reads.get("revision", 0),
        "server_cpu_s": round(cpu, 1),
        "server_cpu_ms_per_command": round(1000 * cpu / max(1, len(latencies)), 2),
        "load_avg": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--serve", action="store_true", help="(internal) run the server")
    parser.add_argument("--probe", default=None, help="(internal) ask this server's /livez")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--ttl", type=float, default=3.0, help="the digest cache's ttl")
    parser.add_argument("--code", default=None, help="checkout the server runs (before)")
    args = parser.parse_args()
    if args.serve:
        serve(args.ttl)
        return
    if args.probe:
        probe_livez(args.probe, args.seconds)
        return
    row = run(args)
    print("| " + " | ".join(row) + " |")
    print("|" + "---|" * len(row))
    print("| " + " | ".join(str(v) for v in row.values()) + " |")


if __name__ == "__main__":
    main()
