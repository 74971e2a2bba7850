"""The registry of built-in platforms and the destination syntax: `feishu-webhook:default` names
the Feishu custom bot plainly; the old `webhook:feishu` still works with a deprecation line, and
both are one target for the delivery log (same row, same idempotency key), so an upgrade posts
nothing twice."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator

import pytest

from service import wiring
from service.core.models import Digest
from service.delivery.outbox import Target, deliver, idempotency_key
from service.errors import InputError
from service.platforms import registry
from service.platforms.base import Platform
from service.render.cards import card_format
from service.settings import Settings
from service.store.repository import Store
from tests.fakes.feishu import FakeFeishu, serve_feishu
from tests.golden.test_surfaces import digest as golden_digest

OLD = "webhook:feishu"
NEW = "feishu-webhook:default"


@pytest.fixture
def feishu() -> Iterator[FakeFeishu]:
    with serve_feishu() as fake:
        yield fake


def test_the_built_in_platforms_in_order_with_their_cards_and_routes() -> None:
    found: list[Platform] = registry.platforms()
    assert [p.name for p in found][:3] == ["slack", "feishu", "feishu-webhook"]
    assert [p.card.name for p in found][:3] == ["slack", "feishu", "feishu"]
    assert [p.paths for p in found][:3] == [("/slack/events",), ("/feishu/events",), ()]
    assert card_format("slack") is registry.platforms()[0].card
    assert registry.syntax() == "slack:CHANNEL, feishu:CHAT_ID or feishu-webhook:default"


def test_senders_and_destinations_come_from_the_registry(
    make_settings: Callable[..., Settings], feishu: FakeFeishu
) -> None:
    settings = make_settings(
        slack_bot_token="xoxb-1",
        slack_channels=["C1", "C2:en"],
        feishu_chat_ids=["oc_1:zh"],
        feishu_webhook_url=feishu.hook_url,
        feishu_webhook_language="en",
    )
    senders = wiring.build_senders(settings)
    assert sorted(senders) == ["feishu-webhook", "slack"]  # no Feishu app id: no app sender
    assert {name: s.platform for name, s in senders.items()} == {
        "feishu-webhook": "feishu-webhook",
        "slack": "slack",
    }
    assert {d.name: d.language for d in registry.configured_destinations(settings)} == {
        "slack:C1": None,
        "slack:C2": "en",
        "feishu:oc_1": "zh",
        NEW: "en",
    }
    assert [p.name for p in registry.configured(settings)] == ["slack", "feishu-webhook"]


def test_the_plain_name_parses_and_the_old_one_is_deprecated_in_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    assert wiring.parse_destinations(f"slack:#general,{NEW}") == ["slack:general", NEW]
    assert caplog.records == []
    with caplog.at_level(logging.WARNING, logger="service.platforms.registry"):
        assert wiring.parse_destinations(OLD) == [NEW]
    assert [r.getMessage() for r in caplog.records] == [
        f"{OLD} is deprecated: name this destination {NEW}"
    ]


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("feishu-webhook:other", "FEISHU_WEBHOOK_URL is the one custom bot, named " + NEW),
        ("email:me", "expected slack:CHANNEL, feishu:CHAT_ID"),
        ("slack:#", "expected slack:CHANNEL"),
        ("feishu-webhook", "expected slack:CHANNEL"),
    ],
)
def test_bad_destinations_are_one_line(typed: str, said: str) -> None:
    with pytest.raises(InputError) as info:
        wiring.parse_destinations(typed)
    assert said in info.value.message
    assert "\n" not in info.value.message


def test_a_card_posted_under_the_old_name_is_not_posted_again_under_the_new(
    make_settings: Callable[..., Settings], feishu: FakeFeishu
) -> None:
    settings = make_settings(feishu_webhook_url=feishu.hook_url)
    store = Store.open(settings.database_url)
    senders = wiring.build_senders(settings)
    week: Digest = golden_digest("2026-W04", "en")
    # what an earlier release left in the log: the webhook's card, recorded as `webhook:feishu`
    old_key = idempotency_key(week.repo, week.window, OLD)
    record = store.record_intent(week.repo, week.window, OLD, old_key)
    store.record_sent(record.id, "webhook-earlier")
    for named in (NEW, Target(NEW), OLD, wiring.parse_destinations(OLD)[0]):
        outcomes = deliver(week, [named], senders, store)
        assert [(o.destination, o.action) for o in outcomes] == [(NEW, "skipped")]
    assert feishu.hook_cards == []
    assert len(store.list_deliveries(week.repo, week.window)) == 1


def test_a_new_card_is_logged_under_the_key_the_old_name_had(
    make_settings: Callable[..., Settings], feishu: FakeFeishu
) -> None:
    settings = make_settings(feishu_webhook_url=feishu.hook_url)
    store = Store.open(settings.database_url)
    week: Digest = golden_digest("2026-W03", "en")
    posted = deliver(week, [NEW], wiring.build_senders(settings), store)
    assert [o.action for o in posted] == ["posted"]
    assert len(feishu.hook_cards) == 1
    logged = store.get_delivery(week.repo, week.window, OLD)
    assert logged is not None
    assert logged.idempotency_key == idempotency_key(week.repo, week.window, OLD)
    again = deliver(week, [OLD], wiring.build_senders(settings), store)
    assert [o.action for o in again] == ["skipped"]
    assert len(feishu.hook_cards) == 1
