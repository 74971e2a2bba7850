"""GitHub's requests sent on urllib3's connection pools directly, configured as requests would.

`requests.Session.request` prepares every request anew (headers merged, the URL parsed and
encoded again, cookies, hooks, the adapter's connection and TLS look-ups) and wraps every
answer: ~1 s of CPU over a big week's 2,000 file fetches, each step also handing the GIL over
between the fetch threads. What it works out depends on the URL's origin alone (the proxy and
`no_proxy` for its scheme and host, the CA bundle, the netrc entry of its host), so this
transport finds it once per origin, with requests' own functions, and then sends on urllib3
as requests' HTTPAdapter does: the same headers, timeouts, redirects (the Authorization header
dropped when one leaves the host) and no retry of its own. A transport failure leaves as a
TransportError named like the requests exception it would have been, never with its URL."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests
import urllib3
from requests.auth import _basic_auth_str
from requests.utils import (
    DEFAULT_ACCEPT_ENCODING,
    DEFAULT_CA_BUNDLE_PATH,
    get_auth_from_url,
    get_netrc_auth,
    parse_header_links,
    select_proxy,
)
from urllib3 import exceptions as errors

# requests' own limit (Session.max_redirects)
MAX_REDIRECTS = 30
OK_BELOW = 400
# as requests' HTTPAdapter: no retry here (the client's loop retries), no status retries;
# redirects followed up to requests' limit
NO_RETRY = urllib3.Retry(
    total=None,
    connect=0,
    read=False,
    redirect=MAX_REDIRECTS,
    status=0,
    other=0,
    respect_retry_after_header=False,
)


class TransportError(Exception):
    """A request that got no answer: `kind` is the requests exception's name it would have
    raised (ConnectionError, ReadTimeout, ...), `retryable` whether another try may help."""

    def __init__(self, kind: str, *, retryable: bool) -> None:
        super().__init__(kind)
        self.kind = kind
        self.retryable = retryable


@dataclass
class Answer:
    """One HTTP answer: what the client reads of requests' Response, decoded JSON kept."""

    status_code: int
    headers: Mapping[str, str]  # case-insensitive (urllib3's HTTPHeaderDict)
    content: bytes
    url: str
    _decoded: tuple[Any, ValueError | None] | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        return self.status_code < OK_BELOW

    @property
    def text(self) -> str:
        charset = _charset(self.headers.get("content-type", ""))
        return self.content.decode(charset or "utf-8", errors="replace")

    @property
    def links(self) -> dict[str, dict[str, str]]:
        """The Link header by `rel` (or URL), as requests' `Response.links`."""
        header = self.headers.get("link")
        if not header:
            return {}
        return {link.get("rel") or link.get("url", ""): link for link in parse_header_links(header)}

    def json(self) -> Any:
        """The body's JSON, decoded once however often it is asked; ValueError when none."""
        if self._decoded is None:
            try:
                self._decoded = (json.loads(self.content), None)
            except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
                self._decoded = (None, exc)
        value, error = self._decoded
        if error is not None:
            raise error
        return value


def _charset(content_type: str) -> str | None:
    for param in content_type.split(";")[1:]:
        key, _, value = param.strip().partition("=")
        if key.lower() == "charset" and value:
            return value.strip("\"' ")
    return None


@dataclass(frozen=True)
class Route:
    """How requests reaches one origin: its pool manager (direct or a proxy's, with the CA
    bundle) and the netrc entry's Authorization, which replaces the client's as requests does."""

    manager: urllib3.PoolManager
    authorization: str | None


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


class Transport:
    """Sends requests with `headers` on pools of up to `pool_size` connections a host."""

    def __init__(self, headers: Mapping[str, str], *, pool_size: int) -> None:
        self.headers = {
            "Accept-Encoding": DEFAULT_ACCEPT_ENCODING,
            "Connection": "keep-alive",
            **headers,
        }
        self.pool_size = pool_size
        self._env = requests.Session()  # only its merge_environment_settings is asked
        self._routes: dict[str, Route] = {}
        self._managers: dict[tuple[str | None, str | None], urllib3.PoolManager] = {}
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            for manager in self._managers.values():
                manager.clear()
            self._managers.clear()
            self._routes.clear()
        self._env.close()

    def send(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str],
        body: Any = None,
        timeout: float,
    ) -> Answer:
        """One request (redirects followed); TransportError when no answer came."""
        route = self.route(url)
        sent = {**self.headers, **headers}
        if route.authorization is not None:
            sent["Authorization"] = route.authorization
        data = None
        if body is not None:
            data = json.dumps(body, allow_nan=False).encode("utf-8")
            sent["Content-Type"] = "application/json"
            sent["Content-Length"] = str(len(data))
        try:
            resp = route.manager.urlopen(
                method,
                url,
                body=data,
                headers=sent,
                redirect=True,
                retries=NO_RETRY,
                timeout=urllib3.Timeout(connect=timeout, read=timeout),
                preload_content=False,
                decode_content=True,
            )
        except (errors.HTTPError, OSError) as exc:  # urllib3's failures and the socket's
            raise _failure(exc) from None
        return Answer(resp.status, resp.headers, _body(resp), _final_url(url, resp))

    def route(self, url: str) -> Route:
        """The origin's route, worked out on its first request."""
        key = origin(url)
        with self._lock:
            found = self._routes.get(key)
            if found is None:
                found = self._routes[key] = self._route(url)
        return found

    def _route(self, url: str) -> Route:
        settings = self._env.merge_environment_settings(url, {}, None, None, None)
        proxy = select_proxy(url, settings["proxies"])
        if proxy and "://" not in proxy:  # requests' prepend_scheme_if_needed
            proxy = f"http://{proxy}"
        netrc = get_netrc_auth(url)
        return Route(
            manager=self._manager(proxy, _ca_location(url, settings["verify"])),
            authorization=_basic_auth_str(*netrc) if netrc else None,
        )

    def _manager(self, proxy: str | None, ca: str | None) -> urllib3.PoolManager:
        key = (proxy, ca)
        found = self._managers.get(key)
        if found is None:
            found = self._managers[key] = _new_manager(proxy, ca, self.pool_size)
        return found


