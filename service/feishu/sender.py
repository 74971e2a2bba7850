"""FeishuSender: the weekly card through the app bot (im/v1 messages create, PATCH on update).

Implements delivery.Sender for platform "feishu"; a target is a chat id (`oc_…`). The store's
idempotency key is sent as Feishu's `uuid`, so even a lost answer is not posted twice within
the hour Feishu remembers it (§3.3).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import requests

from service.core.models import Digest
from service.feishu.api import FeishuApi
from service.feishu.auth import TenantTokenCache
from service.render import feishu as render
from service.render import links
from service.render.feishu_limits import Via, feishu_violations

logger = logging.getLogger(__name__)

ReportUrl = Callable[[Digest], str]
DEFAULT_TIMEOUT_SECONDS = 10.0


def report_url_for(
    public_base_url: str, report_url: Callable[[str, str], str] | None = None
) -> ReportUrl:
    """The full report page of a digest (through `report_url(repo, week)` when given: the
    signed links of REPORTS_ACCESS)."""
    if report_url is not None:
        return lambda digest: report_url(digest.repo, digest.period)
    return lambda digest: links.report_url(public_base_url, digest.repo, digest.period)


def check_card(card: dict[str, Any], *, via: Via, target: str) -> None:
    """Log (never raise) a limit violation: the fitted card is sent anyway (style B8)."""
    problems = feishu_violations(card, via=via)
    if problems:
        logger.error("feishu card breaks limits", extra={"target": target, "problems": problems})


class FeishuSender:
    """Posts and edits the weekly card in Feishu/Lark group chats as the app bot."""

    platform = "feishu"
    can_confirm = True  # a re-post with the same uuid is dropped by Feishu (within the hour)

    def __init__(
        self,
        *,
        base_url: str,
        app_id: str,
        app_secret: str,
        public_base_url: str,
        language: str,
        session: requests.Session | None = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        report_url: Callable[[str, str], str] | None = None,
    ) -> None:
        tokens = TenantTokenCache(
            base_url=base_url,
            app_id=app_id,
            app_secret=app_secret,
            session=session,
            timeout=timeout,
        )
        self.api = FeishuApi(tokens, timeout=timeout)
        self.report_url = report_url_for(public_base_url, report_url)
        self.language = language

    def _card(self, target: str, digest: Digest, language: str | None) -> dict[str, Any]:
        card = render.render_digest(
            digest, report_url=self.report_url(digest), lang=language or self.language, via="app"
        )
        check_card(card, via="app", target=target)
        return card

    def post(
        self, target: str, digest: Digest, *, idempotency_key: str, language: str | None = None
    ) -> str:
        """Post the card to chat `target`; returns the message id (`om_…`)."""
        card = self._card(target, digest, language)
        return self.api.create_card(target, card, uuid=idempotency_key)

    def update(
        self, target: str, message_id: str, digest: Digest, *, language: str | None = None
    ) -> str:
        """Replace the posted card in place (PATCH); the message id stays."""
        return self.api.patch_card(message_id, self._card(target, digest, language))

    def find_posted(self, target: str, idempotency_key: str) -> str | None:
        """Feishu can't look a message up by uuid; a re-post with the same uuid is dropped by
        Feishu itself within the hour, so None is safe."""
        return None
