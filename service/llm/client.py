"""One structured chat completion from an OpenAI-compatible server, with the official `openai`
client pointed at LLM_BASE_URL.

Timeouts, connection errors, 429 and 5xx are retried until one deadline, LLM_TIMEOUT_SECONDS
after the first try (the client's own retries are off: they know no deadline). A server that
takes no `json_schema` response format (DeepSeek, older vLLM) gets `json_object` instead; the
prompt carries the schema either way. Every `openai` exception stops here as a ModelError whose
message never holds the key.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import openai

from service.errors import ModelError
from service.llm.completion import Completion

BACKOFF_SECONDS = 1.0
BACKOFF_MAX_SECONDS = 16.0
JITTER = 0.25
# a local server (vLLM, SGLang) often runs without a key; the client insists on one
NO_KEY = "not-needed"
JSON_OBJECT = {"type": "json_object"}
_FORMAT_WORDS = ("response_format", "json_schema", "guided", "structured")
HTTP_SERVER_ERROR = 500


def _retry_after(exc: openai.APIStatusError) -> float | None:
    value = exc.response.headers.get("retry-after")
    try:
        return max(float(value), 0.0) if value is not None else None
    except ValueError:
        return None


def _about_format(exc: openai.BadRequestError) -> bool:
    """Whether a 400 says the server does not take this response format."""
    text = f"{exc.message} {exc.body}".lower()
    return any(word in text for word in _FORMAT_WORDS)


class ModelClient:
    """Chat completions for one model; `complete` returns a Completion or raises ModelError."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None,
        model: str,
        timeout_seconds: float,
        max_tokens: int | None = None,
        setting: str = "LLM_TIMEOUT_SECONDS",
        backoff_seconds: float = BACKOFF_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.model = model
        self.timeout_seconds = timeout_seconds
        self.max_tokens = max_tokens
        self.setting = setting  # the deadline's name, in the error
        self._backoff = backoff_seconds
        self._clock = clock
        self._sleep = sleep
        self._client = openai.OpenAI(
            base_url=base_url, api_key=api_key or NO_KEY, max_retries=0, timeout=timeout_seconds
        )

    def complete(
        self, messages: list[dict[str, str]], response_format: dict[str, Any]
    ) -> Completion:
        """One answer to `messages` in `response_format`, within the deadline."""
        deadline = self._clock() + self.timeout_seconds
        fmt = response_format
        attempt = 0
        why = "no attempt"
        while (remaining := deadline - self._clock()) > 0:
            try:
                return self._call(messages, fmt, remaining)
            except openai.BadRequestError as exc:
                if fmt is JSON_OBJECT or not _about_format(exc):
                    reason = f"the model server refused the request (400): {exc.message}"
                    raise ModelError(reason) from None
                fmt = JSON_OBJECT
                continue
            except openai.APITimeoutError:
                why = "timed out"
                wait = None
            except openai.APIConnectionError:
                why = "could not connect"
                wait = None
            except openai.APIStatusError as exc:
                why, wait = self._status(exc)
            attempt += 1
            self._pause(wait, attempt, deadline)
        raise ModelError(f"no answer within {self.setting}={self.timeout_seconds:g} ({why})")

    def _call(
        self, messages: list[dict[str, str]], fmt: dict[str, Any], remaining: float
    ) -> Completion:
        bound = {} if self.max_tokens is None else {"max_tokens": self.max_tokens}
        response = self._client.chat.completions.create(  # type: ignore[call-overload]
            model=self.model, messages=messages, response_format=fmt, timeout=remaining, **bound
        )
        if not response.choices:
            raise ModelError("the model server answered without a choice")
        content = response.choices[0].message.content or ""
        usage = response.usage
        return Completion(
            content=content,
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
        )

    def _status(self, exc: openai.APIStatusError) -> tuple[str, float | None]:
        """Why a status error is retried and how long the server asked us to wait; errors
        retrying can't fix (401, 403, 404, 422 …) raise at once."""
        status = exc.status_code
        if status in (401, 403):
            raise ModelError(f"the model server refused LLM_API_KEY ({status})") from None
        if status == 404:  # noqa: PLR2004 - HTTP status
            raise ModelError(f"LLM_MODEL {self.model!r} or LLM_BASE_URL not found (404)") from None
        if status in (408, 409, 429) or status >= HTTP_SERVER_ERROR:
            return f"HTTP {status}", _retry_after(exc)
        raise ModelError(f"the model server answered HTTP {status}") from None

    def _pause(self, wait: float | None, attempt: int, deadline: float) -> None:
        if wait is None:
            wait = min(self._backoff * 2 ** (attempt - 1), BACKOFF_MAX_SECONDS)
            wait *= 1 + random.uniform(-JITTER, JITTER)  # noqa: S311 - jitter, not crypto
        self._sleep(max(min(wait, deadline - self._clock()), 0.0))
