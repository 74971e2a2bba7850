"""A verb added in one module (tests/channels/echo_verb.py) and its catalog keys, registered
through the registry, is answered end to end: a signed slash command to POST /slack/events on
the service wired as `serve` wires it, in the channel's language, and `help` lists it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.commands import registry
from service.render.environment import templates_dir
from service.render.strings import load_catalog
from tests.channels import echo_verb
from tests.channels.conftest import REPO, USER, Wired, card_text


@pytest.fixture
def echo(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The verb registered, and its keys in the catalogs, for one test."""
    folder = str(templates_dir() / "strings")
    for lang, keys in echo_verb.CATALOG.items():
        catalog = load_catalog(folder, lang)
        for key, text in keys.items():
            monkeypatch.setitem(catalog, key, text)
    registry.register(echo_verb.SPEC)
    try:
        yield
    finally:
        del registry.VERBS[echo_verb.NAME]
        registry.answer_adapter.cache_clear()


def test_the_new_verb_answers_through_slack(echo: None, wired: Wired) -> None:
    answer = wired.slash("echo", channel="C_EN")
    assert answer["response_type"] == "ephemeral"
    assert f"{USER} asked in C_EN about {REPO}" in card_text(answer)


def test_the_new_verb_answers_in_the_channels_language(echo: None, wired: Wired) -> None:
    answer = wired.slash("echo", channel="C_ZH")
    assert f"{USER} 在 C_ZH 问了 {REPO}" in card_text(answer)


def test_help_lists_the_new_verb(echo: None, wired: Wired) -> None:
    text = card_text(wired.slash("help", channel="C_EN"))
    assert "who asks, where" in text


def test_the_verb_is_gone_once_unregistered(wired: Wired) -> None:
    text = card_text(wired.slash("echo", channel="C_EN"))
    assert "asked in" not in text
    assert echo_verb.NAME not in registry.VERBS
