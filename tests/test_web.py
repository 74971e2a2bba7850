"""The web app served for real by uvicorn on a loopback port: every endpoint, 404s, 413, healthz."""

from __future__ import annotations

import http.client
import io
import json
import logging
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from service.core.digest import build_digest
from service.core.models import Digest
from service.core.profile import load_profile
from service.observe.logs import build_handler
from service.runtime.web import HealthStatus, build_web_app, check_health
from service.store.repository import Store
from tests.conftest import NOW, load_week
from tests.fakes.asgi import run_app
from tests.periods import period
from tests.waiting import wait_for

REPO = "volcengine/verl"
WEEKS = ("2026-W03", "2026-W04")


@pytest.fixture(scope="session")
def digests() -> dict[tuple[str, str], Digest]:
    """Digests of two real verl weeks, in both languages."""
    profile = load_profile(REPO)
    return {
        (week, lang): build_digest(load_week(week), profile, language=lang, now=NOW)
        for week in WEEKS
        for lang in ("zh", "en")
    }


@pytest.fixture
def store(tmp_path: Path, digests: dict[tuple[str, str], Digest]) -> Store:
    opened = Store.open(f"sqlite:///{tmp_path}/db/verl-week.db")
    for digest in digests.values():
        opened.save_digest(digest)
    return opened


@pytest.fixture
def base_url(store: Store) -> Iterator[str]:
    with run_app(build_web_app(store=store)) as url:
        yield url


