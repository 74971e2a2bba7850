"""Fixtures of the Feishu adapter: the fake open platform, a real store, real verl digests."""

from __future__ import annotations

from collections.abc import Iterator
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
