"""Latency of `/verl-week risks` and `/verl-week pr N` answered from the store, over real HTTP.

The real web app (build_web_app + the bolt endpoint) runs under uvicorn on 127.0.0.1 with a
SQLite store holding the four real recorded verl weeks (and, for the last scenario, a 2,000-PR
week). Each request is a slash command signed as Slack signs it; the latency is the client's
round trip until the ack body (which carries the answer) is read. FakeSlack answers auth.test.

    .venv/bin/python benchmarks/slack_latency.py            # --requests 200
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from service.commands.answer import CachedReader, DigestReader, EngineContext  # noqa: E402
from service.render.links import report_url  # noqa: E402
from service.runtime.web import build_web_app  # noqa: E402
from service.slack.app import build_slack_app, build_slack_endpoint  # noqa: E402
from service.slack.sender import build_web_client  # noqa: E402
from service.store.repository import Store  # noqa: E402
from tests.commands.builders import WEEK_LABELS, real_digest, replicate_digest  # noqa: E402
from tests.conftest import NOW  # noqa: E402
from tests.fakes.asgi import run_app  # noqa: E402
from tests.fakes.signing import sign_slack  # noqa: E402
from tests.fakes.slack import BOT_TOKEN, form_body, running_fake_slack  # noqa: E402

SECRET = "benchmark-signing-secret"  # noqa: S105 - a fixed test secret
REPO = "volcengine/verl"
HUGE_REPO = "bench/huge"


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * len(ordered)) - 1))
    return ordered[index]


def command_body(text: str, response_url: str) -> bytes:
    return form_body(
        {
            "token": "x",
            "team_id": "T0001",
            "team_domain": "bench",
            "channel_id": "C1",
            "channel_name": "bench",
            "user_id": "UBENCH",
            "user_name": "bench",
            "command": "/verl-week",
            "text": text,
            "api_app_id": "A1",
            "is_enterprise_install": "false",
            "response_url": response_url,
            "trigger_id": "1.2.3",
        }
    )


def measure(
    session: requests.Session, url: str, texts: Callable[[int], str], count: int, response_url: str
) -> list[float]:
    timings = []
    for i in range(count):
        body = command_body(texts(i), response_url)
        headers = sign_slack(body, SECRET)
        started = time.perf_counter()
        response = session.post(url, data=body, headers=headers, timeout=10)
        response.json()
        timings.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.text
    return timings


def build_store(folder: str) -> tuple[Store, list[int], list[int]]:
    store = Store.open(f"sqlite:///{folder}/bench.db")
    numbers: list[int] = []
    for label in WEEK_LABELS:
        digest = real_digest(label)
        store.save_digest(digest)
        numbers += [p.number for p in digest.prs]
    huge = replicate_digest(real_digest("2026-W04")).model_copy(update={"repo": HUGE_REPO})
    store.save_digest(huge)
    return store, numbers, [p.number for p in huge.prs]


def run_scenarios(
    reader: DigestReader,
    store: Store,
    slack_api: str,
    hook: str,
    numbers: list[int],
    huge: list[int],
    count: int,
    label: str,
) -> None:
    engine = EngineContext(
        reader=reader,
        repos=[REPO, HUGE_REPO],
        language="en",
        timezone="Asia/Shanghai",
        clock=lambda: NOW,
        subscriptions=store,
        report_url=lambda repo, week: report_url("http://bench.test", repo, week),
    )
    app = build_slack_app(
        client=build_web_client(BOT_TOKEN, slack_api),
        signing_secret=SECRET,
        engine=engine,
        regenerate=None,
        language="en",
    )
    web = build_web_app(store=store, slack_endpoint=build_slack_endpoint(app), language="en")
    scenarios: list[tuple[str, Callable[[int], str]]] = [
        ("risks (newest week)", lambda i: "risks"),
        ("risks <week> high", lambda i: f"risks {WEEK_LABELS[i % 4]} high"),
        ("pr N (any of 4 weeks)", lambda i: f"pr {numbers[i * 7 % len(numbers)]}"),
        ("pr N (2,000-PR week)", lambda i: f"pr {huge[i * 37 % len(huge)]} {HUGE_REPO}"),
    ]
    with run_app(web) as base, requests.Session() as session:
        url = f"{base}/slack/events"
        measure(session, url, lambda i: "help", 10, hook)  # warm-up: auth.test, templates
        for name, texts in scenarios:
            timings = measure(session, url, texts, count, hook)
            print(
                f"| {label} | {name} | {len(timings)} | {statistics.median(timings):.1f} | "
                f"{percentile(timings, 99):.1f} | {max(timings):.1f} | "
                f"{statistics.fmean(timings):.1f} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, running_fake_slack() as slack:
        store, numbers, huge = build_store(folder)
        hook = slack.response_url()
        print("| reader | scenario | requests | p50 ms | p99 ms | max ms | mean ms |")
        print("|---|---|---|---|---|---|---|")
        readers: list[tuple[str, DigestReader]] = [
            ("Store", store),
            ("CachedReader(Store)", CachedReader(store, lambda: NOW, timezone="Asia/Shanghai")),
        ]
        for label, reader in readers:
            run_scenarios(reader, store, slack.api_url, hook, numbers, huge, args.requests, label)


if __name__ == "__main__":
    main()
