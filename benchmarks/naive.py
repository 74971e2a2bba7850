"""Naive vs ours: the requests and rate-limit cost of collecting one real verl week (2026-W04,
from tests/data/weeks) with our collector (GraphQL search + REST patches, ETag cache in a tmp
SQLite Store, cold then warm) against a naive REST collector written here: the search API, then
for every PR `pulls/N`, `pulls/N/files`, `pulls/N/reviews`, `issues/N/comments` and
`pulls/N/comments`, each paginated with per_page=100, no cache. Prints figures; not a test.

    .venv/bin/python benchmarks/naive.py [--latency 0.05]

FakeGitHub (tests/fakes/github.py) serves the week in a child process, as benchmarks/collect.py
does; the routes it lacks (reviews and both comment lists) are registered here on its FakeAPI,
through the fake's own wrapper, so they get ETags and x-ratelimit-* headers like the rest.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from service.core.models import Period  # noqa: E402
from service.core.profile import load_profile  # noqa: E402
from service.core.weeks import window_for  # noqa: E402
from service.github.collect import collect_week  # noqa: E402
from service.github.http import GitHubHttp  # noqa: E402
from service.store.repository import Store  # noqa: E402
from tests.fakes._server import Recorded, Reply  # noqa: E402
from tests.fakes.github import FakeGitHub  # noqa: E402

WEEKS = ROOT / "tests" / "data" / "weeks"
REPO = "volcengine/verl"
TOKEN = "benchmark-token"  # noqa: S105 - the fake's, not a secret
TZ = "Asia/Shanghai"
WEEK = (2026, 4)
PER_PAGE = 100
NOT_MODIFIED = 304


def window() -> Period:
    return window_for(WEEK[0], WEEK[1], TZ)


def _week_file() -> dict[str, Any]:
    label = f"{WEEK[0]}-W{WEEK[1]:02d}"
    return json.loads((WEEKS / f"{label}.json").read_text(encoding="utf-8"))


def add_discussion_routes(fake: FakeGitHub) -> None:
    """pulls/N/reviews, issues/N/comments and pulls/N/comments for every PR the fake serves."""
    base = f"/repos/{fake.repo}"
    for number, pr in fake.prs.items():
        reviews = [
            {"id": i, "state": s, "user": {"login": a}} for i, (s, a) in enumerate(pr.reviews)
        ]
        comments = [{"id": i, "body": "", "user": {"login": "someone"}} for i in range(pr.comments)]
        threads = [
            {"id": i, "path": t.get("path"), "line": t.get("line"), "body": t.get("body", "")}
            for i, t in enumerate(pr.threads)
        ]
        for path, items in (
            (f"{base}/pulls/{number}/reviews", reviews),
            (f"{base}/issues/{number}/comments", comments),
            (f"{base}/pulls/{number}/comments", threads),
        ):
            fake.api.route("GET", path, fake._wrap(_listing(items)))


def _listing(items: list[dict[str, Any]]) -> Any:
    def route(rec: Recorded) -> Reply:
        per_page = min(int(rec.query.get("per_page", ["30"])[0]), PER_PAGE)
        page = int(rec.query.get("page", ["1"])[0])
        return 200, {}, items[(page - 1) * per_page : page * per_page]

    return route


def serve(latency: float) -> None:
    """Child process: run the fake, print its URL, stop when stdin closes."""
    fake = FakeGitHub(REPO, token=TOKEN)
    fake.serve_week(_week_file())
    add_discussion_routes(fake)
    fake.api.latency = latency
    with fake.running():
        print(json.dumps({"url": fake.url}), flush=True)
        sys.stdin.read()


@dataclass
class NaiveCost:
    requests: int = 0
    rate_limit_cost: int = 0
    search_cost: int = 0
    bytes_downloaded: int = 0


class NaiveCollector:
    """What a first attempt looks like: REST for everything, one call per PR per resource."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self.session = requests.Session()
        self.session.headers.update(
            {"authorization": f"Bearer {token}", "accept": "application/vnd.github+json"}
        )
        self.cost = NaiveCost()

    def _pages(self, path: str, params: dict[str, Any] | None = None) -> list[Any]:
        """Every page of a list endpoint, following Link rel=next."""
        found: list[Any] = []
        next_url: str | None = f"{self.url}{path}"
        query: dict[str, Any] | None = {"per_page": PER_PAGE, **(params or {})}
        while next_url:
            data, next_url = self._get(next_url, query)
            query = None  # the next URL carries its query
            found += data["items"] if isinstance(data, dict) and "items" in data else data
        return found

    def _get(self, url: str, params: dict[str, Any] | None) -> tuple[Any, str | None]:
        resp = self.session.get(url, params=params, timeout=30)
        resp.raise_for_status()
        self.cost.requests += 1
        self.cost.bytes_downloaded += len(resp.content)
        if resp.status_code != NOT_MODIFIED:
            if "/search/" in url:
                self.cost.search_cost += 1
            else:
                self.cost.rate_limit_cost += 1
        return resp.json(), resp.links.get("next", {}).get("url")

    def collect(self, repo: str, win: Period) -> list[dict[str, Any]]:
        start = win.start.isoformat()
        end = win.end.isoformat()
        items = self._pages(
            "/search/issues", {"q": f"repo:{repo} is:pr is:merged merged:{start}..{end}"}
        )
        prs = []
        for item in items:
            n = item["number"]
            pull, _ = self._get(f"{self.url}/repos/{repo}/pulls/{n}", None)
            pull["files"] = self._pages(f"/repos/{repo}/pulls/{n}/files")
            pull["reviews"] = self._pages(f"/repos/{repo}/pulls/{n}/reviews")
            pull["issue_comments"] = self._pages(f"/repos/{repo}/issues/{n}/comments")
            pull["review_comments"] = self._pages(f"/repos/{repo}/pulls/{n}/comments")
            prs.append(pull)
        return prs


