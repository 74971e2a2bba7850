"""Many signed slash commands at once, across the digest cache's expiry: every one answers,
and the store is read once per digest however many commands want it (issue 30)."""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
import requests

from service.commands.answer import EngineContext
from service.commands.context import DIGEST_CACHE_TTL, CachedReader
from service.core.models import Digest, Period
from service.render.links import report_url
from service.runtime.web import build_web_app
from service.slack.app import build_slack_app, build_slack_endpoint
from service.slack.sender import build_web_client
from service.store.repository import Store
from tests.commands.conftest import Clock
from tests.conftest import NOW
from tests.fakes.asgi import run_app
from tests.fakes.slack import BOT_TOKEN, FakeSlack
from tests.periods import TIMEZONE, period
from tests.slack.conftest import BASE_URL, REPO, SECRET, Rebuilds, send_command
from tests.waiting import wait_for

NEWEST = "2026-W04"
CLIENTS = 24


@dataclass
class GatedStore:
    """The real store, counting its digest reads; a read waits while `gate` is closed, as a
    slow store would (the other calls pass straight through)."""

    store: Store
    gate: threading.Event = field(default_factory=threading.Event)
    reads: Counter[str] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def get_digest(self, repo: str, week: Period, language: str) -> Digest | None:
        with self._lock:
            self.reads[week.label] += 1
        assert self.gate.wait(30), "the test never opened the store"
        return self.store.get_digest(repo, week, language)

    def latest_digest(self, repo: str, language: str) -> Digest | None:
        weeks = self.list_periods(repo, language)
        return self.get_digest(repo, period(weeks[0]), language) if weeks else None

    def list_periods(self, repo: str, language: str | None = None) -> list[str]:
        with self._lock:
            self.reads["weeks"] += 1
        return self.store.list_periods(repo, language)


@pytest.fixture
def gated(store: Store) -> GatedStore:
    return GatedStore(store)


@pytest.fixture
def cache_clock() -> Clock:
    return Clock(NOW)


@pytest.fixture
def cached_web(
    slack: FakeSlack, store: Store, gated: GatedStore, cache_clock: Clock, rebuilds: Rebuilds
) -> Iterator[str]:
    engine = EngineContext(
        reader=CachedReader(gated, cache_clock, timezone=TIMEZONE),
        repos=[REPO],
        language="en",
        timezone="Asia/Shanghai",
        clock=lambda: NOW,
        subscriptions=store,
        report_url=lambda repo, week: report_url(BASE_URL, repo, week),
    )
    app = build_slack_app(
        client=build_web_client(BOT_TOKEN, slack.api_url),
        signing_secret=SECRET,
        engine=engine,
        regenerate=rebuilds,
        language="en",
    )
    web_app = build_web_app(
        store=store, endpoints={"/slack/events": build_slack_endpoint(app)}, language="en"
    )
    with run_app(web_app) as url:
        yield url


def _commands(store: Store) -> list[tuple[str, str]]:
    """(command, text its answer holds): `risks`, `top 3` and `pr N` of the newest week."""
    digest = store.get_digest(REPO, period(NEWEST), "en")
    assert digest is not None
    numbers = [p.number for p in digest.prs[:6]]
    asked = [("risks", f"Risks · {REPO} · {NEWEST}"), ("top 3", "Top 3 PRs")]
    asked += [(f"pr {n}", f"#{n}") for n in numbers]
    return [asked[i % len(asked)] for i in range(CLIENTS)]


def _send_all(web: str, slack: FakeSlack, commands: list[tuple[str, str]]) -> list[str]:
    """Every command at once (a client each); the answer texts, in order."""
    start = threading.Barrier(len(commands))

    def one(text: str) -> requests.Response:
        start.wait(10)
        return send_command(web, slack, text)

    with ThreadPoolExecutor(max_workers=len(commands)) as pool:
        responses = list(pool.map(one, [text for text, _ in commands]))
    assert [r.status_code for r in responses] == [200] * len(commands)
    return [json.dumps(r.json(), ensure_ascii=False) for r in responses]


def test_concurrent_commands_read_each_digest_once_and_never_wait_on_a_refresh(
    cached_web: str, slack: FakeSlack, store: Store, gated: GatedStore, cache_clock: Clock
) -> None:
    commands = _commands(store)
    # cold: the first read is held until every command is in flight; one read serves them all
    opener = threading.Timer(0.5, gated.gate.set)
    opener.start()
    answers = _send_all(cached_web, slack, commands)
    opener.join()
    assert all(expected in body for body, (_, expected) in zip(answers, commands, strict=True))
    assert gated.reads == Counter({NEWEST: 1, "weeks": 1})

    # past the ttl, with the store held: every command still answers, from the kept digest,
    # while one background read refreshes it
    gated.gate.clear()
    cache_clock.now += DIGEST_CACHE_TTL + timedelta(seconds=1)
    answers = _send_all(cached_web, slack, commands)
    assert all(expected in body for body, (_, expected) in zip(answers, commands, strict=True))
    assert gated.reads == Counter({NEWEST: 2, "weeks": 2})
    gated.gate.set()

    # refreshed (or still refreshing): the next commands cost no further read
    _send_all(cached_web, slack, commands)
    assert gated.reads == Counter({NEWEST: 2, "weeks": 2})


def test_livez_answers_while_the_commands_digest_is_being_loaded(
    cached_web: str, slack: FakeSlack, store: Store, gated: GatedStore
) -> None:
    commands = [text for text, _ in _commands(store)[:4]]
    with ThreadPoolExecutor(max_workers=len(commands)) as pool:
        pending = [pool.submit(send_command, cached_web, slack, text) for text in commands]
        try:
            wait_for(lambda: gated.reads[NEWEST] == 1, what="the digest's load under way")
            livez = requests.get(f"{cached_web}/livez", timeout=5)
            assert gated.reads[NEWEST] == 1  # the load is still held: nothing else read it
            assert not gated.gate.is_set()
        finally:
            gated.gate.set()
        answered = [future.result().status_code for future in pending]
    assert livez.status_code == 200
    assert livez.json() == {"status": "ok"}
    assert answered == [200] * len(commands)
