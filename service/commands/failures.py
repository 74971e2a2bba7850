"""Why something failed, as a catalog sentence a chat user reads in their language.

An error that knows its own catalog sentence (`ServiceError.key`) says it; any other is worded
by its class (the English `message` stays for the CLI and the logs, never for a chat answer).
"""

from __future__ import annotations

from service.commands.kinds import Sentence
from service.errors import (
    AuthRefusedError,
    ConfigError,
    InputError,
    ModelError,
    NotFoundError,
    PlatformRejectedError,
    RateLimitError,
    ServiceError,
    StoreError,
    StoreUnavailableError,
    UnconfirmedSendError,
    UnreachableError,
    UpstreamError,
)

# most specific class first: the first match words the error
REASON_KEYS: tuple[tuple[type[ServiceError], str], ...] = (
    (RateLimitError, "cmd.reason.rate_limited"),
    (AuthRefusedError, "cmd.reason.auth_refused"),
    (NotFoundError, "cmd.reason.not_found"),
    (UnreachableError, "cmd.reason.unreachable"),
    (PlatformRejectedError, "cmd.reason.platform_rejected"),
    (UnconfirmedSendError, "cmd.reason.unconfirmed"),
    (StoreUnavailableError, "cmd.reason.store_unavailable"),
    (StoreError, "cmd.reason.store"),
    (ModelError, "cmd.reason.model"),
    (InputError, "cmd.reason.input"),
    (ConfigError, "cmd.reason.config"),
    (UpstreamError, "cmd.reason.upstream"),
)
FALLBACK_REASON = "cmd.reason.service"
# regenerate asked of a server that has no pipeline to rebuild with
NOT_CONFIGURED_REASON = "cmd.reason.not_configured"


def reason(exc: ServiceError | None) -> Sentence:
    """The sentence that says why `exc` happened (None: the service could not say)."""
    if exc is None:
        return Sentence(key=FALLBACK_REASON)
    if exc.key:
        return Sentence(key=exc.key, params=exc.params)
    key = next((k for cls, k in REASON_KEYS if isinstance(exc, cls)), FALLBACK_REASON)
    return Sentence(key=key)
