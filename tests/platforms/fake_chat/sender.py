"""The fake platform's sender: the delivery.Sender protocol over its HTTP API (requests)."""

from __future__ import annotations

from collections.abc import Callable

import requests

from service.core.models import Digest
from service.errors import PlatformRejectedError
from tests.platforms.fake_chat.render import render_digest

TIMEOUT = 10


class FakeChatSender:
    platform = "fake-chat"
    can_confirm = True  # GET /messages?key=… finds a card posted before a crash

    def __init__(
        self,
        api_url: str,
        token: str,
        language: str,
        report_url: Callable[[str, str], str] | None,
    ) -> None:
        self.api_url = api_url.rstrip("/")
        self.session = requests.Session()
        self.session.headers["authorization"] = f"Bearer {token}"
        self.language = language
        self.report_url = report_url or (lambda repo, week: f"/reports/{repo}/{week}")

    def _card(self, digest: Digest, language: str | None) -> dict[str, object]:
        url = self.report_url(digest.repo, digest.period)
        return render_digest(digest, url, language or self.language)

    def post(
        self, target: str, digest: Digest, *, idempotency_key: str, language: str | None = None
    ) -> str:
        body = {"room": target, "key": idempotency_key, **self._card(digest, language)}
        return self._check(
            self.session.post(f"{self.api_url}/messages", json=body, timeout=TIMEOUT)
        )

    def update(
        self, target: str, message_id: str, digest: Digest, *, language: str | None = None
    ) -> str:
        url = f"{self.api_url}/messages/{message_id}"
        self._check(self.session.patch(url, json=self._card(digest, language), timeout=TIMEOUT))
        return message_id

    def find_posted(self, target: str, idempotency_key: str) -> str | None:
        found = self.session.get(
            f"{self.api_url}/messages", params={"key": idempotency_key}, timeout=TIMEOUT
        )
        ids = found.json().get("ids") or []
        return str(ids[0]) if ids else None

    @staticmethod
    def _check(response: requests.Response) -> str:
        payload = response.json()
        if response.status_code != 200 or not payload.get("ok"):
            error = str(payload.get("error"))
            raise PlatformRejectedError(f"fake-chat refused the card: {error}", code=error)
        return str(payload["id"])
