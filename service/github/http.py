"""HTTP to GitHub (REST and GraphQL) over one Transport (urllib3's pools, set up as requests
would): auth, timeouts, bounded retries with full-jitter backoff, Retry-After and x-ratelimit-*
handling, ETag caching, request counts.

Every transport failure and every error status stops here and leaves as a ServiceError.
"""

from __future__ import annotations

import json
import logging
import random
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol
from urllib.parse import urlencode, urlsplit

from service import operator_text
from service.errors import (
    AuthRefusedError,
    NotFoundError,
    RateLimitError,
    UnreachableError,
    UpstreamError,
)
from service.github.credentials import Credentials, StaticToken
from service.github.transport import Answer, Transport, TransportError

logger = logging.getLogger(__name__)

# X-GitHub-Api-Version: supported until March 2028 (platform-facts §1.2)
API_VERSION = "2022-11-28"
NOT_MODIFIED = 304
BAD_REQUEST = 400
UNAUTHORIZED = 401
FORBIDDEN = 403
NOT_FOUND = 404
TOO_MANY_REQUESTS = 429
SERVER_ERROR = 500
LIMIT_STATUSES = (FORBIDDEN, TOO_MANY_REQUESTS)
# secondary limit without Retry-After: "wait at least one minute" (platform-facts §1.5)
MIN_SECONDARY_WAIT = 60.0
# a second of slack after x-ratelimit-reset, whose resolution is one second
RESET_SLACK = 1.0
MESSAGE_CHARS = 200
# connections kept open to one host: a family's collections share this client, each with up to
# GITHUB_PATCH_CONCURRENCY (<= 32) file fetches beside its code search and older lookups; with
# requests' default of 10 every fetch beyond that opened a connection (and on GitHub a TLS
# handshake) and threw it away ("Connection pool is full, discarding connection")
POOL_SIZE = 64
GRAPHQL_RATE_LIMITED = "RATE_LIMITED"
GRAPHQL_NOT_FOUND = "NOT_FOUND"
GRAPHQL_FORBIDDEN = "FORBIDDEN"
GRAPHQL_TYPED = (GRAPHQL_RATE_LIMITED, GRAPHQL_NOT_FOUND, GRAPHQL_FORBIDDEN)

TOKEN_REFUSED = "GitHub refused the token (401): {hint}"  # noqa: S105 - a message


# (api: rest | graphql, HTTP status, x-ratelimit-remaining, x-ratelimit-resource) per answer
Observe = Callable[[str, int, str | None, str | None], None]


class HttpCache(Protocol):
    """Where ETags and bodies of REST GETs are kept (the store implements it)."""

    def cache_get(self, key: str) -> tuple[str, str] | None: ...  # (etag, body text)

    def cache_put(self, key: str, etag: str, body: str) -> None: ...

    def cache_fresh(self, key: str, max_age: timedelta) -> str | None: ...  # body, if that young


@dataclass
class RequestStats:
    """What the collector cost: requests sent (retries included), 304s, answers still fresh in
    the cache (no request), bytes, rate-limit cost."""

    requests: int = 0
    rest_requests: int = 0
    graphql_requests: int = 0
    not_modified: int = 0
    fresh: int = 0
    bytes_downloaded: int = 0
    retries: int = 0
    rate_limit_cost: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, **counts: int) -> None:
        with self._lock:
            for name, value in counts.items():
                setattr(self, name, getattr(self, name) + value)

    def as_dict(self) -> dict[str, int]:
        with self._lock:
            return {
                "requests": self.requests,
                "rest_requests": self.rest_requests,
                "graphql_requests": self.graphql_requests,
                "not_modified": self.not_modified,
                "fresh": self.fresh,
                "bytes_downloaded": self.bytes_downloaded,
                "retries": self.retries,
                "rate_limit_cost": self.rate_limit_cost,
            }


@dataclass(frozen=True)
class RestPage:
    """One REST answer: its JSON, the `rel="next"` URL if any, and whether a 304 served it."""

    data: Any
    next_url: str | None
    cached: bool = False


