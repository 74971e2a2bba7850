"""WebhookSender against the fake custom bot, which checks the sign exactly as documented."""

from __future__ import annotations

import json

import pytest

from service.core.models import Digest
from service.errors import PlatformRejectedError
from service.feishu.webhook import WebhookSender
from service.render.feishu_limits import iter_components
from tests.fakes.feishu import FakeFeishu, serve_feishu
from tests.feishu.conftest import PUBLIC_BASE_URL


def webhook(feishu: FakeFeishu, secret: str | None) -> WebhookSender:
    return WebhookSender(
        url=feishu.hook_url, secret=secret, public_base_url=PUBLIC_BASE_URL, language="zh"
    )


def test_signed_card_is_accepted(feishu: FakeFeishu, zh_digests: dict[str, Digest]) -> None:
    marker = webhook(feishu, "hook-sign-secret").post(
        "feishu", zh_digests["2025-W48"], idempotency_key="k"
    )
    assert marker.startswith("webhook-")
    body = feishu.api.requests[-1].json()
    assert set(body) == {"timestamp", "sign", "msg_type", "card"}
    assert body["timestamp"].isdigit()
    assert len(feishu.hook_cards) == 1
    assert feishu.violations == []


def test_wrong_secret_is_rejected_with_the_sign_code(
    feishu: FakeFeishu, zh_digests: dict[str, Digest]
) -> None:
    with pytest.raises(PlatformRejectedError) as info:
        webhook(feishu, "not-the-secret").post(
            "feishu", zh_digests["2025-W48"], idempotency_key="k"
        )
    assert info.value.code == "19021"
    assert feishu.hook_cards == []


def test_unsigned_post_when_no_secret_is_configured(zh_digests: dict[str, Digest]) -> None:
    with serve_feishu(hook_secret=None) as fake:
        webhook(fake, None).post("feishu", zh_digests["2026-W04"], idempotency_key="k")
        assert "sign" not in fake.api.requests[-1].json()
        assert len(fake.hook_cards) == 1


def test_webhook_cards_have_only_the_link_button(
    feishu: FakeFeishu, zh_digests: dict[str, Digest]
) -> None:
    webhook(feishu, "hook-sign-secret").post("feishu", zh_digests["2025-W48"], idempotency_key="k")
    buttons = [c for c in iter_components(feishu.hook_cards[0]) if c.get("tag") == "button"]
    assert [b["behaviors"][0]["type"] for b in buttons] == ["open_url"]
    assert buttons[0]["behaviors"][0]["default_url"] == (
        f"{PUBLIC_BASE_URL}/reports/volcengine/verl/2025-W48"
    )


def test_update_posts_a_fresh_card(feishu: FakeFeishu, zh_digests: dict[str, Digest]) -> None:
    sender = webhook(feishu, "hook-sign-secret")
    first = sender.post("feishu", zh_digests["2026-W04"], idempotency_key="k")
    second = sender.update("feishu", first, zh_digests["2026-W04"])
    assert second != first
    assert len(feishu.hook_cards) == 2
    assert sender.find_posted("feishu", "k") is None


def test_wrong_hook_token_is_rejected(zh_digests: dict[str, Digest]) -> None:
    with serve_feishu() as fake:
        sender = WebhookSender(
            url=fake.url + "/open-apis/bot/v2/hook/other",
            secret=None,
            public_base_url=PUBLIC_BASE_URL,
            language="en",
        )
        with pytest.raises(PlatformRejectedError) as info:
            sender.post("feishu", zh_digests["2026-W04"], idempotency_key="k")
        assert info.value.code == "19001"
        assert json.loads(fake.api.requests[-1].body)["msg_type"] == "interactive"
