"""SlackSender: posts and edits the weekly card through the Slack Web API (slack_sdk WebClient).

Talks to SLACK_API_URL: chat.postMessage (with message metadata carrying the idempotency key),
chat.update, conversations.join (once, on not_in_channel) and conversations.history (to find a
card a crashed run posted but never recorded). SDK exceptions stop here: every failure leaves as
a service.errors exception naming the channel and Slack's error code.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from service.core.models import Digest
from service.errors import PlatformRejectedError, RateLimitError, UnreachableError
from service.render import links
from service.render.limits import slack_violations
from service.render.slack import SlackMessage, render_digest

logger = logging.getLogger(__name__)

METADATA_EVENT = "verl_week_digest"
HISTORY_LIMIT = 50  # conversations.history page: the card is among the channel's latest posts
DEFAULT_RETRIES = 2
DEFAULT_TIMEOUT = 10
HTTP_TOO_MANY = 429


class SlackMethod(StrEnum):
    POST = "chat.postMessage"
    UPDATE = "chat.update"
    JOIN = "conversations.join"
    HISTORY = "conversations.history"


class SlackErrorCode(StrEnum):
    NOT_IN_CHANNEL = "not_in_channel"
    MISSING_SCOPE = "missing_scope"
    RATELIMITED = "ratelimited"


def build_web_client(
    token: str, api_url: str, *, max_retries: int = DEFAULT_RETRIES, timeout: int = DEFAULT_TIMEOUT
) -> WebClient:
    """A WebClient on `api_url` that also retries 429s after Retry-After (bounded)."""
    client = WebClient(token=token, base_url=api_url, timeout=timeout)
    # slack_sdk retries only connection errors by default (platform-facts §2.5)
    client.retry_handlers.append(RateLimitErrorRetryHandler(max_retry_count=max_retries))
    return client


def message_id(channel: str, ts: str) -> str:
    """Our message id for Slack: `channel_id:ts` (chat.update needs both)."""
    return f"{channel}:{ts}"


def split_message_id(value: str, fallback_channel: str) -> tuple[str, str]:
    channel, sep, ts = value.partition(":")
    return (channel, ts) if sep else (fallback_channel, value)


def _error_code(exc: SlackApiError) -> str:
    return str(exc.response.get("error") or "unknown_error")


def _retry_after(exc: SlackApiError) -> datetime | None:
    value = exc.response.headers.get("Retry-After") or exc.response.headers.get("retry-after")
    if value is None or not str(value).isdigit():
        return None
    return datetime.now(UTC) + timedelta(seconds=int(value))


def translate(exc: SlackClientError | OSError, channel: str, method: SlackMethod) -> Exception:
    """A slack_sdk error as the service error it means (the SDK's type stops here)."""
    if isinstance(exc, SlackApiError):
        code = _error_code(exc)
        if exc.response.status_code == HTTP_TOO_MANY or code == SlackErrorCode.RATELIMITED:
            return RateLimitError(
                f"Slack rate limit on {method} to {channel}", reset_at=_retry_after(exc)
            )
        return PlatformRejectedError(f"Slack rejected the post to {channel}: {code}", code=code)
    return UnreachableError(f"Slack could not be reached ({method} to {channel})")


class SlackSender:
    """The delivery.Sender of platform "slack"; `target` is a channel id."""

    platform = "slack"
    can_confirm = True  # find_posted reads the channel history for the key in the metadata

    def __init__(
        self,
        client: WebClient,
        *,
        public_base_url: str,
        language: str,
        report_url: Callable[[str, str], str] | None = None,
    ) -> None:
        self.client = client
        self.public_base_url = public_base_url
        self.language = language
        self._report_url = report_url

    def report_url(self, repo: str, period: str) -> str:
        if self._report_url is not None:
            return self._report_url(repo, period)
        return links.report_url(self.public_base_url, repo, period)

    def render(self, digest: Digest, language: str | None = None) -> SlackMessage:
        message = render_digest(
            digest,
            report_url=self.report_url(digest.repo, digest.period),
            lang=language or self.language,
        )
        problems = slack_violations(message)
        if problems:
            logger.error("slack card breaks limits", extra={"violations": problems[:10]})
        return message

    @staticmethod
    def metadata(digest: Digest, key: str) -> dict[str, Any]:
        payload = {"key": key, "repo": digest.repo, "week": digest.period}
        return {"event_type": METADATA_EVENT, "event_payload": payload}

    def _call(self, method: SlackMethod, where: str, /, **kwargs: Any) -> dict[str, Any]:
        try:
            response = self.client.api_call(method.value, json=kwargs)
        except (SlackClientError, OSError) as exc:  # URLError/timeouts are OSError
            raise translate(exc, where, method) from exc
        return dict(response.data) if isinstance(response.data, dict) else {}

    def post(
        self, target: str, digest: Digest, *, idempotency_key: str, language: str | None = None
    ) -> str:
        """chat.postMessage the card; on not_in_channel join the channel and retry once."""
        message = self.render(digest, language)
        fields = {
            "channel": target,
            "text": message.text,
            "blocks": message.blocks,
            "metadata": self.metadata(digest, idempotency_key),
            "unfurl_links": False,
            "unfurl_media": False,
        }
        try:
            data = self._call(SlackMethod.POST, target, **fields)
        except PlatformRejectedError as exc:
            if exc.code != SlackErrorCode.NOT_IN_CHANNEL:
                raise
            self._call(SlackMethod.JOIN, target, channel=target)
            data = self._call(SlackMethod.POST, target, **fields)
        return message_id(str(data.get("channel") or target), str(data["ts"]))

    def update(
        self, target: str, message_id_: str, digest: Digest, *, language: str | None = None
    ) -> str:
        """chat.update the earlier card in place (regenerate, --force)."""
        channel, ts = split_message_id(message_id_, target)
        message = self.render(digest, language)
        # no metadata: chat.update keeps the message's metadata (and so its idempotency key)
        data = self._call(
            SlackMethod.UPDATE,
            channel,
            channel=channel,
            ts=ts,
            text=message.text,
            blocks=message.blocks,
        )
        return message_id(str(data.get("channel") or channel), str(data.get("ts") or ts))

    def find_posted(self, target: str, idempotency_key: str) -> str | None:
        """The card posted with this key among the channel's latest messages, if any."""
        try:
            response = self.client.conversations_history(
                channel=target, limit=HISTORY_LIMIT, include_all_metadata=True
            )
        except SlackApiError as exc:
            code = _error_code(exc)
            if code in (SlackErrorCode.NOT_IN_CHANNEL, SlackErrorCode.MISSING_SCOPE):
                logger.warning(
                    "cannot read channel history", extra={"channel": target, "error": code}
                )
                return None
            raise translate(exc, target, SlackMethod.HISTORY) from exc
        except (SlackClientError, OSError) as exc:
            raise translate(exc, target, SlackMethod.HISTORY) from exc
        for item in response.get("messages") or []:
            meta = item.get("metadata") or {}
            payload = meta.get("event_payload") or {}
            if meta.get("event_type") == METADATA_EVENT and payload.get("key") == idempotency_key:
                return message_id(target, str(item["ts"]))
        return None
