"""A database outage while `serve` runs (issue 19, item 6): PostgreSQL stops taking
connections and ends the open ones. Every chat command used to be an "incident" with a
traceback (the channel-language lookup ran outside the error handling) and /reports a 500.
Now chat answers "temporarily unavailable" in the chat's language, the web answers 503 with
Retry-After, the log says so once for the whole outage (and once when it ends), and everything
answers again when the database is back. The service is wired from settings as `serve` wires
it, on a PostgreSQL database of its own."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
import requests
from psycopg import sql
from sqlalchemy.engine import make_url

from tests.channels.conftest import FEISHU_ADMIN, REPO, SLACK_ADMIN, WEEK, Wired, wired_service
from tests.postgres.conftest import _libpq_url, postgres_server, postgres_url

pytestmark = pytest.mark.postgres
__all__ = ["postgres_server", "postgres_url"]  # the fixtures, used by name

UNAVAILABLE_EN = "The service is temporarily unavailable (its database does not answer)"
UNAVAILABLE_ZH = "服务暂时不可用（数据库没有响应）"


@contextmanager
def outage(server: str, url: str) -> Iterator[None]:
    """The database refuses new connections and its open ones are ended, until the block ends."""
    name = sql.Identifier(make_url(url).database or "")
    with psycopg.connect(_libpq_url(server), autocommit=True) as admin:
        admin.execute(sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS false").format(name))
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            (make_url(url).database,),
        )
        try:
            yield
        finally:
            admin.execute(sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS true").format(name))


@pytest.fixture
def on_postgres(tmp_path: Path, postgres_url: str) -> Iterator[Wired]:
    with wired_service(tmp_path, DATABASE_URL=postgres_url) as wired:
        wired.build_week()
        yield wired


def text_of(answer: dict[str, object]) -> str:
    return json.dumps(answer, ensure_ascii=False)


def test_an_outage_is_answered_plainly_and_logged_once(
    on_postgres: Wired, postgres_server: str, postgres_url: str, log_stream: io.StringIO
) -> None:
    wired = on_postgres
    with outage(postgres_server, postgres_url):
        answers = [
            text_of(wired.slash("risks", channel="C_EN")),
            text_of(wired.slash(f"summary {WEEK}", channel="C_EN")),
            text_of(wired.slash("pr 4280", channel="C_EN")),
            text_of(wired.slash("subscribe", channel="C_EN", user=SLACK_ADMIN)),
        ]
        assert all(UNAVAILABLE_EN in a for a in answers), answers
        assert UNAVAILABLE_ZH in text_of(wired.slash("risks", channel="C_ZH"))
        assert UNAVAILABLE_ZH in text_of(wired.feishu_say("risks", sender=FEISHU_ADMIN))
        for path in ("/reports", f"/reports/{REPO}/{WEEK}", f"/reports/{REPO}/{WEEK}.json"):
            page = requests.get(f"{wired.url}{path}", timeout=30)
            assert page.status_code == 503, path
            assert page.headers["retry-after"] == "30"
            assert "Traceback" not in page.text
        assert requests.get(f"{wired.url}/healthz", timeout=30).status_code == 503
    log = log_stream.getvalue()
    assert "Traceback" not in log
    assert "incident" not in log
    assert log.count("database outage began") == 1, log[-3000:]
    back = text_of(wired.slash("risks", channel="C_EN"))
    assert f"Risks · {REPO} · {WEEK}" in back
    assert requests.get(f"{wired.url}/reports/{REPO}/{WEEK}", timeout=30).status_code == 200
    assert log_stream.getvalue().count("database outage ended") == 1
