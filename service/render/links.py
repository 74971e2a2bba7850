"""Where the service serves a week's full report: the one place that builds that URL, and the
signed links of REPORTS_ACCESS (an HMAC of repo, period and expiry in the `t` query parameter)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

TOKEN_PARAM = "t"  # noqa: S105 - the name of the query parameter, not a secret
_TOKEN_RE = re.compile(r"^(\d{1,12})\.([A-Za-z0-9_-]{43})$")
KEY_CONTEXT = b"verl-week report links"


class ReportsAccess(StrEnum):
    """REPORTS_ACCESS: every page open, or every page behind a signed link."""

    PUBLIC = "public"
    SIGNED = "signed"


def report_url(public_base_url: str, repo: str, period: str) -> str:
    """`PUBLIC_BASE_URL/reports/<owner>/<repo>/<week>`, as service/runtime/web.py routes it."""
    return f"{public_base_url.rstrip('/')}/reports/{repo}/{period}"


def signing_key(secret: str) -> bytes:
    """The HMAC key of report links derived from a secret (REPORTS_SIGNING_KEY or the key the
    service made and stored on its first start)."""
    return hmac.new(secret.encode(), KEY_CONTEXT, hashlib.sha256).digest()


def _signature(key: bytes, repo: str, period: str, expires: int) -> str:
    mac = hmac.new(key, f"{repo}\n{period}\n{expires}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def report_token(key: bytes, repo: str, period: str, expires: int) -> str:
    """`<expires>.<signature>`: opens the report of (repo, period), any format or language,
    until `expires` (Unix seconds)."""
    return f"{expires}.{_signature(key, repo, period, expires)}"


def token_is_valid(
    token: str, key: bytes, repo: str, period: str, now: int, max_ahead: int | None = None
) -> bool:
    """Whether `token` was signed with `key` for (repo, period), has not expired at `now` and,
    with `max_ahead`, expires no further than that many seconds after `now` (a link signed
    with a leaked key still cannot outlive the configured lifetime)."""
    match = _TOKEN_RE.match(token)
    if match is None:
        return False
    expires = int(match.group(1))
    if max_ahead is not None and expires > now + max_ahead:
        return False
    expected = _signature(key, repo, period, expires)
    return hmac.compare_digest(expected, match.group(2)) and now < expires


# replicas' clocks differ a little: a link signed by one is not refused by another for it
CLOCK_SLACK_SECONDS = 300


@dataclass(frozen=True)
class ReportLinks:
    """The report links the cards and answers carry, and which pages need a signed one.

    `access` None is the default of REPORTS_ACCESS: a repository GitHub marks private (or one
    whose privacy is not known yet) needs a signed link, a public one does not. Without a key
    nothing can be signed, and only `signed` then refuses pages."""

    base_url: str
    clock: Callable[[], datetime]
    access: ReportsAccess | None = None
    key: bytes | None = None
    # keys links were signed with before `key` (accepted until the links expire, never signed)
    old_keys: tuple[bytes, ...] = ()
    ttl: timedelta = timedelta(days=30)
    privacy: Callable[[str], bool | None] = lambda _repo: None

    def needs_token(self, repo: str) -> bool:
        """Whether the pages of `repo` open only through a signed link."""
        if self.access is not None:
            return self.access is ReportsAccess.SIGNED
        return self.key is not None and self.privacy(repo) is not False

    def url(self, repo: str, period: str) -> str:
        """The link to put in a card: signed (and expiring) when the page needs it."""
        plain = report_url(self.base_url, repo, period)
        if self.key is None or not self.needs_token(repo):
            return plain
        expires = int((self.clock() + self.ttl).timestamp())
        return f"{plain}?{TOKEN_PARAM}={report_token(self.key, repo, period, expires)}"

    def allows(self, repo: str, period: str, token: str | None) -> bool:
        """Whether a request for the report of (repo, period) carrying `token` may see it."""
        if not self.needs_token(repo):
            return True
        if self.key is None or not token:
            return False
        now = int(self.clock().timestamp())
        # no link lives longer than REPORT_LINK_DAYS, whatever expiry it was signed with
        ahead = int(self.ttl.total_seconds()) + CLOCK_SLACK_SECONDS
        keys = (self.key, *self.old_keys)
        return any(token_is_valid(token, k, repo, period, now, ahead) for k in keys)
