"""The key of signed report links no longer comes from GITHUB_TOKEN: without
REPORTS_SIGNING_KEY the first process makes one and keeps it in the database, so every replica
and every restart signs and checks links with the same key, and it is never logged. Links
signed before (with the key derived from GITHUB_TOKEN) open until they expire while that token
is still set. Checked through the real web app (uvicorn on 127.0.0.1) built by wiring."""

from __future__ import annotations

import logging
import stat
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import requests
from sqlalchemy import select

from service import wiring
from service.pipeline.jobs import build_week
from service.pipeline.recorded import SAMPLE_REPO, load_sample
from service.render.links import report_token, signing_key
from service.settings import Settings
from service.store import tables
from service.store.repository import Store
from tests.fakes.asgi import run_app

BASE = "http://reports.test"
OLD_TOKEN = "ghp_linkKeyTransitionToken0123456789ab"


def stored_key(store: Store) -> str:
    query = select(tables.service_keys.c.value).where(
        tables.service_keys.c.name == wiring.LINK_KEY_NAME
    )
    with store.engine.connect() as conn:
        return str(conn.execute(query).scalar_one())


class Replica:
    """One process of the service: its own Store on the shared database, its own web app."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.pipeline = wiring.build_pipeline(settings, sample=True, with_senders=False)
        self._app = run_app(wiring.build_app(settings, self.pipeline))
        self.url = self._app.__enter__()

    def link(self, week: str) -> str:
        return wiring.pipeline_links(self.settings, self.pipeline).url(SAMPLE_REPO, week)

    def get(self, link: str) -> int:
        path = link.removeprefix(BASE)
        return requests.get(f"{self.url}{path}", timeout=30).status_code

    def stop(self) -> None:
        self._app.__exit__(None, None, None)
        self.pipeline.store.engine.dispose()


@pytest.fixture
def replicas(make_settings: Callable[..., Settings]) -> Iterator[Callable[..., Replica]]:
    started: list[Replica] = []

    def start(**overrides: Any) -> Replica:
        values = {"public_base_url": BASE, "reports_access": "signed", **overrides}
        replica = Replica(make_settings(**values))
        started.append(replica)
        return replica

    yield start
    for replica in started:
        replica.stop()


def sample_week(replica: Replica) -> str:
    sample = load_sample(datetime.now(UTC))
    build_week(replica.pipeline, SAMPLE_REPO, sample.window)
    return sample.window.label


def test_a_key_made_on_first_start_is_shared_by_replicas_and_restarts(
    replicas: Callable[..., Replica], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    first = replicas()
    week = sample_week(first)
    key = stored_key(first.pipeline.store)
    assert len(key) >= 40
    second = replicas()  # another replica on the same database, started at the same time
    link = first.link(week)
    assert "?t=" in link
    assert second.get(link) == 200
    assert first.get(second.link(week)) == 200  # and the other way round
    assert first.get(link.partition("?")[0]) == 404  # signed access: no token, no page
    first.stop()
    restarted = replicas()
    assert stored_key(restarted.pipeline.store) == key
    assert restarted.get(link) == 200
    assert key not in caplog.text
    assert signing_key(key).hex() not in caplog.text


def test_reports_signing_key_wins_over_the_stored_one(
    replicas: Callable[..., Replica],
) -> None:
    made = replicas()
    week = sample_week(made)
    made_link = made.link(week)
    configured = replicas(reports_signing_key="operator-chosen-report-key-0f3a9")
    assert configured.get(made_link) == 404
    assert configured.get(configured.link(week)) == 200
    assert made.get(configured.link(week)) == 404


def test_links_signed_with_the_token_derived_key_open_while_the_token_is_set(
    replicas: Callable[..., Replica],
) -> None:
    with_token = replicas(github_token=OLD_TOKEN)
    week = sample_week(with_token)
    expires = int(time.time()) + 3600
    old = f"{BASE}/reports/{SAMPLE_REPO}/{week}?t="
    old += report_token(signing_key(OLD_TOKEN), SAMPLE_REPO, week, expires)
    assert with_token.get(old) == 200
    assert with_token.link(week) != old  # new links are signed with the stored key
    assert with_token.get(with_token.link(week)) == 200
    without_token = replicas()  # the token gone (GitHub App login): old links stop working
    assert without_token.get(old) == 404
    assert without_token.get(without_token.link(week)) == 200


# --- a key that leaked (a copy of the database) cannot forge a link that outlives the lifetime --


def forged(replica: Replica, key: bytes, week: str, days: float) -> str:
    expires = int(time.time() + days * 86400)
    link = f"{BASE}/reports/{SAMPLE_REPO}/{week}?t="
    return link + report_token(key, SAMPLE_REPO, week, expires)


def test_a_link_signed_for_longer_than_report_link_days_is_refused(
    replicas: Callable[..., Replica], tmp_path: Path
) -> None:
    replica = replicas(report_link_days=30)
    week = sample_week(replica)
    key = signing_key(stored_key(replica.pipeline.store))  # as read from a stolen copy
    assert replica.get(forged(replica, key, week, 29)) == 200  # within the lifetime: as made
    assert replica.get(replica.link(week)) == 200  # the service's own links, 30 days
    assert replica.get(forged(replica, key, week, 3650)) == 404  # a 10-year link
    assert replica.get(forged(replica, key, week, 31)) == 404
    shorter = replicas(report_link_days=7)  # shortening the lifetime closes longer links
    assert shorter.get(replica.link(week)) == 404
    assert shorter.get(shorter.link(week)) == 200


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm"])
def test_the_live_sqlite_file_is_owner_only(
    replicas: Callable[..., Replica], tmp_path: Path, suffix: str
) -> None:
    replica = replicas()
    sample_week(replica)  # written: the -wal and -shm files exist while the store is open
    path = tmp_path / f"verl-week.db{suffix}"
    assert path.exists()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_database_file_made_world_readable_is_narrowed_at_start(
    make_settings: Callable[..., Settings], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "verl-week.db"
    path.touch(mode=0o644)
    path.chmod(0o644)
    store = wiring.build_store(make_settings())
    try:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert any("now 0600" in r.getMessage() for r in caplog.records)
    finally:
        store.engine.dispose()
