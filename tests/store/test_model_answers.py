"""The cache of language model answers on a real SQLite file: keyed by the prompt's data hash,
model, prompt version and language; a database made before the table gets it on open."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from alembic import command

from service.store.repository import Store, StoredAnswer
from service.store.schema import alembic_config, code_heads

KEY = ("a" * 64, "qwen3-32b", "1.abcdef12", "zh")


def test_an_answer_is_found_only_under_its_own_key(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path}/db.sqlite")
    assert store.get_model_answer(*KEY) is None
    store.save_model_answer(*KEY, StoredAnswer('{"headline": {}}', 1200, 300))
    assert store.get_model_answer(*KEY) == StoredAnswer('{"headline": {}}', 1200, 300)
    data, model, version, language = KEY
    assert store.get_model_answer("b" * 64, model, version, language) is None
    assert store.get_model_answer(data, "other-model", version, language) is None
    assert store.get_model_answer(data, model, "2.abcdef12", language) is None
    assert store.get_model_answer(data, model, version, "en") is None


def test_saving_again_replaces_the_answer(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path}/db.sqlite")
    store.save_model_answer(*KEY, StoredAnswer("first", 1, 1))
    store.save_model_answer(*KEY, StoredAnswer("second", 2, 3))
    assert store.get_model_answer(*KEY) == StoredAnswer("second", 2, 3)
    with sqlite3.connect(tmp_path / "db.sqlite") as conn:
        assert conn.execute("SELECT COUNT(*) FROM model_answers").fetchone() == (1,)


def test_a_database_before_the_cache_revision_gets_the_table_on_open(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    made = Store.open(f"sqlite:///{path}")
    with made.engine.begin() as conn:  # as verl-week before the model cache left it
        command.downgrade(alembic_config(conn), "0004")
    made.engine.dispose()
    store = Store.open(f"sqlite:///{path}")
    store.save_model_answer(*KEY, StoredAnswer("kept", 5, 6))
    assert store.get_model_answer(*KEY) == StoredAnswer("kept", 5, 6)
    with sqlite3.connect(path) as conn:
        (version,) = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    assert version in code_heads()