def _page_of(envelope: str, *, cached: bool) -> RestPage:
    """A RestPage from the cache's `{"data": …, "next": …}` text."""
    parsed = json.loads(envelope)
    return RestPage(parsed["data"], parsed.get("next"), cached=cached)


def _message(resp: Answer) -> str:
    try:
        payload = resp.json()
    except ValueError:
        return resp.text[:MESSAGE_CHARS]
    if isinstance(payload, dict):
        return str(payload.get("message", ""))[:MESSAGE_CHARS]
    return ""


def _graphql_errors(resp: Answer) -> list[dict[str, Any]]:
    try:
        payload = resp.json()
    except ValueError:
        return []
    errors = payload.get("errors") if isinstance(payload, dict) else None
    return [e for e in errors or [] if isinstance(e, dict)]


class MalformedAnswerError(ValueError):
    """A 2xx answer we can't use (not JSON, the wrong shape, errors only): retried like a 5xx.

    Raised by a `check` of the caller too, when the answer lacks what it must hold."""


# a caller's look at a parsed answer: raises MalformedAnswerError (or KeyError, TypeError,
# ValueError) when the answer lacks what the caller reads
Check = Callable[[Any], object]
OPERATION = re.compile(r"\b(?:query|mutation)\s+(\w+)")


def _body_json(resp: Answer) -> Any:
    """The answer's JSON; a body that is empty, truncated or HTML is malformed."""
    if not resp.content.strip():
        raise MalformedAnswerError("an empty body")
    try:
        return resp.json()
    except ValueError:
        kind = resp.headers.get("content-type", "").partition(";")[0].strip() or "unknown type"
        raise MalformedAnswerError(f"a body that is not JSON ({kind})") from None


def expecting(kind: type) -> Check:
    """A check that the answer is a JSON object (dict) or array (list)."""
    names: dict[type, str] = {dict: "an object", list: "an array"}

    def check(payload: Any) -> None:
        if not isinstance(payload, kind):
            got = "null" if payload is None else type(payload).__name__
            raise MalformedAnswerError(f"{got} where {names.get(kind, kind.__name__)} belongs")

    return check


def _graphql_data(payload: Any) -> Any:
    """A GraphQL answer that is final: typed errors are kept for `graphql` to translate, an
    answer with only untyped errors, or without data, is malformed (GitHub's transient
    "Something went wrong while executing your query" comes back as a 200 like that)."""
    if not isinstance(payload, dict):
        raise MalformedAnswerError("a GraphQL answer that is not an object")
    errors = [e for e in payload.get("errors") or [] if isinstance(e, dict)]
    typed = any(e.get("type") in GRAPHQL_TYPED for e in errors)
    data = payload.get("data")
    if not isinstance(data, dict) and not typed:
        first = str(errors[0].get("message", ""))[:MESSAGE_CHARS] if errors else ""
        raise MalformedAnswerError(f"errors only: {first}" if errors else "no data")
    return payload


def describe(method: str, url: str, body: dict[str, Any] | None = None) -> str:
    """`GET /repos/o/r/pulls/1/files` or `POST /graphql (SearchMerged)`: the request as an
    error names it (the path only: no query string, no host, no token)."""
    path = urlsplit(url).path or "/"
    query = (body or {}).get("query")
    found = OPERATION.search(query) if isinstance(query, str) else None
    return f"{method} {path} ({found.group(1)})" if found else f"{method} {path}"


def _reset_at(resp: Answer) -> datetime | None:
    value = resp.headers.get("x-ratelimit-reset")
    if value and value.isdigit():
        return datetime.fromtimestamp(int(value), tz=UTC)
    return None


def limit_message(reset_at: datetime | None) -> str:
    """The one line a user sees for a GitHub rate limit."""
    if reset_at is None:
        return "GitHub rate limit reached; try again later"
    return f"GitHub rate limit reached; it resets at {reset_at:%Y-%m-%d %H:%M:%S} UTC"


