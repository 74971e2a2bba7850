"""HTTP app of `verl-week serve`: the chat platforms' event endpoints, report pages, /healthz
(readiness: database and scheduler), /livez (liveness: the process answers) and /metrics.

Everything it talks to (the store, the platform endpoints, the scheduler) is passed in.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.core.models import Digest, Period
from service.core.periods.kinds import label_pattern
from service.errors import InputError, StoreUnavailableError
from service.observe.connection_health import DEFAULT_DOWN_SECONDS, ConnectionHealth
from service.observe.http_metrics import HttpMetricsMiddleware
from service.observe.logs import bound_request_id, new_request_id
from service.observe.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from service.observe.metrics import Metrics
from service.pipeline.runs import RunWatch
from service.render.environment import render
from service.render.links import TOKEN_PARAM, ReportLinks
from service.render.report import render_html, render_json, render_markdown
from service.render.strings import LANGUAGES
from service.runtime.switching import quick_turns
from service.store.repository import ReportEntry, Store

logger = logging.getLogger(__name__)
access_logger = logging.getLogger("service.runtime.web.access")

Endpoint = Callable[[Request], Awaitable[Response]]
HealthProbe = Callable[[], "HealthStatus"]
# the connections this replica opened, each read at every probe
ConnectionsProbe = Callable[[], list[ConnectionHealth]]
DEFAULT_MAX_BODY_BYTES = 1_000_000
HTTP_OK = 200
HTTP_NOT_FOUND = 404
HTTP_TOO_LARGE = 413
HTTP_UNAVAILABLE = 503
# how long a client should wait before asking again while the database is down
RETRY_AFTER_SECONDS = 30

# GitHub's own rules: owner 1-39 of [A-Za-z0-9-], repo names of [A-Za-z0-9._-] (never "." or
# ".."); weeks are ISO labels. Anything else (encoded dots, slashes, odd characters) is a 404.
OWNER_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")
REPO_RE = re.compile(r"^(?!\.)[A-Za-z0-9._-]{1,100}$")
REQUEST_ID_RE = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
REQUEST_ID_HEADER = "x-request-id"


def period_path(text: str) -> re.Match[str] | None:
    """A report path's last part: a period's label of any registered kind (an ISO week, a
    month, a range… core/periods/kinds.py), then `.html`, `.md` or `.json` or nothing."""
    return re.match(rf"^(?P<week>{label_pattern()})(?:\.(?P<fmt>html|md|json))?$", text)


# Report pages carry untrusted PR text (escaped by the templates); no script ever needs to
# run on them, so the browser is told to run none, and never to sniff types or frame us.
SECURITY_HEADERS = (
    (
        b"content-security-policy",
        b"default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; "
        b"base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)

_MEDIA = {
    "html": "text/html; charset=utf-8",
    "md": "text/markdown; charset=utf-8",
    "json": "application/json",
}


@dataclass(frozen=True)
class HealthStatus:
    """What /healthz reports; `healthy` decides between 200 and 503."""

    database: bool
    scheduler: bool | None  # None: no scheduler in this process (a web-only replica)
    last_run_at: datetime | None
    last_run_outcome: str | None
    last_run_week: str | None
    last_run_repo: str | None
    checked_at: datetime
    # why the service is `degraded` (ready, but a week is owed, the last run failed or a
    # connection is reconnecting)
    reasons: tuple[str, ...] = ()
    connections: tuple[ConnectionHealth, ...] = ()
    # a configured connection down past the bound: deaf, so not ready
    connections_ready: bool = True

    @property
    def healthy(self) -> bool:
        return self.database and self.scheduler is not False and self.connections_ready

    @property
    def status(self) -> str:
        if not self.healthy:
            return "unhealthy"
        return "degraded" if self.reasons else "ok"

    def as_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "reasons": list(self.reasons),
            "database": "ok" if self.database else "unreachable",
            "scheduler": {None: "absent", True: "alive", False: "dead"}[self.scheduler],
            # no repository name: the probe needs no login, and a repository may be private
            "last_run": {
                "week": self.last_run_week,
                "at": self.last_run_at.isoformat() if self.last_run_at else None,
                "outcome": self.last_run_outcome,
            },
            "connections": [c.as_json() for c in self.connections],
            "time": self.checked_at.isoformat(),
        }


def check_health(
    store: Store,
    scheduler_alive: Callable[[], bool] | None,
    watch: RunWatch | None = None,
    connections: ConnectionsProbe | None = None,
    down_seconds: float = DEFAULT_DOWN_SECONDS,
) -> HealthStatus:
    """Ping the database, ask the scheduler, read the last run and, with `watch`, the weeks
    owed and failed runs that make the service `degraded`; with `connections`, each chat
    connection's state: one down past `down_seconds` makes it unready (never raises)."""
    database = True
    last = None
    reasons: list[str] = []
    try:
        database = bool(store.ping())
        last = store.last_run()
        if watch is not None:
            reasons = [r for runs in watch.repo_runs() if (r := runs.reason()) is not None]
    except Exception as exc:  # a health probe reports, it never crashes the endpoint
        # an outage is logged once by the store (service/store/outage.py), not per probe
        logger.debug("health check: database unreachable: %s", type(exc).__name__)
        database = False
    alive = None if scheduler_alive is None else bool(scheduler_alive())
    now = datetime.now(UTC)
    links = tuple(connections()) if connections is not None else ()
    reasons += [f"{c.platform} connection {c.state}" for c in links if not c.up]
    return HealthStatus(
        database=database,
        scheduler=alive,
        last_run_at=(last.finished_at or last.started_at) if last else None,
        last_run_outcome=last.state(now) if last else None,
        last_run_week=last.period if last else None,
        last_run_repo=last.repo if last else None,
        checked_at=now,
        reasons=tuple(reasons),
        connections=links,
        connections_ready=not any(c.too_long_down(now.timestamp(), down_seconds) for c in links),
    )