def raw_get(base_url: str, target: str) -> tuple[int, str]:
    """GET with the request target sent byte for byte (no client-side dot-segment cleanup)."""
    parts = urlsplit(base_url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    try:
        conn.request("GET", target)
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        conn.close()


# --- report pages ---------------------------------------------------------------------------


def test_report_html_is_served_for_a_stored_week(
    base_url: str, digests: dict[tuple[str, str], Digest]
) -> None:
    response = requests.get(f"{base_url}/reports/{REPO}/2026-W04", timeout=10)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert response.text.lstrip().lower().startswith("<!doctype html")
    assert "script-src" not in response.headers["content-security-policy"]
    assert "default-src 'none'" in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "volcengine/verl" in response.text
    top = digests[("2026-W04", "zh")].prs[0]
    assert f"#{top.number}" in response.text or f"/pull/{top.number}" in response.text


def test_report_markdown_and_json_siblings(
    base_url: str, digests: dict[tuple[str, str], Digest]
) -> None:
    markdown = requests.get(f"{base_url}/reports/{REPO}/2026-W04.md", timeout=10)
    assert markdown.status_code == 200
    assert markdown.headers["content-type"].startswith("text/markdown")
    assert markdown.text.startswith("# ")
    as_json = requests.get(f"{base_url}/reports/{REPO}/2026-W04.json", timeout=10)
    assert as_json.status_code == 200
    body = as_json.json()
    expected = digests[("2026-W04", "zh")]
    assert (body["repo"], body["week"], body["language"]) == (REPO, "2026-W04", "zh")
    assert [p["number"] for p in body["prs"]] == [p.number for p in expected.prs]


def test_lang_query_picks_the_stored_language(base_url: str) -> None:
    en = requests.get(f"{base_url}/reports/{REPO}/2026-W03.json?lang=en", timeout=10)
    assert en.json()["language"] == "en"
    zh_page = requests.get(f"{base_url}/reports/{REPO}/2026-W03.md", timeout=10).text
    en_page = requests.get(f"{base_url}/reports/{REPO}/2026-W03.md?lang=en", timeout=10).text
    assert zh_page != en_page
    assert "周" in zh_page


def test_first_stored_language_when_the_default_is_missing(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path}/en-only.db")
    digest = build_digest(load_week("2025-W47"), load_profile(REPO), language="en", now=NOW)
    store.save_digest(digest)
    with run_app(build_web_app(store=store, language="zh")) as url:
        response = requests.get(f"{url}/reports/{REPO}/2025-W47.json", timeout=10)
    assert response.status_code == 200
    assert response.json()["language"] == "en"


def test_reports_index_lists_repos_and_weeks_newest_first(base_url: str) -> None:
    response = requests.get(f"{base_url}/reports", timeout=10)
    assert response.status_code == 200
    page = response.text
    assert "volcengine/verl" in page
    assert page.index(f"/reports/{REPO}/2026-W04") < page.index(f"/reports/{REPO}/2026-W03")
    for suffix in ("", ".md", ".json"):
        assert f"/reports/{REPO}/2026-W04{suffix}?lang=en" in page


def test_reports_index_in_english_and_when_empty(tmp_path: Path) -> None:
    empty = Store.open(f"sqlite:///{tmp_path}/empty.db")
    with run_app(build_web_app(store=empty)) as url:
        zh = requests.get(f"{url}/reports", timeout=10).text
        en = requests.get(f"{url}/reports?lang=en", timeout=10).text
    assert "还没有生成任何报告" in zh
    assert "No report has been generated yet" in en


def test_unknown_week_is_a_404_page_listing_existing_weeks(base_url: str) -> None:
    response = requests.get(f"{base_url}/reports/{REPO}/2026-W18?lang=en", timeout=10)
    assert response.status_code == 404
    assert "text/html" in response.headers["content-type"]
    assert "These 2 weeks exist" in response.text
    assert response.text.index("2026-W04") < response.text.index("2026-W03")
    assert f'href="/reports/{REPO}/2026-W04"' in response.text


def test_language_not_stored_is_a_404(base_url: str) -> None:
    response = requests.get(f"{base_url}/reports/{REPO}/2026-W04?lang=fr", timeout=10)
    assert response.status_code == 404


@pytest.mark.parametrize(
    "target",
    [
        "/reports/../etc/passwd",
        "/reports/volcengine/verl/../../../etc/passwd",
        "/reports/volcengine/verl/%2e%2e",
        "/reports/volcengine/%2e%2e/2026-W04",
        "/reports/%2e%2e/verl/2026-W04",
        "/reports/volcengine/verl/..%2f..%2fetc%2fpasswd",
        "/reports/volcengine/verl/2026-W04%00.md",
        "/reports/volcengine/verl/2026-W04.exe",
        "/reports/volcengine/verl/2026-W04.md.json",
        "/reports/volc%20engine/verl/2026-W04",
        "/reports/volcengine/verl%3Cscript%3E/2026-W04",
        "/reports/volcengine/.git/2026-W04",
        "/reports/-volcengine/verl/2026-W04",
        "/reports/volcengine/verl/2026-W04/extra",
        "/reports/volcengine/verl",
        "/reports/other/repo/2026-W04",
        "/reports/volcengine/verl2/2026-W04.json",
    ],
)
def test_path_traversal_odd_characters_and_unknown_repos_are_404(
    base_url: str, target: str
) -> None:
    status, body = raw_get(base_url, target)
    assert status == 404
    assert "root:" not in body
    assert "<script>" not in body


def test_unknown_repo_404_lists_the_repos_that_exist(base_url: str) -> None:
    response = requests.get(f"{base_url}/reports/other/repo/2026-W04?lang=en", timeout=10)
    assert response.status_code == 404
    assert "Reports exist for these repositories" in response.text
    assert "volcengine/verl" in response.text


# --- healthz ----------------------------------------------------------------------------------


def test_healthz_ok_reports_database_scheduler_and_last_run(store: Store) -> None:
    run_id = store.start_run(REPO, period("2026-W04"), "schedule")
    store.finish_run(run_id, "ok", {"posted": 2})
    with run_app(build_web_app(store=store, scheduler_alive=lambda: True)) as url:
        response = requests.get(f"{url}/healthz", timeout=10)
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"] == "ok"
    assert body["scheduler"] == "alive"
    assert body["last_run"]["outcome"] == "ok"
    assert body["last_run"]["week"] == "2026-W04"
    assert body["last_run"]["at"] is not None


def test_healthz_without_a_scheduler_in_process_is_healthy(base_url: str) -> None:
    body = requests.get(f"{base_url}/healthz", timeout=10).json()
    assert body["scheduler"] == "absent"
    assert body["last_run"]["outcome"] is None


def test_healthz_503_when_the_scheduler_died(store: Store) -> None:
    with run_app(build_web_app(store=store, scheduler_alive=lambda: False)) as url:
        response = requests.get(f"{url}/healthz", timeout=10)
    assert response.status_code == 503
    assert response.json()["scheduler"] == "dead"


def test_healthz_503_when_the_database_is_gone(store: Store, tmp_path: Path) -> None:
    with run_app(build_web_app(store=store, scheduler_alive=lambda: True)) as url:
        assert requests.get(f"{url}/healthz", timeout=10).status_code == 200
        # The database folder disappears and a file takes its place: no connection can open.
        store.engine.dispose()
        shutil.rmtree(tmp_path / "db")
        (tmp_path / "db").write_text("not a folder")
        response = requests.get(f"{url}/healthz", timeout=10)
        assert response.status_code == 503
        assert response.json()["database"] == "unreachable"
        assert response.json()["status"] == "unhealthy"


# --- platform endpoints, body limit, request ids, shutdown ------------------------------------


class EchoEndpoint:
    """A platform endpoint for the test: records each body and answers its size."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    async def __call__(self, request: Request) -> Response:
        body = await request.body()
        self.bodies.append(body)
        return JSONResponse({"received": len(body)})


def test_unconfigured_platform_endpoints_answer_503(store: Store) -> None:
    unconfigured = {"/slack/events": None, "/feishu/events": None}
    with run_app(build_web_app(store=store, endpoints=unconfigured)) as url:
        for path, platform in (("/slack/events", "slack"), ("/feishu/events", "feishu")):
            response = requests.post(f"{url}{path}", data=b"{}", timeout=10)
            assert response.status_code == 503
            assert response.json()["error"] == f"{platform} is not configured on this server"


def test_platform_endpoints_are_mounted(store: Store) -> None:
    slack, feishu = EchoEndpoint(), EchoEndpoint()
    app = build_web_app(store=store, endpoints={"/slack/events": slack, "/feishu/events": feishu})
    with run_app(app) as url:
        assert requests.post(f"{url}/slack/events", data=b"a=1", timeout=10).json() == {
            "received": 3
        }
        assert requests.post(f"{url}/feishu/events", json={"x": 1}, timeout=10).status_code == 200
        assert requests.get(f"{url}/slack/events", timeout=10).status_code == 405
    assert slack.bodies == [b"a=1"]
    assert json.loads(feishu.bodies[0]) == {"x": 1}


def test_oversized_bodies_get_413_before_the_handler(store: Store) -> None:
    slack = EchoEndpoint()
    app = build_web_app(store=store, endpoints={"/slack/events": slack}, max_body_bytes=1000)
    with run_app(app) as url:
        declared = requests.post(f"{url}/slack/events", data=b"x" * 1001, timeout=10)
        streamed = requests.post(
            f"{url}/slack/events", data=(b"y" * 400 for _ in range(5)), timeout=10
        )
        fits = requests.post(f"{url}/slack/events", data=b"z" * 1000, timeout=10)
    assert declared.status_code == 413
    assert "chunked" in streamed.request.headers.get("transfer-encoding", "")
    assert streamed.status_code == 413
    assert fits.status_code == 200
    assert slack.bodies == [b"z" * 1000]


def test_request_id_is_echoed_or_generated_and_logged(base_url: str) -> None:
    stream = io.StringIO()
    handler = build_handler("json", stream)
    access = logging.getLogger("service.runtime.web.access")
    access.addHandler(handler)
    access.setLevel(logging.INFO)
    try:
        given = requests.get(f"{base_url}/healthz", headers={"X-Request-ID": "abc-123"}, timeout=10)
        fresh = requests.get(f"{base_url}/reports", timeout=10)
        hostile = requests.get(
            f"{base_url}/healthz", headers={"X-Request-ID": "x" * 500}, timeout=10
        )
        # the line is written once the response has been sent
        wait_for(lambda: stream.getvalue().count("\n") >= 3, what="three access log lines")
    finally:
        access.removeHandler(handler)
    assert given.headers["x-request-id"] == "abc-123"
    generated = fresh.headers["x-request-id"]
    assert len(generated) == 16
    assert hostile.headers["x-request-id"] != "x" * 500
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [(line["request_id"], line["status"]) for line in lines] == [
        ("abc-123", 200),
        (generated, 200),
        (hostile.headers["x-request-id"], 200),
    ]
    assert lines[1]["message"] == "GET /reports 200"


def test_on_shutdown_runs_at_lifespan_end(store: Store) -> None:
    calls: list[str] = []
    with run_app(build_web_app(store=store, on_shutdown=lambda: calls.append("stop"))) as url:
        assert requests.get(f"{url}/healthz", timeout=10).status_code == 200
        assert calls == []
    assert calls == ["stop"]


def test_report_route_ignores_other_methods(base_url: str) -> None:
    assert requests.post(f"{base_url}/reports/{REPO}/2026-W04", timeout=10).status_code == 405


def test_a_custom_health_probe_replaces_the_default(store: Store) -> None:
    def probe() -> HealthStatus:
        status = check_health(store, None)
        return HealthStatus(**{**status.__dict__, "scheduler": False})

    with run_app(build_web_app(store=store, health=probe)) as url:
        response = requests.get(f"{url}/healthz", timeout=10)
    assert response.status_code == 503
    assert response.json()["database"] == "ok"
    assert response.json()["scheduler"] == "dead"
