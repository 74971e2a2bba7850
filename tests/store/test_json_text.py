"""The store writes a digest and a PR snapshot as their JSON made in one pass (issue 30: no tree
of dicts beside a 2,000-PR digest): the same data as `model_dump` then `json.dumps`, in ASCII."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from service.core.models import PullRequest
from service.store.json_text import JsonText, model_json, serialise
from service.store.repository import Store
from tests.conftest import load_week


def _with_emoji() -> PullRequest:
    pr = load_week("2025-W48").prs[0]
    return pr.model_copy(update={"body": pr.body + "\n🚀 fini — 完成"})


def test_model_json_is_what_model_dump_then_json_dumps_write() -> None:
    pr = _with_emoji()
    text = model_json(pr)
    assert isinstance(text, JsonText)
    assert text.isascii()
    assert json.loads(text) == json.loads(json.dumps(pr.model_dump(mode="json")))
    assert serialise(text) is text  # written as it is
    assert serialise({"a": "é"}) == json.dumps({"a": "é"})  # any other value as before


def test_a_snapshot_is_stored_once_serialised_and_read_back_equal(tmp_path: Path) -> None:
    database = tmp_path / "verl-week.db"
    store = Store.open(f"sqlite:///{database}")
    pr = _with_emoji()
    store.save_prs("volcengine/verl", "2025-W48", [pr])
    assert store.load_prs("volcengine/verl", "2025-W48") == [pr]
    with sqlite3.connect(database) as conn:
        (stored,) = conn.execute("SELECT data FROM pr_snapshots").fetchone()
    assert stored == model_json(pr)  # an object, not a JSON string holding one
