"""requests' Session, reading the environment once per origin instead of on every request.

For every request, `Session.request` looks for a netrc file (two `stat`s, and the file parsed
again when there is one) and reads the proxy and CA bundle variables of the environment: ~10 %
of the CPU of a big week's 2,000 file fetches, each system call also handing the GIL over
between the fetch threads. What it finds depends on the URL's origin alone (the netrc entry of
its host, the proxy and `no_proxy` for its scheme and host), so it is found once per origin,
by requests' own functions, for the life of the client."""

from __future__ import annotations

import threading
from collections.abc import MutableMapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import requests
from requests.auth import AuthBase
from requests.utils import get_netrc_auth

if TYPE_CHECKING:
    from requests.sessions import _Settings


class _NoAuth(AuthBase):
    """No netrc entry for the host: the request as it is (what no auth at all leaves)."""

    def __call__(self, r: requests.PreparedRequest) -> requests.PreparedRequest:
        return r


NO_AUTH = _NoAuth()


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


class EnvOnceSession(requests.Session):
    """A Session whose environment settings and netrc auth are read once per origin."""

    def __init__(self) -> None:
        super().__init__()
        self._settings: dict[tuple[Any, ...], _Settings] = {}
        self._auth: dict[str, AuthBase | tuple[str, str]] = {}
        self._lock = threading.Lock()

    def merge_environment_settings(
        self,
        url: str | bytes | None,
        proxies: MutableMapping[str, str] | None,
        stream: bool | None,
        verify: bool | str | None,
        cert: Any,
    ) -> _Settings:
        if proxies or not self.trust_env or not isinstance(url, str):  # as requests does
            return super().merge_environment_settings(url, proxies, stream, verify, cert)
        key = (origin(url), stream, verify, cert)
        with self._lock:
            found = self._settings.get(key)
            if found is None:
                found = self._settings[key] = super().merge_environment_settings(
                    url, {}, stream, verify, cert
                )
        copy = found.copy()
        copy["proxies"] = dict(found["proxies"])  # the caller's to change
        return copy

    def auth_for(self, url: str) -> AuthBase | tuple[str, str] | None:
        """What `prepare_request` finds in netrc for `url` (NO_AUTH for nothing), read once per
        origin: passed as the request's auth, it stops requests from looking again."""
        if not self.trust_env or self.auth is not None:
            return None
        key = origin(url)
        with self._lock:
            found = self._auth.get(key)
            if found is None:
                found = self._auth[key] = get_netrc_auth(url) or NO_AUTH
        return found
