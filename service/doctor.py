"""`verl-week doctor`: one finding per configured piece (GitHub, Slack, Feishu, the webhook, the
database, PUBLIC_BASE_URL), each ok or a problem with what to do about it.

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

from service.errors import ServiceError
from service.feishu.api import FeishuApi
from service.feishu.webhook import WebhookSender
from service.github.http import GitHubHttp
from service.slack.probe import Access
from service.store.repository import schema_state

logger = logging.getLogger(__name__)

# a verl week costs more than this many REST requests without a token (search, pulls, files)
TOKENLESS_LIMIT = 60
WEBHOOK_SIGN_REFUSED = 19021
WEBHOOK_BAD_REQUEST = 9499
WEBHOOK_TOKEN_INVALID = 19001
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0"})  # noqa: S104 - a name


@dataclass(frozen=True)
class Finding:
    area: str
    ok: bool
    message: str

    def line(self) -> str:
        return f"{'ok' if self.ok else 'problem':<8} {self.area:<9} {self.message}"


def ok(area: str, message: str) -> Finding:
    return Finding(area, True, message)


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
) -> list[Finding]:
    """auth.test (`identity`), then every configured or subscribed channel (`access`)."""
    found = [ok("slack", f"token accepted: {identity()}")]
    if not signing_secret:
        found.append(
            problem("slack", "SLACK_SIGNING_SECRET is not set: slash commands can't be checked")
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
    """PUBLIC_BASE_URL is well formed (settings checked that); links must leave this host."""
    parts = urlsplit(url)
    if chat and (parts.hostname or "") in LOCAL_HOSTS:
        return [
            problem(
                "url",
                f"PUBLIC_BASE_URL is {url}: the cards' report links only work on this machine; "
                "set it to the address people reach the service at",
            )
        ]
    if parts.query or parts.fragment:
        return [problem("url", f"PUBLIC_BASE_URL {url} has a query or fragment: drop it")]
    note = "" if parts.scheme == "https" else " (http: prefer https behind a proxy)"
    return [ok("url", f"PUBLIC_BASE_URL {url}{note}")]
