"""Logging set-up: text or JSON lines, a request id per request, and secrets masked everywhere."""

from __future__ import annotations

import json
import logging
import re
import secrets
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, Literal, TextIO

NO_REQUEST = "-"
MASK = "***"
REQUEST_ID_BYTES = 8
TRACE_INDENT = "  "
request_id_var: ContextVar[str] = ContextVar("verl_week_request_id", default=NO_REQUEST)

# Shapes of credentials we may meet: Slack (xoxb-, xoxp-, xapp-), GitHub (ghp_, gho_, ghs_,
# github_pat_), OpenAI-style sk-, Feishu tenant/app tokens (t-, a-, u-), bearer headers,
# passwords inside URLs and `secret=...`-style pairs.
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{6,}"), MASK),
    (re.compile(r"\bxapp-[A-Za-z0-9-]{6,}"), MASK),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{10,}"), MASK),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{10,}"), MASK),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{16,}"), MASK),
    # a GitHub App's JWT (base64url header.claims.signature) and its PEM private key
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), MASK),
    (
        re.compile(
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)", re.S
        ),
        MASK,
    ),
    (re.compile(r"\b[tau]-[A-Za-z0-9]{24,}"), MASK),
    (re.compile(r"(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{8,}"), rf"\1 {MASK}"),
    (re.compile(r"(?i)(://[^/\s:@]+:)[^@\s/]+@"), rf"\1{MASK}@"),
    # URLs whose path is the credential: Feishu/Lark custom-bot webhooks, Slack response_urls
    # (hooks.slack.com/commands|actions/TEAM/ID/SECRET) and incoming webhooks (services/T/B/X),
    # as urllib3 and slack_sdk print them at DEBUG
    (re.compile(r"(/open-apis/bot/v2/hook/)[^\s\"'?#/]+"), rf"\1{MASK}"),
    (re.compile(r"(/(?:commands|actions)/[A-Za-z0-9]+/[0-9]+/)[A-Za-z0-9]+"), rf"\1{MASK}"),
    (re.compile(r"(/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/)[A-Za-z0-9]+"), rf"\1{MASK}"),
    (
        re.compile(
            r"(?i)\b([a-z_]*(?:secret|token|password|passwd|api_key|apikey|signature)[a-z_]*"
            r"[\"']?\s*[=:]\s*[\"']?)[^\s\"'&,;}]{4,}"
        ),
        rf"\1{MASK}",
    ),
)


def redact(text: str) -> str:
    """`text` with anything that looks like a token, secret or URL password masked."""
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def new_request_id() -> str:
    return secrets.token_hex(REQUEST_ID_BYTES)


def current_request_id() -> str:
    """The id of the request being handled in this context, or "-" outside a request."""
    return request_id_var.get()


@contextmanager
def bound_request_id(value: str) -> Iterator[str]:
    """Bind `value` as the request id for the duration of the block."""
    token = request_id_var.set(value)
    try:
        yield value
    finally:
        request_id_var.reset(token)


class RequestIdFilter(logging.Filter):
    """Adds `record.request_id` from the context (so every line of a request carries it)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = current_request_id()
        return True


class RedactionFilter(logging.Filter):
    """Masks secrets in the message and its arguments before any handler formats them."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            message = str(record.msg)
        record.msg = redact(message)
        record.args = None
        return True


# Attributes every LogRecord has; anything else came in through `extra=`. uvicorn passes its
# message again with ANSI colours as `color_message` (for its own console formatter): dropped.
_STANDARD = frozenset(vars(logging.makeLogRecord({}))) | {
    "message",
    "asctime",
    "request_id",
    "color_message",
}


def _extras(record: logging.LogRecord) -> dict[str, Any]:
    return {k: v for k, v in vars(record).items() if k not in _STANDARD and not k.startswith("_")}


# Line breaks and terminal escapes in a message or an extra (a request path, a header) would let
# a request write a line of its own into a text log, or recolour a terminal: shown escaped.
_LINE_FORGERS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_log_line(text: str) -> str:
    """`text` with CR, LF, ESC and the other control characters written as escapes."""
    return _LINE_FORGERS.sub(lambda m: repr(m.group(0))[1:-1], text)


class TextFormatter(logging.Formatter):
    """`time level logger [request id] message key=value…`, one line per record (a traceback
    follows on its own lines), redacted as a whole."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        record.message = one_log_line(record.message)
        return super().formatMessage(record)

    def format(self, record: logging.LogRecord) -> str:
        head, _, trace = super().format(record).partition("\n")
        extras = " ".join(f"{k}={one_log_line(str(v))}" for k, v in _extras(record).items())
        line = f"{head} {extras}" if extras else head
        if trace:  # indented, so no line of it (an exception's message) starts like a record
            line += "\n" + "\n".join(TRACE_INDENT + part for part in trace.split("\n"))
        return redact(line)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, request_id, message, extras, exc."""

    def format(self, record: logging.LogRecord) -> str:
        payload: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "request_id": getattr(record, "request_id", current_request_id()),
            "message": record.getMessage(),
        }
        payload.update(_extras(record))
        if record.exc_info:
            payload["exc"] = self.formatException(record.exc_info)
        return redact(json.dumps(payload, ensure_ascii=False, default=str))


def build_handler(
    log_format: Literal["text", "json"] = "text", stream: TextIO | None = None
) -> logging.Handler:
    """A stream handler with the request-id and redaction filters and the chosen format."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.addFilter(RequestIdFilter())
    handler.addFilter(RedactionFilter())
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    return handler


def setup_logging(
    log_format: Literal["text", "json"] = "text",
    level: str = "INFO",
    stream: TextIO | None = None,
) -> logging.Handler:
    """Route the root logger (and uvicorn's and APScheduler's) through one redacting handler."""
    handler = build_handler(log_format, stream)
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "apscheduler"):
        logger = logging.getLogger(name)
        logger.handlers = []
        logger.setLevel(logging.NOTSET)  # the root level decides, whatever uvicorn set before
        logger.propagate = True
    # Alembic narrates every schema check at INFO; service.store.schema logs the upgrades
    logging.getLogger("alembic").setLevel(max(logging.WARNING, root.level))
    return handler