def _ca_location(url: str, verify: bool | str | None) -> str | None:
    """The CA bundle (file or directory) an https URL is checked against, as requests picks
    it: the environment's REQUESTS_CA_BUNDLE or CURL_CA_BUNDLE, else certifi's."""
    if not url.lower().startswith("https"):
        return None
    location = verify if isinstance(verify, str) else DEFAULT_CA_BUNDLE_PATH
    if not location or not os.path.exists(location):
        raise OSError(
            f"Could not find a suitable TLS CA certificate bundle, invalid path: {location}"
        )
    return location


def _new_manager(proxy: str | None, ca: str | None, pool_size: int) -> urllib3.PoolManager:
    """A pool manager as requests' HTTPAdapter makes it (its socks and proxy-auth handling)."""
    tls: dict[str, Any] = {}
    if ca is not None:
        tls = {
            "cert_reqs": "CERT_REQUIRED",
            ("ca_cert_dir" if os.path.isdir(ca) else "ca_certs"): ca,
        }
    if not proxy:
        return urllib3.PoolManager(num_pools=10, maxsize=pool_size, **tls)
    if proxy.lower().startswith("socks"):
        from urllib3.contrib.socks import SOCKSProxyManager  # needs PySocks, as in requests

        username, password = get_auth_from_url(proxy)
        return SOCKSProxyManager(
            proxy, username=username, password=password, maxsize=pool_size, **tls
        )
    username, password = get_auth_from_url(proxy)
    proxy_headers = {"Proxy-Authorization": _basic_auth_str(username, password)} if username else {}
    return urllib3.ProxyManager(proxy, proxy_headers=proxy_headers, maxsize=pool_size, **tls)


def _body(resp: urllib3.BaseHTTPResponse) -> bytes:
    """The whole body, read failures named as requests names them when it reads one."""
    try:
        return resp.read()
    except errors.ProtocolError:
        raise TransportError("ChunkedEncodingError", retryable=True) from None
    except errors.DecodeError:
        raise TransportError("ContentDecodingError", retryable=False) from None
    except (errors.ReadTimeoutError, errors.SSLError) as exc:
        kind = "SSLError" if isinstance(exc, errors.SSLError) else "ConnectionError"
        raise TransportError(kind, retryable=True) from None
    finally:
        resp.release_conn()


def _final_url(url: str, resp: urllib3.BaseHTTPResponse) -> str:
    """The URL that answered: `url`, or where its redirects led."""
    for step in resp.retries.history if resp.retries is not None else ():
        if step.redirect_location:
            url = urljoin(url, step.redirect_location)
    return url


def _failure(exc: Exception) -> TransportError:
    """`exc` named as requests' HTTPAdapter.send names it; retryable as the client decides."""
    if isinstance(exc, errors.MaxRetryError):
        return _failure_of_retries(exc.reason)
    if isinstance(exc, errors.LocationValueError):
        return TransportError("InvalidURL", retryable=False)
    if isinstance(exc, errors.ProxyError):
        return TransportError("ProxyError", retryable=True)
    if isinstance(exc, errors.SSLError):
        return TransportError("SSLError", retryable=True)
    if isinstance(exc, errors.ReadTimeoutError):
        return TransportError("ReadTimeout", retryable=True)
    if isinstance(exc, (errors.ProtocolError, OSError, errors.ClosedPoolError)):
        return TransportError("ConnectionError", retryable=True)
    return TransportError(type(exc).__name__, retryable=False)


def _failure_of_retries(reason: Exception | None) -> TransportError:
    if isinstance(reason, errors.ConnectTimeoutError) and not isinstance(
        reason, errors.NewConnectionError
    ):
        return TransportError("ConnectTimeout", retryable=True)
    if isinstance(reason, errors.ResponseError):  # too many redirects
        return TransportError("TooManyRedirects", retryable=False)
    if isinstance(reason, errors.ProxyError):
        return TransportError("ProxyError", retryable=True)
    if isinstance(reason, errors.SSLError):
        return TransportError("SSLError", retryable=True)
    return TransportError("ConnectionError", retryable=True)