class GitHubHttp:
    """The one door to GitHub: `get` (REST, ETag-cached) and `graphql` (POST), both retried."""

    def __init__(
        self,
        *,
        api_url: str,
        graphql_url: str,
        token: str | None = None,
        credentials: Credentials | None = None,
        cache: HttpCache | None = None,
        timeout: float = 30.0,
        max_retries: int = 4,
        backoff_base: float = 1.0,
        backoff_cap: float = 30.0,
        max_wait: float = 300.0,
        user_agent: str = "verl-week",
        sleep: Callable[[float], None] = time.sleep,
        observe: Observe | None = None,
    ) -> None:
        self.api_url = api_url.rstrip("/")
        self.graphql_url = graphql_url
        # a GitHub App's installation tokens, or GITHUB_TOKEN as given (None: anonymous REST)
        self.credentials = credentials or (StaticToken(token) if token else None)
        self.has_token = self.credentials is not None
        self.cache = cache
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.max_wait = max_wait
        self.stats = RequestStats()
        self._observe = observe
        # resource → (its window's x-ratelimit-reset, the lowest remaining answered in it)
        self._lowest: dict[str, tuple[str, int]] = {}
        self._lowest_lock = threading.Lock()
        self._sleep = sleep
        self._random = random.SystemRandom()
        self._transport = Transport(
            {
                "User-Agent": user_agent,
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": API_VERSION,
            },
            pool_size=POOL_SIZE,
        )

    def close(self) -> None:
        self._transport.close()
        close_credentials = getattr(self.credentials, "close", None)
        if close_credentials is not None:
            close_credentials()

    # --- public calls -----------------------------------------------------------------

    def url_for(self, path: str, params: dict[str, str | int] | None = None) -> str:
        """The full URL of a REST `path` (or an absolute URL) with `params` encoded."""
        url = path if path.startswith(("http://", "https://")) else f"{self.api_url}{path}"
        return f"{url}?{urlencode(params)}" if params else url

    def get(
        self,
        path: str,
        params: dict[str, str | int] | None = None,
        *,
        cache: bool = True,
        max_age: timedelta | None = None,
        check: Check | None = None,
    ) -> RestPage:
        """GET a REST resource; a cached ETag makes it conditional and a 304 reuses the body.

        `cache=False` skips the cache both ways (for answers the caller keeps elsewhere); with
        `max_age`, an answer cached less than that long ago is used without asking at all.
        `check` looks at the parsed answer (a JSON object unless it says otherwise): one it
        refuses is asked again like a 5xx, and then fails naming the request.
        """
        url = self.url_for(path, params)
        store = self.cache if cache else None
        if store is not None and max_age is not None:
            fresh = store.cache_fresh(url, max_age)
            if fresh is not None:
                self.stats.add(fresh=1)
                return _page_of(fresh, cached=True)
        cached = store.cache_get(url) if store is not None else None
        headers = {"If-None-Match": cached[0]} if cached else {}
        resp, data = self._send("GET", url, headers=headers, check=check or expecting(dict))
        if resp.status_code == NOT_MODIFIED and cached:
            self.stats.add(not_modified=1)
            return _page_of(cached[1], cached=True)
        self._raise_for_status(resp)
        self.stats.add(rate_limit_cost=1)
        next_url = resp.links.get("next", {}).get("url")
        etag = resp.headers.get("etag")
        if store is not None and etag:
            store.cache_put(url, etag, json.dumps({"data": data, "next": next_url}))
        return RestPage(data, next_url)

    def graphql(
        self, query: str, variables: dict[str, Any], *, check: Check | None = None
    ) -> dict[str, Any]:
        """POST one GraphQL query; `data` back, or the first error translated. An answer with
        errors only, or one whose `data` `check` refuses, is asked again like a 5xx."""

        def usable(payload: Any) -> None:
            _graphql_data(payload)
            data = payload.get("data")
            if check is not None and isinstance(data, dict) and not payload.get("errors"):
                check(data)

        body = {"query": query, "variables": variables}
        resp, payload = self._send("POST", self.graphql_url, body=body, check=usable)
        self._raise_for_status(resp)
        data = payload.get("data") or {}
        cost = (data.get("rateLimit") or {}).get("cost")
        if isinstance(cost, int):
            self.stats.add(rate_limit_cost=cost)
        errors = payload.get("errors") or []
        if errors:
            raise _graphql_error(errors[0], _reset_at(resp), describe("POST", resp.url, body))
        return dict(data)

    # --- the retry loop -----------------------------------------------------------------

    def _send(
        self,
        method: str,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        body: dict[str, Any] | None = None,
        check: Check | None = None,
    ) -> tuple[Answer, Any]:
        """The final answer and, for a 2xx one, its JSON as `check` accepted it."""
        host = urlsplit(url).netloc
        renewed = False  # credentials refused once (an expired App token) get one new try
        attempt = 0
        while attempt <= self.max_retries:
            if attempt:
                self.stats.add(retries=1)
            sent = self._with_auth(headers)
            try:
                resp = self._transport.send(
                    method, url, headers=sent, body=body, timeout=self.timeout
                )
            except TransportError as exc:
                if attempt == self.max_retries or not exc.retryable:
                    raise UnreachableError(
                        f"cannot reach GitHub at {host} ({exc.kind}) after {attempt + 1} attempts"
                    ) from None
                self._pause(self._backoff(attempt))
                attempt += 1
                continue
            self._record(resp, graphql=body is not None)
            if not renewed and self._renewed(resp, sent):
                renewed = True
                continue
            delay = self._retry_delay(resp, attempt, graphql=body is not None)
            if delay is None:
                try:
                    return resp, self._accepted(resp, check)
                except MalformedAnswerError as exc:
                    if attempt == self.max_retries:
                        raise UpstreamError(
                            f"GitHub answered {describe(method, url, body)} with {exc} "
                            f"after {attempt + 1} attempts"
                        ) from None
                    delay = self._backoff(attempt)
                    logger.info(
                        operator_text.LOG_GITHUB_RETRY,
                        extra={"malformed": str(exc), "delay": delay},
                    )
                    self._pause(delay)
                    attempt += 1
                    continue
            if attempt == self.max_retries:
                raise self._exhausted(resp, host, attempt + 1)
            logger.info(
                operator_text.LOG_GITHUB_RETRY, extra={"status": resp.status_code, "delay": delay}
            )
            self._pause(delay)
            attempt += 1
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    @staticmethod
    def _accepted(resp: Answer, check: Check | None) -> Any:
        """The JSON of a 2xx answer that `check` accepts (None for other answers)."""
        if check is None or not resp.ok or resp.status_code == NOT_MODIFIED:
            return None
        payload = _body_json(resp)
        try:
            check(payload)
        except MalformedAnswerError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            detail = str(exc)[:MESSAGE_CHARS]
            shape = f"an unexpected shape ({type(exc).__name__}: {detail})"
            raise MalformedAnswerError(shape) from None
        return payload

    def _with_auth(self, headers: dict[str, str] | None) -> dict[str, str]:
        """The request's headers with the Authorization the credentials give now."""
        if self.credentials is None:
            return dict(headers or {})
        return {**(headers or {}), "Authorization": self.credentials.authorization()}

    def _renewed(self, resp: Answer, sent: dict[str, str]) -> bool:
        """A 401 to credentials that can be renewed (an App token that expired): renewed."""
        if resp.status_code != UNAUTHORIZED or self.credentials is None:
            return False
        return self.credentials.refused(sent.get("Authorization", ""))

    def _record(self, resp: Answer, *, graphql: bool) -> None:
        kind = "graphql_requests" if graphql else "rest_requests"
        self.stats.add(requests=1, bytes_downloaded=len(resp.content), **{kind: 1})
        if self._observe is not None:
            headers = resp.headers
            remaining = self._remaining(headers)
            api = "graphql" if graphql else "rest"
            self._observe(api, resp.status_code, remaining, headers.get("x-ratelimit-resource"))

    def _remaining(self, headers: Any) -> str | None:
        """x-ratelimit-remaining, never above what an earlier answer of the same window said:
        answers to concurrent requests arrive in any order."""
        value: str | None = headers.get("x-ratelimit-remaining")
        if value is None or not value.isdigit():
            return value
        resource, reset = (
            headers.get("x-ratelimit-resource", ""),
            headers.get("x-ratelimit-reset", ""),
        )
        with self._lowest_lock:
            seen_reset, seen = self._lowest.get(resource, (reset, int(value)))
            lowest = min(int(value), seen) if seen_reset == reset else int(value)
            self._lowest[resource] = (reset, lowest)
        return str(lowest)

    def _backoff(self, attempt: int) -> float:
        # full jitter: uniform in [0, min(cap, base * 2^attempt)]
        return self._random.uniform(0, min(self.backoff_cap, self.backoff_base * 2**attempt))

    def _pause(self, seconds: float) -> None:
        if seconds > 0:
            self._sleep(seconds)

    def _retry_delay(self, resp: Answer, attempt: int, *, graphql: bool) -> float | None:
        """Seconds to wait before retrying, None when the answer is final (good or bad)."""
        if resp.status_code >= SERVER_ERROR:
            return self._backoff(attempt)
        limited = resp.status_code in LIMIT_STATUSES or (
            graphql
            and resp.ok
            and any(e.get("type") == GRAPHQL_RATE_LIMITED for e in _graphql_errors(resp))
        )
        if not limited:
            return None
        wait = self._limit_wait(resp, attempt)
        if wait is None and resp.ok:  # a GraphQL RATE_LIMITED error without limit headers
            wait = max(MIN_SECONDARY_WAIT, self._backoff(attempt))
        if wait is None:
            return None
        if wait > self.max_wait:
            reset_at = datetime.now(UTC) + timedelta(seconds=wait)
            if not resp.headers.get("retry-after"):
                reset_at = _reset_at(resp) or reset_at
            raise RateLimitError(limit_message(reset_at), reset_at)
        return wait

    def _limit_wait(self, resp: Answer, attempt: int) -> float | None:
        """Seconds a rate-limited answer asks us to wait (platform-facts §1.5), else None."""
        retry_after = resp.headers.get("retry-after", "")
        if retry_after.isdigit():
            return float(retry_after)
        if resp.headers.get("x-ratelimit-remaining") == "0":
            reset_at = _reset_at(resp)
            if reset_at is None:
                return MIN_SECONDARY_WAIT
            return max(0.0, reset_at.timestamp() - time.time()) + RESET_SLACK
        if resp.status_code == TOO_MANY_REQUESTS or "rate limit" in _message(resp).lower():
            return max(MIN_SECONDARY_WAIT, self._backoff(attempt))
        return None

    def _exhausted(self, resp: Answer, host: str, attempts: int) -> Exception:
        if resp.status_code >= SERVER_ERROR:
            return UnreachableError(
                f"GitHub at {host} kept answering {resp.status_code} after {attempts} attempts"
            )
        return RateLimitError(limit_message(_reset_at(resp)), _reset_at(resp))

    def _raise_for_status(self, resp: Answer) -> None:
        status = resp.status_code
        if status < BAD_REQUEST:
            return
        path = urlsplit(resp.url).path
        if status == UNAUTHORIZED:
            hint = self.credentials.hint if self.credentials else "set GITHUB_TOKEN"
            raise AuthRefusedError(TOKEN_REFUSED.format(hint=hint))
        if status == FORBIDDEN:
            raise AuthRefusedError(f"GitHub refused access to {path} (403): {_message(resp)}")
        if status == NOT_FOUND:
            raise NotFoundError(f"GitHub has no {path} (404)")
        raise UpstreamError(f"GitHub answered {status} for {path}: {_message(resp)}")


def _graphql_error(error: dict[str, Any], reset_at: datetime | None, request: str) -> Exception:
    kind = error.get("type")
    message = str(error.get("message", ""))[:MESSAGE_CHARS]
    if kind == GRAPHQL_RATE_LIMITED:
        return RateLimitError(limit_message(reset_at), reset_at)
    if kind == GRAPHQL_NOT_FOUND:
        return NotFoundError(f"GitHub: {message}")
    if kind == GRAPHQL_FORBIDDEN:
        return AuthRefusedError(f"GitHub refused the query: {message}")
    return UpstreamError(f"GitHub GraphQL error on {request}: {message}")
