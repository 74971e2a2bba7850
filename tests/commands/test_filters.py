"""The one filter grammar: in chat commands (next to weeks, repos and `public`), in subscriptions
and in the CLI's --filter; every refusal is a catalog sentence, never a traceback."""

from __future__ import annotations

import pytest

from service.commands.filters import (
    UNKNOWN_KEY,
    FilterError,
    filter_keys,
    is_filter_token,
    parse_filter,
)
from service.commands.parse import Command, CommandError, parse_command
from service.core.filters import DigestFilter
from service.core.models import Severity


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("module:rollout", DigestFilter(modules=("rollout",))),
        ("module:Rollout,NPU", DigestFilter(modules=("rollout", "npu"))),
        ("module:rollout module:npu module:rollout", DigestFilter(modules=("rollout", "npu"))),
        ("label:breaking", DigestFilter(labels=("breaking",))),
        ("path:verl/workers/**", DigestFilter(paths=("verl/workers/**",))),
        ("path:docs/**,*.md", DigestFilter(paths=("docs/**", "*.md"))),
        ("author:@alice", DigestFilter(authors=("alice",))),
        ("severity:HIGH", DigestFilter(severity=Severity.HIGH)),
        (
            "module:rollout severity:medium author:bob label:x path:a/b.py",
            DigestFilter(
                modules=("rollout",),
                labels=("x",),
                paths=("a/b.py",),
                authors=("bob",),
                severity=Severity.MEDIUM,
            ),
        ),
        ("", DigestFilter()),
    ],
)
def test_parse_filter(text: str, expected: DigestFilter) -> None:
    assert parse_filter(text) == expected


def test_the_written_filter_reads_back_the_same() -> None:
    flt = parse_filter("severity:high path:docs/** module:rollout,npu author:a label:x")
    assert parse_filter(flt.describe()) == flt


@pytest.mark.parametrize(
    ("text", "key", "params"),
    [
        ("colour:red", UNKNOWN_KEY, {"value": "colour:red", "keys": filter_keys()}),
        ("severity:urgent", "cmd.error.bad_severity", {"value": "urgent"}),
        ("module:", "cmd.error.empty_filter", {"name": "module"}),
        ("module:,", "cmd.error.empty_filter", {"name": "module"}),
        ("path:" + "x" * 201, "cmd.error.long_filter", {"name": "path", "max": 20}),
        ("label:" + ",".join("abcdefghijklmnopqrstu"), "cmd.error.long_filter",
         {"name": "label", "max": 20}),
        ("lang:en", UNKNOWN_KEY, {"value": "lang:en", "keys": filter_keys()}),  # not in --filter
        ("rollout", "cmd.error.bad_argument", {"value": "rollout"}),
    ],
)  # fmt: skip
def test_parse_filter_refusals(text: str, key: str, params: dict[str, object]) -> None:
    with pytest.raises(FilterError) as info:
        parse_filter(text)
    assert (info.value.key, info.value.params) == (key, params)


def test_urls_and_slack_links_are_no_filters() -> None:
    assert is_filter_token("module:x")
    assert not is_filter_token("https://github.com/volcengine/verl/pull/4711")
    assert not is_filter_token("<https://github.com/volcengine/verl/pull/4711|#4711>")
    assert not is_filter_token("volcengine/verl")


@pytest.mark.parametrize(
    ("text", "filter_text", "language", "rest"),
    [
        ("risks module:rollout", "module:rollout", None, {}),
        ("risks 2026-W04 high module:megatron public", "module:megatron", None,
         {"period": "2026-W04", "severity": Severity.HIGH, "public": True}),
        ("top 5 label:npu", "label:npu", None, {"limit": 5}),
        ("summary path:docs/**", "path:docs/**", None, {}),
        ("trends module:megatron lang:en", "module:megatron", "en", {}),
        ("week 2026-W04 author:alice", "author:alice", None, {"period": "2026-W04"}),
        ("pr 4280 severity:high LANG:ZH", "severity:high", "zh", {"number": 4280}),
        ("pr https://github.com/volcengine/verl/pull/4711 module:x", "module:x", None,
         {"number": 4711}),
        ("subscribe volcengine/verl lang:en module:rollout,npu severity:high",
         "module:rollout,npu severity:high", "en", {"repo": "volcengine/verl"}),
        ("unsubscribe module:rollout", "module:rollout", None, {}),
        ("help lang:en", "", "en", {}),
        ("regenerate 2026-W04 lang:zh", "", "zh", {"period": "2026-W04"}),
    ],
)  # fmt: skip
def test_commands_take_filters_and_a_language(
    text: str, filter_text: str, language: str | None, rest: dict[str, object]
) -> None:
    command = parse_command(text)
    assert command.filter.describe() == filter_text
    assert command.language == language
    expected = Command(verb=command.verb, **rest)
    for name in rest:
        assert getattr(command, name) == getattr(expected, name)


@pytest.mark.parametrize(
    ("text", "key", "verb"),
    [
        ("risks colour:red", UNKNOWN_KEY, "risks"),
        ("top 5 severity:urgent", "cmd.error.bad_severity", "top"),
        ("summary lang:fr", "cmd.error.bad_language", "summary"),
        ("regenerate module:rollout", "cmd.error.no_filter", "regenerate"),
        ("subscriptions module:rollout", "cmd.error.no_filter", "subscriptions"),
    ],
)
def test_command_refusals_name_the_verb(text: str, key: str, verb: str) -> None:
    with pytest.raises(CommandError) as info:
        parse_command(text)
    assert (info.value.key, info.value.usage) == (key, verb)


def test_a_filter_longer_than_the_store_keeps_is_refused() -> None:
    paths = ",".join(f"verl/{'x' * 90}/{n}/**" for n in range(5))
    with pytest.raises(CommandError) as info:
        parse_command(f"subscribe path:{paths}")
    assert (info.value.key, info.value.params) == ("cmd.error.filter_too_long", {"max": 400})
    with pytest.raises(FilterError):
        parse_filter(f"path:{paths}")
