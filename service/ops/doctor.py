"""`verl-week doctor`: one finding per configured piece (GitHub and each repository, each chat
platform — its checks are in service/platforms/ — the model endpoint, the database,
PUBLIC_BASE_URL), each ok, a warning (works, but worth a look: exit 0) or a problem with what to
do about it (exit 1).

The checks get clients and plain values (wiring builds them from the settings); each asks the
real service the cheapest question that proves the piece works, and none posts anything.
Findings never carry a secret: tokens and the webhook's URL are not printed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlsplit

from service import operator_text as say
from service.errors import AuthRefusedError, NotFoundError, ServiceError
from service.github.http import GitHubHttp, expecting
from service.store.repository import schema_state

logger = logging.getLogger(__name__)

# a verl week costs more than this many REST requests without a token (search, pulls, files)
TOKENLESS_LIMIT = 60
MODELS_SHOWN = 8
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0"})  # noqa: S104 - a name


@dataclass(frozen=True)
class Finding:
    area: str
    ok: bool  # False: a problem (doctor exits 1)
    message: str
    warning: bool = False  # ok, but worth a look

    def line(self) -> str:
        status = "problem" if not self.ok else "warning" if self.warning else "ok"
        return f"{status:<8} {self.area:<9} {self.message}"


def ok(area: str, message: str) -> Finding:
    return Finding(area, True, message)


def warning(area: str, message: str) -> Finding:
    return Finding(area, True, message, warning=True)


def problem(area: str, message: str) -> Finding:
    return Finding(area, False, message)


def guarded(area: str, check: Callable[[], list[Finding]]) -> list[Finding]:
    """A check that failed unexpectedly is a problem line, never a traceback."""
    try:
        return check()
    except ServiceError as exc:
        return [problem(area, exc.message)]


# --- GitHub ----------------------------------------------------------------------------------


def check_github(http: GitHubHttp) -> list[Finding]:
    """The token (GET /rate_limit answers 401 for a bad one) and what is left of the limit."""
    page = http.get("/rate_limit")
    core = ((page.data or {}).get("resources") or {}).get("core") or {}
    remaining, limit = int(core.get("remaining", 0)), int(core.get("limit", 0))
    reset = datetime.fromtimestamp(int(core.get("reset", 0)), tz=UTC)
    left = say.GITHUB_LEFT.format(remaining=remaining, limit=limit, reset=reset)
    if not http.has_token:
        return [problem("github", say.GITHUB_NO_TOKEN.format(left=left))]
    if remaining == 0:
        return [problem("github", say.GITHUB_SPENT.format(left=left))]
    return [ok("github", say.GITHUB_OK.format(left=left))]


def check_repositories(http: GitHubHttp, repos: list[str]) -> list[Finding]:
    """Every repository of DIGEST_REPOS exists for these credentials and its pull requests
    can be read (GET /repos/o/r, then one page of one closed pull request)."""
    found: list[Finding] = []
    for repo in repos:
        try:
            found += _repo(http, repo)
        except ServiceError as exc:
            found.append(problem("repo", say.REPO_FAILED.format(repo=repo, error=exc.message)))
    return found


def _repo(http: GitHubHttp, repo: str) -> list[Finding]:
    try:
        data = http.get(f"/repos/{repo}", cache=False).data or {}
    except NotFoundError:
        return [problem("repo", say.REPO_NOT_FOUND.format(repo=repo))]
    try:
        params: dict[str, str | int] = {"state": "closed", "per_page": 1}
        http.get(f"/repos/{repo}/pulls", params, cache=False, check=expecting(list))
    except (AuthRefusedError, NotFoundError) as exc:
        return [problem("repo", say.REPO_PULLS_UNREADABLE.format(repo=repo, error=exc.message))]
    named = str(data.get("full_name") or repo)
    kind = "private" if data.get("private") else "public"
    if named.lower() != repo.lower():
        return [warning("repo", say.REPO_MOVED.format(repo=repo, named=named))]
    return [ok("repo", say.REPO_OK.format(repo=repo, kind=kind))]


# --- the model endpoint ----------------------------------------------------------------------


def check_model(
    models: Callable[[], list[str]], model: str, host: str, key: Callable[[], None]
) -> list[Finding]:
    """GET /models answers and lists LLM_MODEL; an endpoint without the list is a warning once
    `key` (a request that spends no token) shows that it accepts LLM_API_KEY."""
    try:
        served = models()
    except NotFoundError as exc:
        key()  # a refused key: AuthRefusedError, a problem line
        return [warning("model", say.MODEL_UNLISTED.format(error=exc.message, model=model))]
    if model in served:
        return [ok("model", say.MODEL_OK.format(host=host, model=model))]
    listed = ", ".join(served[:MODELS_SHOWN]) or "none"
    return [problem("model", say.MODEL_NOT_SERVED.format(host=host, model=model, listed=listed))]


# --- database and URL --------------------------------------------------------------------------


def check_database(url: str) -> list[Finding]:
    state = schema_state(url)
    where = _database_name(url)
    heads = ", ".join(sorted(state.heads))
    if not state.revisions:
        return [problem("database", say.DATABASE_EMPTY.format(where=where))]
    at = ", ".join(sorted(state.revisions))
    if state.newer:
        return [problem("database", say.DATABASE_NEWER.format(where=where, at=at, heads=heads))]
    if not state.current:
        return [problem("database", say.DATABASE_BEHIND.format(where=where, at=at, heads=heads))]
    return [ok("database", say.DATABASE_OK.format(where=where, at=at))]


def _database_name(url: str) -> str:
    """The backend and database name, never a password."""
    backend, _, rest = url.partition("://")
    name = rest.rsplit("/", 1)[-1].split("?")[0]
    return f"{backend.split('+')[0]} {name}"


def check_public_url(url: str, *, chat: bool) -> list[Finding]:
    """PUBLIC_BASE_URL is well formed (settings checked that); links must leave this host when
    cards go to a chat (on one machine alone a loopback address is only worth a warning)."""
    parts = urlsplit(url)
    if (parts.hostname or "") in LOCAL_HOSTS:
        if chat:
            return [problem("url", say.URL_LOCAL_WITH_CHAT.format(url=url))]
        return [warning("url", say.URL_LOCAL.format(url=url))]
    if parts.query or parts.fragment:
        return [problem("url", say.URL_QUERY.format(url=url))]
    if parts.scheme != "https":
        return [warning("url", say.URL_PLAIN_HTTP.format(url=url))]
    return [ok("url", say.URL_OK.format(url=url))]


# --- the optional native helpers -------------------------------------------------------------


def check_helpers() -> list[Finding]:
    """Which path-glob engine and which shell-variable judge this install runs (both work; the
    fallbacks are named with the extra that brings the native helper)."""
    from service.observe.optional_helpers import helpers

    return [ok("helpers", helper.doctor_line()) for helper in helpers()]
