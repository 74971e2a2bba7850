"""Backends for the store and scheduler tests: SQLite always, PostgreSQL when
VERL_WEEK_TEST_POSTGRES_URL names a server (`bash .ci/postgres.sh` starts one and prints it).

Each Postgres test gets a database of its own, created here and dropped afterwards.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from sqlalchemy.engine import make_url

POSTGRES_ENV = "VERL_WEEK_TEST_POSTGRES_URL"


def _libpq_url(sqlalchemy_url: str) -> str:
    """`postgresql+psycopg://…` as the plain `postgresql://…` libpq understands."""
    return (
        make_url(sqlalchemy_url).set(drivername="postgresql").render_as_string(hide_password=False)
    )


@pytest.fixture(scope="session")
def postgres_server() -> str:
    url = os.environ.get(POSTGRES_ENV, "")
    if not url:
        pytest.skip(f"{POSTGRES_ENV} is not set (run `bash .ci/postgres.sh` to get one)")
    return url


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """A fresh, empty database on the test server; dropped (connections forced off) after."""
    name = f"verl_week_t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(_libpq_url(postgres_server), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield make_url(postgres_server).set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(_libpq_url(postgres_server), autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The same test on a SQLite file and on PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/verl-week.db"
    return str(request.getfixturevalue("postgres_url"))
