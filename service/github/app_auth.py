"""A GitHub App's installation token as the Credentials of GitHubHttp (credentials.py).

An installation token is minted with a short RS256 JWT signed by the App's private key
(`POST /app/installations/{id}/access_tokens`); it lasts an hour, so it is minted again a few
minutes before it expires, and once more when GitHub refuses it (401) in the middle of a run.
The installation, when not given, is the one that holds the first repository
(`GET /repos/{owner}/{repo}/installation`). The JWT is built here with `cryptography` alone:
three base64url parts and a PKCS#1 v1.5 SHA-256 signature are all RS256 is.

A host clock that is off makes GitHub refuse every JWT (issued in the future, or expired). As
octokit does, a refused App request is signed again once with the offset read from the
response's `Date` header, and that offset is kept for later JWTs and token expiries; a refusal
that still names the JWT's times says the clock is off rather than blaming the App id.
"""

from __future__ import annotations

import base64
import json
import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import Any

import requests
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from service import operator_text
from service.errors import AuthRefusedError, ConfigError, UnreachableError, UpstreamError

logger = logging.getLogger(__name__)

# GitHub: iat 60 s in the past against clock drift, exp at most 10 minutes ahead
JWT_BACKDATE_SECONDS = 60
JWT_LIFETIME_SECONDS = 540
# an installation token lasts an hour; a new one is minted when less than this is left
REFRESH_MARGIN_SECONDS = 300.0
MINT_ATTEMPTS = 3
CREATED = 201
UNAUTHORIZED = 401
NOT_FOUND = 404
SERVER_ERROR = 500
API_VERSION = "2022-11-28"
APP_HINT = "check the GitHub App's installation and its permissions"
# a refusal with GitHub's clock this far from ours is a skew worth correcting (the JWT's 60 s
# backdate and 9 minute lifetime absorb anything smaller)
SKEW_NOTICE_SECONDS = 30.0
# GitHub's words when a JWT's iat or exp does not fit its clock
TIME_CLAIMS = ("'iat'", "'exp'", "issued at", "expiration time")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def load_private_key(pem: str, setting: str) -> rsa.RSAPrivateKey:
    """The App's RSA key from PEM text (`\\n` escapes of a one-line .env value allowed)."""
    text = pem.strip().replace("\\n", "\n")
    try:
        key = serialization.load_pem_private_key(text.encode(), password=None)
    except (ValueError, TypeError):
        why = "not a PEM private key (the .pem file GitHub gave for the App, BEGIN RSA PRIVATE KEY)"
        raise ConfigError(operator_text.invalid_setting(setting, why)) from None
    if not isinstance(key, rsa.RSAPrivateKey):
        raise ConfigError(operator_text.invalid_setting(setting, "a GitHub App key is an RSA key"))
    return key


def app_jwt(app_id: str, key: rsa.RSAPrivateKey, now: float) -> str:
    """The RS256 JWT that authenticates as the App: iss = app id, iat 60 s back, exp 9 min on."""
    header = {"alg": "RS256", "typ": "JWT"}
    issued = int(now) - JWT_BACKDATE_SECONDS
    claims = {"iat": issued, "exp": int(now) + JWT_LIFETIME_SECONDS, "iss": app_id}
    signing_input = ".".join(
        _b64(json.dumps(part, separators=(",", ":")).encode()) for part in (header, claims)
    )
    signature = key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{signing_input}.{_b64(signature)}"


def _expiry(value: Any) -> float:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()
    except ValueError:
        raise UpstreamError(
            "GitHub minted an installation token without a valid expires_at"
        ) from None


