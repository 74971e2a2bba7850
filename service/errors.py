"""The exception tree of verl-week and the exit code each kind maps to.

ServiceError                        base; a one-line English message (CLI, logs) and, for the
                                    errors a chat answer tells, a catalog key with its parameters
├── InputError                      exit 2: bad --week, bad repo syntax, bad command text
├── ConfigError                     exit 2: a setting is invalid (named in the message)
└── UpstreamError                   exit 1: the user can't fix it by retyping
    ├── RateLimitError(reset_at)    GitHub primary/secondary limit, Slack 429, Feishu limit code
    ├── AuthRefusedError            401/403 token refused, Feishu token invalid
    ├── NotFoundError               404 repo / PR
    ├── UnreachableError            DNS, connect, timeout after bounded retries
    ├── PlatformRejectedError(code) Slack ok:false, Feishu code != 0 (the code kept)
    ├── UnconfirmedSendError        a send went out and its answer never came (read timeout)
    ├── StoreError                  the database refused an operation (constraint, permission)
    │   └── StoreUnavailableError   the database is missing, unreadable or locked
    │       └── SchemaTooNewError   a newer verl-week migrated the database past this code
    └── ModelError                  the optional language model gave no usable answer in time
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2


class ServiceError(Exception):
    """Base of every error we raise on purpose; `str(err)` is fit to show an operator (CLI,
    logs). `key`/`params` word it for a chat user in the user's language (templates/strings);
    "" when the error has no catalog sentence of its own (then its class words it)."""

    exit_code = EXIT_FAILURE

    def __init__(
        self, message: str, *, key: str = "", params: Mapping[str, str | int] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.key = key
        self.params: dict[str, str | int] = dict(params or {})


class InputError(ServiceError):
    """The user typed something we can't use."""

    exit_code = EXIT_BAD_INPUT


class ConfigError(ServiceError):
    """A setting is invalid; the message names it and what is expected."""

    exit_code = EXIT_BAD_INPUT


class UpstreamError(ServiceError):
    """GitHub, Slack, Feishu or the database failed in a way retyping won't fix."""


class RateLimitError(UpstreamError):
    """An API rate limit; `reset_at` is when it lifts, if the API said."""

    def __init__(self, message: str, reset_at: datetime | None = None) -> None:
        super().__init__(message)
        self.reset_at = reset_at


class AuthRefusedError(UpstreamError):
    """A token or signature was refused."""


class NotFoundError(UpstreamError):
    """A repository, pull request or message does not exist."""


class UnreachableError(UpstreamError):
    """The network failed after the bounded retries."""


class PlatformRejectedError(UpstreamError):
    """A platform answered with an error code (Slack `ok: false`, Feishu `code != 0`)."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


class UnconfirmedSendError(UpstreamError):
    """A request went out and no answer came back: the platform may or may not have acted."""


class StoreError(UpstreamError):
    """The database failed an operation; the message names the database's own reason."""


class StoreUnavailableError(StoreError):
    """The database can't be opened or is locked beyond the busy timeout."""


class SchemaTooNewError(StoreUnavailableError):
    """The database's schema revision is unknown to this code: a newer version migrated it."""


class ModelError(UpstreamError):
    """The language model gave no usable answer: none within LLM_TIMEOUT_SECONDS, the server
    refused (key, model, request), or the answer is not JSON for the schema. The week goes out
    with the deterministic text."""
