"""tenant_access_token for a self-built Feishu/Lark app: fetched, cached, refreshed (§3.3).

The token lives at most 2 hours (`expire` seconds in the answer). We keep it until
`REFRESH_MARGIN` before that, like lark-oapi (which keeps 10 minutes), and drop it at once when
an API call says it is invalid, so the next call fetches a new one.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import requests

from service.errors import AuthRefusedError, UnreachableError

logger = logging.getLogger(__name__)

TOKEN_PATH = "/open-apis/auth/v3/tenant_access_token/internal"  # noqa: S105 - a path
REFRESH_MARGIN_SECONDS = 600.0  # lark-oapi core/token/manager.py: expire − 10 minutes
DEFAULT_TIMEOUT_SECONDS = 10.0


@dataclass
class _Cached:
    token: str
    refresh_at: float


class TenantTokenCache:
    """One app's token; thread-safe; never logs the token or the secret."""

    def __init__(
        self,
        *,
        base_url: str,
        app_id: str,
        app_secret: str,
        session: requests.Session | None = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.app_id = app_id
        self._secret = app_secret
        self.session = session or requests.Session()
        self.timeout = timeout
        self.clock = clock
        self._cached: _Cached | None = None
        self._lock = threading.Lock()

    def token(self) -> str:
        """A valid tenant_access_token, fetching one when none is cached or it is due."""
        with self._lock:
            cached = self._cached
            if cached is None or self.clock() >= cached.refresh_at:
                cached = self._fetch()
                self._cached = cached
            return cached.token

    def invalidate(self, token: str) -> None:
        """Forget `token` (Feishu said it expired or is invalid); a newer one is kept."""
        with self._lock:
            if self._cached is not None and self._cached.token == token:
                self._cached = None

    def _fetch(self) -> _Cached:
        payload = self._post({"app_id": self.app_id, "app_secret": self._secret})
        code = payload.get("code")
        token = payload.get("tenant_access_token")
        if code != 0 or not isinstance(token, str):
            logger.warning("feishu token refused", extra={"code": code, "app_id": self.app_id})
            raise AuthRefusedError(
                f"Feishu refused the app credentials (code {code}): "
                "check FEISHU_APP_ID and FEISHU_APP_SECRET"
            )
        expire = float(payload.get("expire") or 0)
        return _Cached(token, self.clock() + max(expire - REFRESH_MARGIN_SECONDS, 0.0))

    def _post(self, body: dict[str, str]) -> dict[str, Any]:
        try:
            response = self.session.post(
                self.base_url + TOKEN_PATH, json=body, timeout=self.timeout
            )
        except requests.RequestException as exc:
            raise UnreachableError(f"Feishu is unreachable: {type(exc).__name__}") from exc
        try:
            payload: dict[str, Any] = response.json()
        except ValueError as exc:
            raise UnreachableError(
                f"Feishu answered HTTP {response.status_code} without JSON"
            ) from exc
        return payload
