"""`verl-week doctor`: one finding per configured piece (GitHub and each repository, Slack and its
app token, Feishu and its event mode, the webhook, the model endpoint, the database,
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

from service.errors import AuthRefusedError, NotFoundError, ServiceError
from service.feishu.api import FeishuApi
from service.feishu.webhook import WebhookSender
from service.github.http import GitHubHttp, expecting
from service.slack.probe import Access
from service.store.repository import schema_state

logger = logging.getLogger(__name__)

# a verl week costs more than this many REST requests without a token (search, pulls, files)
TOKENLESS_LIMIT = 60
WEBHOOK_SIGN_REFUSED = 19021
WEBHOOK_BAD_REQUEST = 9499
WEBHOOK_TOKEN_INVALID = 19001
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
    left = f"{remaining} of {limit} requests left until {reset:%H:%M} UTC"
    if not http.has_token:
        return [
            problem(
                "github",
                f"no GITHUB_TOKEN: {left}, too few for a week of a busy repository; create a "
                "fine-grained token with read access to Pull requests and Contents",
            )
        ]
    if remaining == 0:
        return [problem("github", f"token ok, but the rate limit is spent: {left}")]
    return [ok("github", f"token accepted; {left}")]


def check_repositories(http: GitHubHttp, repos: list[str]) -> list[Finding]:
    """Every repository of DIGEST_REPOS exists for these credentials and its pull requests
    can be read (GET /repos/o/r, then one page of one closed pull request)."""
    found: list[Finding] = []
    for repo in repos:
        try:
            found += _repo(http, repo)
        except ServiceError as exc:
            found.append(problem("repo", f"{repo}: {exc.message}"))
    return found


def _repo(http: GitHubHttp, repo: str) -> list[Finding]:
    try:
        data = http.get(f"/repos/{repo}", cache=False).data or {}
    except NotFoundError:
        return [problem("repo", f"{repo}: not found, or the credentials can't see it (a "
                        "private repository needs the token or app installed on it)")]  # fmt: skip
    try:
        params: dict[str, str | int] = {"state": "closed", "per_page": 1}
        http.get(f"/repos/{repo}/pulls", params, cache=False, check=expecting(list))
    except (AuthRefusedError, NotFoundError) as exc:
        return [problem("repo", f"{repo}: its pull requests can't be read ({exc.message}): "
                        "give the credentials read access to Pull requests")]  # fmt: skip
    named = str(data.get("full_name") or repo)
    kind = "private" if data.get("private") else "public"
    if named.lower() != repo.lower():
        return [warning("repo", f"{repo} is now {named} (GitHub redirects the old name): "
                        f"set DIGEST_REPOS to {named}")]  # fmt: skip
    return [ok("repo", f"{repo}: {kind}, pull requests readable")]


# --- Slack -----------------------------------------------------------------------------------

_ACCESS = {
    Access.MEMBER: (True, "the bot is a member"),
    Access.JOINABLE: (True, "public; the bot joins it on the first post (channels:join)"),
    Access.NOT_FOUND: (
        False,
        "not found: check the id, or for a private channel invite the bot: /invite @verl-week",
    ),
    Access.MISSING_SCOPE: (
        False,
        "the app lacks channels:history / groups:history: reinstall it from the manifest",
    ),
}


def check_slack(
    identity: Callable[[], str],
    access: Callable[[str], Access],
    channels: list[str],
    *,
    signing_secret: bool,
    socket: Callable[[], str] | None = None,
) -> list[Finding]:
    """auth.test (`identity`); how commands arrive: Socket Mode (`socket` asks
    apps.connections.open with the app token) or signed requests; every channel (`access`)."""
    found = [ok("slack", f"token accepted: {identity()}")]
    if socket is not None:
        try:
            socket()
            found.append(ok("slack", "app token accepted: commands arrive over Socket Mode"))
        except ServiceError as exc:
            found.append(problem("slack", exc.message))
    elif not signing_secret:
        found.append(
            problem(
                "slack",
                "neither SLACK_APP_TOKEN (Socket Mode, no public URL) nor SLACK_SIGNING_SECRET "
                "(requests to /slack/events) is set: /verl-week commands can't reach the service",
            )
        )
    for channel in channels:
        fine, what = _ACCESS[access(channel)]
        found.append(Finding("slack", fine, f"channel {channel}: {what}"))
    return found


# --- Feishu ----------------------------------------------------------------------------------


def check_feishu(api: FeishuApi, chats: list[str]) -> list[Finding]:
    """The tenant token (app id and secret), then the bot's membership of every chat."""
    api.tokens.token()
    found = [ok("feishu", f"app {api.tokens.app_id} got a tenant_access_token")]
    for chat in chats:
        try:
            member = api.bot_in_chat(chat)
        except ServiceError as exc:
            found.append(problem("feishu", f"chat {chat}: {exc.message}"))
            continue
        if member:
            found.append(ok("feishu", f"chat {chat}: the bot is a member"))
        else:
            found.append(
                problem("feishu", f"chat {chat}: the bot is not in it: add it to the group")
            )
    return found


