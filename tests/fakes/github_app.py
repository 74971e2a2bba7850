"""The GitHub App side of FakeGitHub: `POST /app/installations/{id}/access_tokens` and
`GET /repos/{owner}/{repo}/installation`, both only for a JWT GitHub would accept (RS256
signature checked with the App's public key, `iss` the App id, `iat` not in the future, `exp`
after now and at most 10 minutes ahead, all on the fake's clock, which every answer's `Date`
header tells), and installation tokens that expire.

Shaped after GitHub's REST docs ("Authenticating as a GitHub App installation", "Generating a
JSON Web Token (JWT) for a GitHub App"): a minted token answers 201 with `token`, `expires_at`
(an hour on), `permissions` and `repository_selection`; a refused JWT answers 401.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from tests.fakes._server import Recorded, Reply
from tests.fakes.github import FakeGitHub

TOKEN_SECONDS = 3600  # an installation token lasts an hour
JWT_MAX_AHEAD = 600  # exp at most 10 minutes into the future
# GitHub's own words for a JWT whose times do not fit its clock (as octokit matches them)
GITHUB_SAYS = {
    "iat in the future": "'Issued at' claim ('iat') must be an Integer representing the time "
    "that the assertion was issued",
    "exp in the past": "'Expiration time' claim ('exp') must be a numeric value representing "
    "the future time at which the assertion expires",
    "exp too far in the future": "'Expiration time' claim ('exp') is too far in the future",
}
PERMISSIONS = {"contents": "read", "pull_requests": "read", "checks": "read", "metadata": "read"}


def _unb64(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def new_private_key() -> tuple[str, rsa.RSAPublicKey]:
    """A fresh App key: its PEM text (as GitHub hands it out) and the public half."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()
    return pem, key.public_key()


@dataclass
class Clock:
    """Seconds since the epoch, moved by the test: shared by the fake and the client."""

    now: float = field(default_factory=time.time)

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class FakeGitHubApp:
    """Installs a GitHub App on `github`: its tokens are the only credentials `github` takes."""

    def __init__(
        self,
        github: FakeGitHub,
        *,
        app_id: str = "424242",
        installation_id: int = 9001,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.github = github
        self.app_id = app_id
        self.installation_id = installation_id
        self.pem, self._public = new_private_key()
        self.clock = clock
        self.tokens: dict[str, float] = {}  # token → expiry (epoch seconds)
        self.minted: list[str] = []
        self.jwt_claims: list[dict[str, Any]] = []
        self.refusals: list[str] = []  # why a JWT or a token was refused
        self._expire_on: str | None = None
        self._lock = threading.Lock()
        api = github.api
        api.route("POST", f"/app/installations/{installation_id}/access_tokens", self._mint)
        api.route("GET", f"/repos/{github.repo}/installation", self._installation)
        github.accept = self.accepts
        api.date_clock = clock  # GitHub's answers carry its time in `Date`

    # --- scenarios --------------------------------------------------------------------------

    def expire_tokens(self) -> None:
        """Every token minted so far expires now (GitHub refuses them with 401 from here on)."""
        with self._lock:
            for token in self.tokens:
                self.tokens[token] = 0.0

    def expire_on(self, path_prefix: str) -> None:
        """The tokens minted so far expire just before the first request for a path that
        starts with `path_prefix` (a token that runs out in the middle of a run)."""
        with self._lock:
            self._expire_on = path_prefix

    # --- what GitHub checks -------------------------------------------------------------------

    def accepts(self, token: str, rec: Recorded) -> bool:
        with self._lock:
            if self._expire_on is not None and rec.path.startswith(self._expire_on):
                self._expire_on = None
                self.tokens = dict.fromkeys(self.tokens, 0.0)
            expiry = self.tokens.get(token)
            if expiry is None or expiry <= self.clock():
                self.refusals.append("token expired" if expiry is not None else "unknown token")
                return False
            return True

    def _jwt_refusal(self, rec: Recorded) -> Reply | None:
        scheme, _, jwt = (rec.header("authorization") or "").partition(" ")
        problem = self._jwt_problem(jwt) if scheme.lower() == "bearer" else "no bearer JWT"
        if problem is None:
            return None
        self.refusals.append(problem)
        message = GITHUB_SAYS.get(problem, f"'{problem}' - A JSON web token could not be decoded")
        return 401, {}, {"message": message, "documentation_url": "https://docs.github.com/rest"}

    def _jwt_problem(self, jwt: str) -> str | None:
        parts = jwt.split(".")
        if len(parts) != 3:
            return "not a JWT"
        try:
            header, claims = (json.loads(_unb64(p)) for p in parts[:2])
            self._public.verify(
                _unb64(parts[2]),
                f"{parts[0]}.{parts[1]}".encode(),
                padding.PKCS1v15(),
                hashes.SHA256(),
            )
        except (ValueError, InvalidSignature):
            return "bad signature"
        now = self.clock()
        self.jwt_claims.append(claims)
        if header.get("alg") != "RS256":
            return "alg is not RS256"
        if str(claims.get("iss")) != self.app_id:
            return "iss is not the App id"
        if not isinstance(claims.get("iat"), int) or claims["iat"] > now:
            return "iat in the future"
        if not isinstance(claims.get("exp"), int) or claims["exp"] <= now:
            return "exp in the past"
        if claims["exp"] > now + JWT_MAX_AHEAD:
            return "exp too far in the future"
        return None

    # --- routes -------------------------------------------------------------------------------

    def _mint(self, rec: Recorded) -> Reply:
        refused = self._jwt_refusal(rec)
        if refused is not None:
            return refused
        token = f"ghs_{secrets.token_hex(18)}"
        expires = int(self.clock()) + TOKEN_SECONDS
        with self._lock:
            self.tokens[token] = expires
            self.minted.append(token)
        expires_at = datetime.fromtimestamp(expires, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        body = {
            "token": token,
            "expires_at": expires_at,
            "permissions": PERMISSIONS,
            "repository_selection": "selected",
        }
        return 201, {}, body

    def _installation(self, rec: Recorded) -> Reply:
        refused = self._jwt_refusal(rec)
        if refused is not None:
            return refused
        owner = self.github.repo.split("/")[0]
        body = {
            "id": self.installation_id,
            "app_id": int(self.app_id),
            "account": {"login": owner, "type": "Organization"},
            "target_type": "Organization",
            "permissions": PERMISSIONS,
            "access_tokens_url": f"{self.github.url}/app/installations/"
            f"{self.installation_id}/access_tokens",
        }
        return 200, {}, body


def mount_enterprise(github: FakeGitHub) -> None:
    """Serve `github` the way GitHub Enterprise Server does: REST under `/api/v3`, GraphQL at
    `/api/graphql` (each answered by the route the path names without the prefix)."""
    api = github.api

    def rest(received: Recorded) -> Reply:
        rec = dataclasses.replace(received, path=received.path.removeprefix("/api/v3"))
        route = api.routes.get((rec.method, rec.path)) or next(
            (h for m, p, h in api.prefix_routes if m == rec.method and rec.path.startswith(p)),
            None,
        )
        return route(rec) if route else (404, {}, {"message": "Not Found"})

    for method in ("GET", "POST"):
        api.route_prefix(method, "/api/v3/", rest)
    api.route("POST", "/api/graphql", api.routes[("POST", "/graphql")])