class AppInstallationAuth:
    """A GitHub App's installation token, minted on first use and again before it expires.

    Safe to share between threads: one mint at a time, and a 401 on a token another thread
    already replaced does not mint a third one."""

    hint = APP_HINT

    def __init__(
        self,
        *,
        api_url: str,
        app_id: str,
        private_key: rsa.RSAPrivateKey,
        installation_id: int | None = None,
        repo: str | None = None,
        timeout: float = 30.0,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        user_agent: str = "verl-week",
    ) -> None:
        if installation_id is None and not repo:
            raise ConfigError(
                "GITHUB_APP_INSTALLATION_ID is unset and there is no repository to find it from"
            )
        self.api_url = api_url.rstrip("/")
        self.app_id = app_id
        self.installation_id = installation_id
        self.repo = repo
        self.mints = 0
        self._key = private_key
        self._timeout = timeout
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._token: str | None = None
        self._expires_at = 0.0
        self.skew = 0.0  # GitHub's clock minus ours, learnt from a refused request's Date
        self._session = requests.Session()
        self._session.headers.update(
            {
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": API_VERSION,
                "User-Agent": user_agent,
            }
        )

    def authorization(self) -> str:
        with self._lock:
            if self._token is None or self._now() >= self._expires_at - REFRESH_MARGIN_SECONDS:
                self._mint()
            return f"Bearer {self._token}"

    def refused(self, sent: str) -> bool:
        with self._lock:
            if sent == f"Bearer {self._token}":  # else another thread has minted since
                logger.info(operator_text.LOG_GITHUB_TOKEN_REFUSED)
                self._mint()
            return True

    def close(self) -> None:
        self._session.close()

    def _now(self) -> float:
        """Now on GitHub's clock, as far as we know it."""
        return self._clock() + self.skew

    # --- GitHub's App endpoints -----------------------------------------------------------

    def _mint(self) -> None:
        if self.installation_id is None:
            self.installation_id = self._discover()
        path = f"/app/installations/{self.installation_id}/access_tokens"
        resp = self._call("POST", path)
        if resp.status_code == NOT_FOUND:
            raise AuthRefusedError(
                f"GitHub has no installation {self.installation_id} of App {self.app_id}: check "
                "GITHUB_APP_INSTALLATION_ID, or leave it unset to find it from the repository"
            )
        payload = self._payload(resp, path, CREATED)
        token = payload.get("token")
        if not isinstance(token, str) or not token:
            raise UpstreamError("GitHub answered the token request without a token")
        self._token, self._expires_at = token, _expiry(payload.get("expires_at"))
        self.mints += 1
        logger.debug(
            operator_text.LOG_GITHUB_TOKEN_MINTED,
            extra={"installation": self.installation_id, "expires_at": payload.get("expires_at")},
        )

    def _discover(self) -> int:
        path = f"/repos/{self.repo}/installation"
        resp = self._call("GET", path)
        if resp.status_code == NOT_FOUND:
            raise AuthRefusedError(
                f"GitHub App {self.app_id} is not installed on {self.repo}: install it on the "
                "repository's owner, or set GITHUB_APP_INSTALLATION_ID"
            )
        found = self._payload(resp, path, requests.codes.ok).get("id")
        if not isinstance(found, int):
            raise UpstreamError(f"GitHub answered {path} without an installation id")
        logger.info(
            operator_text.LOG_GITHUB_INSTALLATION_FOUND, extra={"repo": self.repo, "id": found}
        )
        return found

    def _call(self, method: str, path: str) -> requests.Response:
        """One App request; refused for the JWT's times by a GitHub whose clock is not ours, it
        is signed again once with GitHub's time (the response's Date)."""
        resp = self._send(method, path)
        if resp.status_code == UNAUTHORIZED and self._learn_skew(resp):
            resp = self._send(method, path)
        return resp

    def _learn_skew(self, resp: requests.Response) -> bool:
        """Keep GitHub's clock offset from a refusal's Date; True when it moved enough to retry."""
        offset = _server_offset(resp, self._clock())
        if offset is None or abs(offset - self.skew) < SKEW_NOTICE_SECONDS:
            return False
        self.skew = offset
        logger.warning(operator_text.LOG_GITHUB_CLOCK_SKEW, extra={"skew_seconds": round(offset)})
        return True

    def _send(self, method: str, path: str) -> requests.Response:
        """One App request signed with a fresh JWT; connection failures and 5xx are retried."""
        url = f"{self.api_url}{path}"
        for attempt in range(1, MINT_ATTEMPTS + 1):
            headers = {"Authorization": f"Bearer {app_jwt(self.app_id, self._key, self._now())}"}
            try:
                resp = self._session.request(method, url, headers=headers, timeout=self._timeout)
            except requests.RequestException as exc:
                if attempt == MINT_ATTEMPTS:
                    raise UnreachableError(
                        f"cannot reach GitHub at {url.split('/')[2]} to mint the App's token "
                        f"({type(exc).__name__})"
                    ) from None
            else:
                if resp.status_code < SERVER_ERROR or attempt == MINT_ATTEMPTS:
                    return resp
            self._sleep(min(2.0**attempt, 10.0) * 0.5)
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def _payload(self, resp: requests.Response, path: str, expected: int) -> dict[str, Any]:
        if resp.status_code == UNAUTHORIZED:
            raise AuthRefusedError(self._refusal(resp))
        if resp.status_code != expected:
            raise UpstreamError(f"GitHub answered {resp.status_code} for {path}")
        try:
            payload = resp.json()
        except ValueError:
            raise UpstreamError(f"GitHub answered {path} with something that is not JSON") from None
        if not isinstance(payload, dict):
            raise UpstreamError(f"GitHub answered {path} with something that is not an object")
        return payload

    def _refusal(self, resp: requests.Response) -> str:
        """Why GitHub refused the JWT: the clock when GitHub names its times, else the App."""
        said = resp.text.lower()
        if any(words in said for words in TIME_CLAIMS):
            offset = _server_offset(resp, self._clock())
            if offset is None:
                return operator_text.github_app_clock_off(None)
            agrees = abs(offset) < SKEW_NOTICE_SECONDS
            return operator_text.github_app_clock_off(0 if agrees else round(offset))
        return (
            "GitHub refused the App's signed request (401): check GITHUB_APP_ID "
            f"({self.app_id}) and that the private key is the App's current one"
        )


def _server_offset(resp: requests.Response, now: float) -> float | None:
    """GitHub's clock minus ours from the response's Date header (None without a usable one)."""
    try:
        return parsedate_to_datetime(resp.headers.get("Date", "")).timestamp() - now
    except (TypeError, ValueError, IndexError):
        return None
