"""Delivery routing (service/delivery/routing.py): `post --to` text, and where a repo's weekly
cards go
and in which language, from the configured chats and the subscriptions of a real SQLite store.
wiring.chat_routes builds the Routes from Settings exactly as `serve` and `post` do."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from service import wiring
from service.delivery.destination import Destination
from service.delivery.outbox import Target
from service.delivery.routing import Routes
from service.errors import InputError
from service.platforms.feishu import WEBHOOK_DESTINATION
from service.settings import Settings
from service.store.repository import Store
from service.wiring import parse_destinations

REPO = "volcengine/verl"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(f"sqlite:///{tmp_path / 'routes.db'}")
    yield opened
    opened.engine.dispose()


def test_destinations_are_read_from_post_to() -> None:
    text = " slack:#general, feishu:oc_1 ,,webhook:feishu"
    assert parse_destinations(text) == ["slack:general", "feishu:oc_1", WEBHOOK_DESTINATION]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("email:me", "bad --to item 'email:me': expected slack:CHANNEL"),
        ("slack", "bad --to item 'slack'"),
        ("slack:", "bad --to item 'slack:'"),
        (" , ", "--to names no destination"),
    ],
)
def test_bad_destinations_are_one_line(text: str, said: str) -> None:
    with pytest.raises(InputError) as refused:
        parse_destinations(text)
    assert refused.value.message.startswith(said)


def test_configured_chats_then_subscriptions_each_in_its_language(store: Store) -> None:
    routes = Routes(store, [Destination("slack", "C1", "en"), Destination("feishu", "oc_1")])
    store.subscribe("slack", "C1", REPO, "U1", filter_text="module:rollout")
    store.subscribe("slack", "C2", REPO, "U1", language="zh")
    store.subscribe("feishu", "oc_1", REPO, "U1", language="en")  # replaces the configured one
    store.subscribe("slack", "C3", "other/repo", "U1")
    assert routes.destinations_for(REPO) == [
        Target("slack:C1", "", "en"),
        Target("feishu:oc_1", "", "en"),
        Target("slack:C1", "module:rollout", "en"),  # the chat's configured language
        Target("slack:C2", "", "zh"),
    ]


def test_a_chat_speaks_its_configured_language_else_its_subscriptions(store: Store) -> None:
    routes = Routes(store, [Destination("slack", "C1", "en"), Destination("slack", "C9")])
    store.subscribe("slack", "C2", REPO, "U1", language="zh")
    store.subscribe("slack", "C9", REPO, "U1", language="zh")
    assert routes.channel_language("slack", "C1") == "en"
    assert routes.channel_language("slack", "C2") == "zh"
    assert routes.channel_language("slack", "C9") == "zh"  # configured without a language
    assert routes.channel_language("feishu", "oc_x") is None
    assert routes.named_targets(["slack:C1", "slack:C2", "feishu:oc_x"]) == [
        Target("slack:C1", "", "en"),
        Target("slack:C2", "", "zh"),
        Target("feishu:oc_x", "", None),
    ]
    assert routes.is_configured("slack", "C9")
    assert not routes.is_configured("slack", "C2")


def test_wiring_routes_the_chats_the_settings_name(
    make_settings: Callable[..., Settings], store: Store
) -> None:
    settings = make_settings(
        slack_channels=["C1:en", "C2"],
        feishu_chat_ids=["oc_1:zh"],
        feishu_webhook_url="https://open.feishu.cn/open-apis/bot/v2/hook/x",
        feishu_webhook_language="en",
    )
    assert wiring.chat_routes(settings, store).destinations_for(REPO) == [
        Target("slack:C1", "", "en"),
        Target("slack:C2", "", None),
        Target("feishu:oc_1", "", "zh"),
        Target(WEBHOOK_DESTINATION, "", "en"),
    ]