def check_webhook(sender: WebhookSender, *, signed: bool) -> list[Finding]:
    """The custom bot's signature setting, probed with a message Feishu refuses unposted."""
    code = sender.probe()
    host = urlsplit(sender.url).netloc
    if code == WEBHOOK_TOKEN_INVALID:
        return [
            problem("webhook", f"{host} does not know this hook: copy FEISHU_WEBHOOK_URL again")
        ]
    if code == WEBHOOK_SIGN_REFUSED:
        fix = (
            "FEISHU_WEBHOOK_SECRET does not match the bot's secret"
            if signed
            else "the bot wants signed messages: set FEISHU_WEBHOOK_SECRET"
        )
        return [problem("webhook", f"signature refused: {fix}")]
    if code != WEBHOOK_BAD_REQUEST:
        return [problem("webhook", f"unexpected answer from {host} (code {code})")]
    if signed:
        return [ok("webhook", f"{host} accepts our signature")]
    return [
        ok(
            "webhook",
            f"{host} takes unsigned messages: anyone with the URL can post; consider ticking "
            "signature verification and setting FEISHU_WEBHOOK_SECRET",
        )
    ]


@dataclass(frozen=True)
class FeishuEventSettings:
    """FEISHU_EVENT_MODE and what each mode needs."""

    mode: str  # http | websocket
    verification_token: bool
    encrypt_key: bool
    public_base_url: str


def check_feishu_events(
    events: FeishuEventSettings, endpoint: Callable[[], str] | None
) -> list[Finding]:
    """http: a token or key to check the callbacks by, and a URL Feishu can reach; websocket:
    the long-connection endpoint grants this app a URL (`endpoint`, None without the app)."""
    if events.mode == "websocket":
        if endpoint is None:
            return [problem("feishu", "FEISHU_EVENT_MODE=websocket needs FEISHU_APP_ID and "
                            "FEISHU_APP_SECRET")]  # fmt: skip
        endpoint()
        return [ok("feishu", "events arrive over the long connection (no public URL needed)")]
    found = []
    if not (events.verification_token or events.encrypt_key):
        found.append(problem("feishu", "FEISHU_EVENT_MODE=http needs FEISHU_VERIFICATION_TOKEN "
                             "or FEISHU_ENCRYPT_KEY from the console (Events & Callbacks → "
                             "Encryption strategy); with no public URL, use "
                             "FEISHU_EVENT_MODE=websocket"))  # fmt: skip
    elif not events.encrypt_key:
        found.append(warning("feishu", "no FEISHU_ENCRYPT_KEY: events are checked by their token "
                             "only (a key adds a signature and encryption)"))  # fmt: skip
    callback = events.public_base_url.rstrip("/") + "/feishu/events"
    if (urlsplit(callback).hostname or "") in LOCAL_HOSTS:
        found.append(problem("feishu", f"FEISHU_EVENT_MODE=http: Feishu can't reach {callback}; "
                             "set PUBLIC_BASE_URL to the public address, or use "
                             "FEISHU_EVENT_MODE=websocket"))  # fmt: skip
    elif all(f.ok for f in found):
        found.append(ok("feishu", f"events arrive at {callback}"))
    return found


# --- the model endpoint ----------------------------------------------------------------------


def check_model(models: Callable[[], list[str]], model: str, host: str) -> list[Finding]:
    """GET /models answers and lists LLM_MODEL (an endpoint without the list is a warning)."""
    try:
        served = models()
    except NotFoundError as exc:
        return [warning("model", f"{exc.message}: LLM_MODEL {model} can't be checked before "
                        "the first run")]  # fmt: skip
    if model in served:
        return [ok("model", f"{host} answers and serves {model}")]
    listed = ", ".join(served[:MODELS_SHOWN]) or "none"
    return [problem("model", f"{host} does not serve LLM_MODEL {model}; it serves: {listed}")]


# --- database and URL --------------------------------------------------------------------------


def check_database(url: str) -> list[Finding]:
    state = schema_state(url)
    where = _database_name(url)
    heads = ", ".join(sorted(state.heads))
    if not state.revisions:
        return [
            problem(
                "database",
                f"{where} has no verl-week schema yet: `verl-week migrate` creates it (so does "
                "any command that opens the database, serve included)",
            )
        ]
    at = ", ".join(sorted(state.revisions))
    if state.newer:
        return [problem("database", f"{where} is at revision {at}, newer than this release "
                        f"({heads}): upgrade verl-week")]  # fmt: skip
    if not state.current:
        return [
            problem(
                "database",
                f"{where} is at revision {at}, this release needs {heads}: run "
                "`verl-week migrate` (serve and the scheduler also migrate on start)",
            )
        ]
    return [ok("database", f"{where} reachable, schema at revision {at} (current)")]


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
            return [
                problem(
                    "url",
                    f"PUBLIC_BASE_URL is {url}: the cards' report links only work on this "
                    "machine; set it to the address people reach the service at",
                )
            ]
        return [warning("url", f"PUBLIC_BASE_URL is {url}: report links work on this machine only")]
    if parts.query or parts.fragment:
        return [problem("url", f"PUBLIC_BASE_URL {url} has a query or fragment: drop it")]
    if parts.scheme != "https":
        return [warning("url", f"PUBLIC_BASE_URL {url} is plain http: prefer https behind a proxy")]
    return [ok("url", f"PUBLIC_BASE_URL {url}")]