# --- middleware (pure ASGI, so streaming bodies and lifespan pass through untouched) ---------


class RequestIdMiddleware:
    """X-Request-ID in (if sane) or a fresh one, echoed with the security headers; one access
    log line per request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        incoming = _header(scope, REQUEST_ID_HEADER)
        request_id = incoming if incoming and REQUEST_ID_RE.match(incoming) else new_request_id()
        status = {"code": 500}
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
                headers = list(message.get("headers", []))
                headers.append((REQUEST_ID_HEADER.encode(), request_id.encode()))
                headers.extend(SECURITY_HEADERS)
                message = {**message, "headers": headers}
            await send(message)

        with bound_request_id(request_id):
            try:
                await self.app(scope, receive, send_with_id)
            finally:
                access_logger.info(
                    "%s %s %s",
                    scope["method"],
                    scope["path"],
                    status["code"],
                    extra={"status": status["code"], "ms": _elapsed_ms(started)},
                )


class BodyLimitMiddleware:
    """413 for bodies over `max_bytes`, declared or streamed, before the handler sees a byte."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _header(scope, "content-length")
        if declared and (not declared.isdigit() or int(declared) > self.max_bytes):
            await _too_large(scope, receive, send)
            return
        body = await self._read(receive)
        if body is None:
            await _too_large(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)

    async def _read(self, receive: Receive) -> bytes | None:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return b"".join(chunks)
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


async def _too_large(scope: Scope, receive: Receive, send: Send) -> None:
    response = JSONResponse({"error": "request body too large"}, status_code=HTTP_TOO_LARGE)
    await response(scope, receive, send)


def _header(scope: Scope, name: str) -> str | None:
    wanted = name.encode()
    for key, value in scope.get("headers", []):
        if key.lower() == wanted:
            return str(value.decode("latin-1"))
    return None


def _elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