def ours(url: str, store: Store) -> dict[str, Any]:
    http = GitHubHttp(api_url=url, graphql_url=f"{url}/graphql", token=TOKEN, cache=store)
    started = time.perf_counter()
    week = collect_week(http, REPO, window(), load_profile(REPO), check_references=False)
    wall = time.perf_counter() - started
    stats = http.stats.as_dict()
    http.close()
    return {"prs": len(week.prs), "wall_s": round(wall, 2), "complete": week.completeness.complete,
            "search_cost": 0, **stats}  # fmt: skip


def naive(url: str) -> dict[str, Any]:
    collector = NaiveCollector(url, TOKEN)
    started = time.perf_counter()
    prs = collector.collect(REPO, window())
    wall = time.perf_counter() - started
    cost = collector.cost
    return {"prs": len(prs), "wall_s": round(wall, 2), "complete": True,
            "requests": cost.requests, "graphql_requests": 0, "rest_requests": cost.requests,
            "not_modified": 0, "rate_limit_cost": cost.rate_limit_cost,
            "search_cost": cost.search_cost, "bytes_downloaded": cost.bytes_downloaded}  # fmt: skip


def run(latency: float) -> list[dict[str, Any]]:
    child = subprocess.Popen(
        [sys.executable, __file__, "--serve", "--latency", str(latency)],
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
            rows.append({"collector": "ours", "phase": phase, **ours(url, store)})
        store.engine.dispose()
    for phase in ("cold", "warm"):
        rows.append({"collector": "naive", "phase": phase, **naive(url)})
    child.stdin.close()
    child.wait(timeout=30)
    return rows


def ratios(rows: list[dict[str, Any]]) -> list[str]:
    by = {(r["collector"], r["phase"]): r for r in rows}
    lines = []
    for phase in ("cold", "warm"):
        a, b = by[("naive", phase)], by[("ours", phase)]
        cost_a = a["rate_limit_cost"] + a["search_cost"]
        cost_b = b["rate_limit_cost"] + b["search_cost"]
        lines.append(
            f"{phase}: requests naive {a['requests']} / ours {b['requests']} = "
            f"{a['requests'] / max(b['requests'], 1):.1f}x; rate-limit points naive {cost_a} / "
            f"ours {cost_b} = {cost_a / max(cost_b, 1):.1f}x; wall {a['wall_s']} s / "
            f"{b['wall_s']} s"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--serve", action="store_true")
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()
    if args.serve:
        serve(args.latency)
        return
    rows = run(args.latency)
    columns = ["collector", "phase", "prs", "requests", "graphql_requests", "rest_requests",
               "not_modified", "rate_limit_cost", "search_cost", "bytes_downloaded", "wall_s",
               "complete"]  # fmt: skip
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row[c]) for c in columns) + " |")
    print()
    for line in ratios(rows):
        print(line)


if __name__ == "__main__":
    main()
