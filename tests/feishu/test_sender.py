"""FeishuSender and FeishuApi against the fake open platform: cards, uuid, PATCH, token expiry,
error translation, and idempotent delivery across processes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import cast

import pytest

from service.core.models import Digest
from service.delivery.outbox import DeliveryLog, deliver
from service.errors import AuthRefusedError, PlatformRejectedError, RateLimitError
from service.feishu.sender import FeishuSender
from service.store.repository import Store
from tests.fakes.feishu import TOKEN_PATH, FakeFeishu
from tests.feishu.conftest import PUBLIC_BASE_URL

ROOT = Path(__file__).resolve().parents[2]


def as_log(store: Store) -> DeliveryLog:
    # Store satisfies DeliveryLog at run time; its frozen DeliveryRecord has read-only fields,
    # which mypy does not match against the protocol's plain attributes.
    return cast("DeliveryLog", store)


def test_post_sends_an_interactive_card_with_uuid(
    feishu: FakeFeishu, sender: FeishuSender, zh_digests: dict[str, Digest]
) -> None:
    digest = zh_digests["2025-W48"]
    message_id = sender.post("oc_group1", digest, idempotency_key="key-1")
    posted = feishu.messages[message_id]
    assert posted.chat_id == "oc_group1"
    assert posted.uuid == "key-1"
    assert posted.card["schema"] == "2.0"
    assert posted.card["header"]["title"]["content"].startswith("volcengine/verl")
    call = feishu.api.calls("POST", "/open-apis/im/v1/messages")[0]
    assert call.header("authorization") == "Bearer t-0000"
    assert json.loads(call.json()["content"]) == posted.card  # content is a JSON string
    assert feishu.violations == []


def test_same_uuid_is_posted_once(
    feishu: FakeFeishu, sender: FeishuSender, zh_digests: dict[str, Digest]
) -> None:
    first = sender.post("oc_group1", zh_digests["2026-W04"], idempotency_key="same")
    second = sender.post("oc_group1", zh_digests["2026-W04"], idempotency_key="same")
    assert first == second
    assert len(feishu.posted("oc_group1")) == 1


def test_update_patches_the_card_in_place(
    feishu: FakeFeishu, sender: FeishuSender, zh_digests: dict[str, Digest]
) -> None:
    message_id = sender.post("oc_group1", zh_digests["2026-W03"], idempotency_key="k")
    assert sender.update("oc_group1", message_id, zh_digests["2026-W04"]) == message_id
    message = feishu.messages[message_id]
    assert len(message.versions) == 1
    assert "2026-W04" in message.card["header"]["title"]["content"]
    assert feishu.api.calls("PATCH", f"/open-apis/im/v1/messages/{message_id}")


def test_token_is_cached_across_calls(
    feishu: FakeFeishu, sender: FeishuSender, zh_digests: dict[str, Digest]
) -> None:
    for key in ("a", "b", "c"):
        sender.post("oc_group1", zh_digests["2026-W04"], idempotency_key=key)
    assert feishu.token_fetches() == 1


def test_expired_token_is_refreshed_mid_run(
    feishu: FakeFeishu, sender: FeishuSender, zh_digests: dict[str, Digest]
) -> None:
    sender.post("oc_group1", zh_digests["2026-W03"], idempotency_key="before")
    feishu.expire_token()
    sender.post("oc_group2", zh_digests["2026-W04"], idempotency_key="after")
    assert feishu.token_fetches() == 2
    assert len(feishu.posted()) == 2
    auth = [
        c.header("authorization") for c in feishu.api.calls("POST", "/open-apis/im/v1/messages")
    ]
    assert auth == ["Bearer t-0000", "Bearer t-0000", "Bearer t-0001"]  # refused once, retried


def test_bad_app_secret_is_auth_refused(feishu: FakeFeishu, zh_digests: dict[str, Digest]) -> None:
    sender = FeishuSender(
        base_url=feishu.url,
        app_id=feishu.app_id,
        app_secret="wrong",
        public_base_url=PUBLIC_BASE_URL,
        language="zh",
    )
    with pytest.raises(AuthRefusedError, match="FEISHU_APP_SECRET"):
        sender.post("oc_group1", zh_digests["2026-W04"], idempotency_key="k")
    assert "wrong" not in str(feishu.api.calls("POST", TOKEN_PATH)[0].headers)


def test_rate_limit_becomes_rate_limit_error(
    feishu: FakeFeishu, sender: FeishuSender, zh_digests: dict[str, Digest]
) -> None:
    sender.api.tokens.token()
    feishu.rate_limit(reset=7)
    with pytest.raises(RateLimitError) as info:
        sender.post("oc_group1", zh_digests["2026-W04"], idempotency_key="k")
    assert info.value.reset_at is not None


def test_bot_outside_the_chat_is_platform_rejected(
    sender: FeishuSender, zh_digests: dict[str, Digest]
) -> None:
    with pytest.raises(PlatformRejectedError) as info:
        sender.post("oc_unknown", zh_digests["2026-W04"], idempotency_key="k")
    assert info.value.code == "230002"


def test_deliver_twice_posts_once_and_force_patches(
    feishu: FakeFeishu, sender: FeishuSender, store: Store, zh_digests: dict[str, Digest]
) -> None:
    digest = zh_digests["2026-W04"]
    targets = ["feishu:oc_group1", "feishu:oc_group2"]
    log = as_log(store)
    first = deliver(digest, targets, {"feishu": sender}, log)
    again = deliver(digest, targets, {"feishu": sender}, log)
    forced = deliver(digest, targets, {"feishu": sender}, log, force=True)
    assert [o.action for o in first] == ["posted", "posted"]
    assert [o.action for o in again] == ["skipped", "skipped"]
    assert [o.action for o in forced] == ["updated", "updated"]
    assert len(feishu.posted()) == 2
    assert all(len(m.versions) == 1 for m in feishu.posted())


@pytest.mark.process
def test_a_new_process_does_not_post_again(
    feishu: FakeFeishu,
    sender: FeishuSender,
    store: Store,
    zh_digests: dict[str, Digest],
    tmp_path: Path,
) -> None:
    digest = zh_digests["2026-W04"]
    deliver(digest, ["feishu:oc_group1"], {"feishu": sender}, as_log(store))
    db_url = str(store.engine.url)
    script = textwrap.dedent(
        f"""
        from service.core.models import Period
        from service.delivery.outbox import DeliveryLog, deliver
        from service.feishu.sender import FeishuSender
        from service.store.repository import Store
        store = Store.open({db_url!r})
        digest = store.get_digest("volcengine/verl", Period.of_label("2026-W04", "UTC"), "zh")
        sender = FeishuSender(base_url={feishu.url!r}, app_id={feishu.app_id!r},
                              app_secret={feishu.app_secret!r}, public_base_url="http://r",
                              language="zh")
        outcomes = deliver(digest, ["feishu:oc_group1"], {{"feishu": sender}}, store)
        print([o.action for o in outcomes])
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['skipped']"
    assert len(feishu.posted("oc_group1")) == 1
    assert len(feishu.api.calls("POST", "/open-apis/im/v1/messages")) == 1


def test_bot_open_id_comes_from_bot_info(sender: FeishuSender) -> None:
    assert sender.api.bot_open_id() == "ou_bot"