# --- report pages --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Reports:
    store: Store
    language: str
    timezone: str  # a page's period label is read as a period of it (DIGEST_TIMEZONE)
    links: ReportLinks | None = None  # None: every page is public (REPORTS_ACCESS unused)

    def is_listed(self, repo: str) -> bool:
        """Whether `repo` may appear in the index and on 404 pages (its pages need no link)."""
        return self.links is None or not self.links.needs_token(repo)

    def page_lang(self, request: Request) -> str:
        wanted = request.query_params.get("lang", "")
        return wanted if wanted in LANGUAGES else self.language

    def not_found(self, request: Request, repo: str | None = None) -> HTMLResponse:
        lang = self.page_lang(request)
        periods = self.store.list_periods(repo) if repo else []
        html = render("web/not_found.html.j2", lang, repo=repo, periods=periods, repos=self.repos())
        return HTMLResponse(html, status_code=HTTP_NOT_FOUND)

    def repos(self) -> list[str]:
        return sorted({e.repo for e in self.store.list_reports() if self.is_listed(e.repo)})

    async def index(self, request: Request) -> Response:
        lang = self.page_lang(request)
        entries = await anyio.to_thread.run_sync(self._listed_reports)
        by_repo: dict[str, dict[str, list[str]]] = {}
        for entry in entries:
            by_repo.setdefault(entry.repo, {}).setdefault(entry.period, []).append(entry.language)
        listing = [
            {"repo": repo, "periods": [{"period": p, "languages": ls} for p, ls in periods.items()]}
            for repo, periods in sorted(by_repo.items())
        ]
        return HTMLResponse(render("web/reports.html.j2", lang, listing=listing))

    def _listed_reports(self) -> list[ReportEntry]:
        listed: dict[str, bool] = {}
        entries = self.store.list_reports()
        return [e for e in entries if listed.setdefault(e.repo, self.is_listed(e.repo))]

    async def report(self, request: Request) -> Response:
        owner, name = request.path_params["owner"], request.path_params["repo"]
        match = period_path(request.path_params["week"])
        if not (OWNER_RE.match(owner) and REPO_RE.match(name) and match):
            return await anyio.to_thread.run_sync(self.not_found, request)
        repo = f"{owner}/{name}"
        return await anyio.to_thread.run_sync(
            self._report, request, repo, match["week"], match["fmt"] or "html"
        )

    async def family_report(self, request: Request) -> Response:
        """A family's page (`/reports/verl-project/2026-W34`): its digest is stored under its
        name (core/scope.py)."""
        family = request.path_params["family"]
        match = period_path(request.path_params["week"])
        if not (REPO_RE.match(family) and match):
            return await anyio.to_thread.run_sync(self.not_found, request)
        return await anyio.to_thread.run_sync(
            self._report, request, family, match["week"], match["fmt"] or "html"
        )

    def _report(self, request: Request, repo: str, label: str, fmt: str) -> Response:
        token = request.query_params.get(TOKEN_PARAM)
        if self.links is not None and not self.links.allows(repo, label, token):
            return self.not_found(request)  # the same 404 as a repository we never heard of
        try:  # the path's label, read once (it matched a kind's label shape already)
            period = Period.of_label(label, self.timezone)
        except InputError:
            return self.not_found(request)
        repo = self.store.canonical_repo(repo)  # a link made before the repository moved
        if repo not in {e.repo for e in self.store.list_reports()}:
            return self.not_found(request)
        digest = self._digest(request, repo, period)
        if digest is None:
            return self.not_found(request, repo if self.is_listed(repo) else None)
        response = Response(_render(digest, fmt), media_type=_MEDIA[fmt])
        if token:  # a page opened through a signed link: no shared cache may keep it
            response.headers["cache-control"] = "private, no-store"
        return response

    def _digest(self, request: Request, repo: str, period: Period) -> Digest | None:
        wanted = request.query_params.get("lang")
        if wanted is not None:
            return self.store.get_digest(repo, period, wanted) if wanted in LANGUAGES else None
        entries = self.store.list_reports()
        stored = [e.language for e in entries if (e.repo, e.period) == (repo, period.label)]
        if not stored:
            return None
        lang = self.language if self.language in stored else sorted(stored)[0]
        return self.store.get_digest(repo, period, lang)


def _render(digest: Digest, fmt: str) -> str:
    if fmt == "md":
        return render_markdown(digest, digest.language)
    if fmt == "json":
        return render_json(digest)
    return render_html(digest, digest.language)


# --- the app ----------------------------------------------------------------------------------


def _platform_route(path: str, endpoint: Endpoint | None) -> Route:
    """POST `path` to a platform's endpoint; 503 while the platform is not configured here."""

    async def not_configured(_request: Request) -> Response:
        return JSONResponse(
            {"error": f"{_platform_of(path)} is not configured on this server"},
            status_code=HTTP_UNAVAILABLE,
        )

    if endpoint is None:
        return Route(path, not_configured, methods=["POST"])
    handler = endpoint

    # A plain function for Starlette: it would treat a callable object as a raw ASGI app.
    async def call(request: Request) -> Response:
        return await handler(request)

    return Route(path, call, methods=["POST"])


def _platform_of(path: str) -> str:
    """`/slack/events` → `slack`: a platform's routes live under its name."""
    return path.strip("/").split("/")[0]


