"""Fixtures of the Feishu adapter: the fake open platform, a real store, real verl digests."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from service.core.models import Digest
from service.feishu.sender import FeishuSender
from service.store.repository import Store
from tests.fakes.feishu import FakeFeishu, serve_feishu
from tests.feishu.builders import WEEK_LABELS, real_digest

REPO = "volcengine/verl"
ADMIN = "ou_admin"
PUBLIC_BASE_URL = "http://reports.test"
WAIT_SECONDS = 10.0


@pytest.fixture
def feishu() -> Iterator[FakeFeishu]:
    with serve_feishu(hook_secret="hook-sign-secret") as fake:
        yield fake


@pytest.fixture(scope="session")
def zh_digests() -> dict[str, Digest]:
    return {label: real_digest(label, language="zh") for label in WEEK_LABELS}


@pytest.fixture
def store(tmp_path: Path, zh_digests: dict[str, Digest]) -> Store:
    opened = Store.open(f"sqlite:///{tmp_path}/feishu.db")
    for digest in zh_digests.values():
        opened.save_digest(digest)
    return opened


@pytest.fixture
def sender(feishu: FakeFeishu) -> FeishuSender:
    return FeishuSender(
        base_url=feishu.url,
        app_id=feishu.app_id,
        app_secret=feishu.app_secret,
        public_base_url=PUBLIC_BASE_URL,
        language="zh",
    )


def wait_for(condition: Callable[[], bool], seconds: float = WAIT_SECONDS) -> None:
    """Poll `condition` (work done by a background thread) until true, or fail the test."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.02)