def build_web_app(
    *,
    store: Store,
    endpoints: Mapping[str, Endpoint | None] | None = None,
    scheduler_alive: Callable[[], bool] | None = None,
    on_shutdown: Callable[[], None] | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    language: str = "zh",
    timezone: str = "Asia/Shanghai",
    health: HealthProbe | None = None,
    metrics: Metrics | None = None,
    report_links: ReportLinks | None = None,
    run_watch: RunWatch | None = None,
    connections: ConnectionsProbe | None = None,
    connection_down_seconds: float = DEFAULT_DOWN_SECONDS,
) -> Starlette:
    """The ASGI app of `serve`; `on_shutdown` runs (in a thread) at uvicorn's lifespan end.

    `endpoints`: each chat platform's POST path → its endpoint (None: answered 503, the
    platform is not configured here); `health` replaces the default probe (store ping +
    `scheduler_alive` + last run);
    `report_links` decides which report pages need a signed link (REPORTS_ACCESS);
    `connections`: the chat connections opened, unready when one is down past
    `connection_down_seconds`.
    """
    reports = _Reports(store, language, timezone, report_links)

    def probe() -> HealthStatus:
        return check_health(store, scheduler_alive, run_watch, connections, connection_down_seconds)

    async def not_found(request: Request) -> Response:
        return await anyio.to_thread.run_sync(reports.not_found, request)

    routes = [
        *(_platform_route(path, endpoint) for path, endpoint in (endpoints or {}).items()),
        *_ops_routes(health or probe, metrics),
        Route("/reports", reports.index, methods=["GET"]),
        Route("/reports/", reports.index, methods=["GET"]),
        Route("/reports/{owner}/{repo}/{week}", reports.report, methods=["GET"]),
        Route("/reports/{family}/{week}", reports.family_report, methods=["GET"]),
        Route("/reports/{rest:path}", not_found, methods=["GET"]),
    ]
    return _app(routes, on_shutdown, max_body_bytes, metrics)


def build_ops_app(
    *,
    store: Store,
    scheduler_alive: Callable[[], bool] | None,
    metrics: Metrics | None = None,
    on_shutdown: Callable[[], None] | None = None,
    run_watch: RunWatch | None = None,
) -> Starlette:
    """The app of `verl-week scheduler`: /healthz, /livez and /metrics only, so the image's
    healthcheck and Prometheus reach the scheduler process as they reach `serve`."""

    def probe() -> HealthStatus:
        return check_health(store, scheduler_alive, run_watch)

    return _app(_ops_routes(probe, metrics), on_shutdown, DEFAULT_MAX_BODY_BYTES, metrics)


def _ops_routes(probe: HealthProbe, metrics: Metrics | None) -> list[Route]:
    async def healthz(_request: Request) -> Response:
        status = await anyio.to_thread.run_sync(probe)
        code = HTTP_OK if status.healthy else HTTP_UNAVAILABLE
        return JSONResponse(status.as_json(), status_code=code)

    async def livez(_request: Request) -> Response:
        return JSONResponse({"status": "ok"})  # the event loop answers: nothing else is asked

    routes = [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/livez", livez, methods=["GET"]),
    ]
    if metrics is not None:
        exposed = metrics

        async def scrape(_request: Request) -> Response:
            body = await anyio.to_thread.run_sync(exposed.exposition)
            return Response(body, media_type=METRICS_CONTENT_TYPE)

        routes.append(Route("/metrics", scrape, methods=["GET"]))
    return routes


async def _temporarily_unavailable(_request: Request, _exc: Exception) -> Response:
    """Any page while the database is down: 503 and when to come back (the store logs the
    outage once; no traceback per request)."""
    return JSONResponse(
        {"error": "temporarily unavailable: the database does not answer"},
        status_code=HTTP_UNAVAILABLE,
        headers={"retry-after": str(RETRY_AFTER_SECONDS)},
    )


def _app(
    routes: list[Route],
    on_shutdown: Callable[[], None] | None,
    max_body_bytes: int,
    metrics: Metrics | None = None,
) -> Starlette:
    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        with quick_turns():  # the event loop's turns at the GIL come sooner while it serves
            yield
        if on_shutdown is not None:
            logger.info("shutting down: waiting for in-flight work")
            await anyio.to_thread.run_sync(on_shutdown)

    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={StoreUnavailableError: _temporarily_unavailable},
    )
    app.add_middleware(BodyLimitMiddleware, max_bytes=max_body_bytes)
    if metrics is not None:
        app.add_middleware(HttpMetricsMiddleware, metrics=metrics)
    app.add_middleware(RequestIdMiddleware)
    return app


__all__ = [
    "Endpoint",
    "HealthProbe",
    "HealthStatus",
    "build_ops_app",
    "build_web_app",
    "check_health",
]
