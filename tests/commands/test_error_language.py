"""Every failure a chat user can meet is told in their language: the error carries a catalog key
and parameters (its English message stays for the CLI and the logs), and the Slack message, the
Feishu card and the terminal text of a Chinese answer hold no English sentence."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from service.commands.answer import (
    Answer,
    Caller,
    EngineContext,
    answer,
    answer_failure,
    answer_regenerated,
    answer_text,
    regenerate_failed,
    unavailable,
)
from service.commands.kinds import AnswerKind, ErrorAnswer, RegenerateAnswer, UsageErrorAnswer
from service.commands.parse import Command
from service.core.models import PullRequest
from service.core.weeks import parse_week
from service.errors import InputError, ServiceError, UnreachableError
from service.github.collect import fetch_pr
from service.github.http import GitHubHttp
from service.pipeline.jobs import RunResult
from service.render import feishu, slack
from service.render.environment import translator
from service.render.text import render_answer_text
from service.store.repository import Store
from tests.answers import KindT
from tests.commands.builders import WEEK_LABELS, real_digest
from tests.commands.conftest import ADMIN, REPO
from tests.conftest import NOW
from tests.fakes.github import FakeGitHub
from tests.periods import period

TOKEN = "t0ken-for-tests-only"
USER = Caller(user_id="UPLAIN", platform="slack", channel="C1")
# three English words in a row: a sentence, not an identifier (`regenerate`, GitHub, PR #1)
ENGLISH = re.compile(r"[A-Za-z]{2,}(?:[ ,;:']+[A-Za-z]{2,}){2,}")
CODE_SPAN = re.compile(r"`[^`]*`")
URL = re.compile(r"(?:https?://|<http)[^\s)>|]+")
Ctx = Callable[..., EngineContext]


def chat_texts(reply: Answer) -> Iterator[tuple[str, str]]:
    """Every sentence a user reads of `reply`: the Slack message, the Feishu card, the text."""
    message = slack.render_answer(reply, "zh")
    yield "slack", message.text
    yield from (("slack", text) for text in _strings(message.blocks))
    yield from (("feishu", text) for text in _strings(feishu.render_answer(reply, "zh")))
    yield "text", render_answer_text(reply, "zh")


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("text", "content") and isinstance(value, str):
                yield value
            else:
                yield from _strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from _strings(item)


def assert_chinese(reply: Answer, *english: str) -> None:
    """`reply`, answered in zh, says no English sentence on any surface (code, URLs and names
    aside), and none of the `english` messages of the errors behind it."""
    assert reply.language == "zh"
    for surface, text in chat_texts(reply):
        plain = URL.sub(" ", CODE_SPAN.sub(" ", text))
        found = ENGLISH.search(plain)
        assert found is None, f"{surface}: English {found.group()!r} in {text!r}"
        for message in english:
            assert message not in text, f"{surface}: the error's English message in {text!r}"


def in_zh(reply: KindT) -> KindT:
    reply.language = "zh"
    return reply


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub(REPO, token=TOKEN)
    with fake.running():
        yield fake


def github_lookup(
    github: FakeGitHub, store: Store, token: str
) -> Callable[[str, int], PullRequest]:
    """The service's own `pr N` lookup against the fake GitHub, with tiny backoff."""
    http = GitHubHttp(
        api_url=github.url,
        graphql_url=github.graphql_url,
        token=token,
        cache=store,
        timeout=5.0,
        max_retries=1,
        backoff_base=0.001,
        backoff_cap=0.01,
        max_wait=0.5,
    )
    return lambda repo, number: fetch_pr(http, repo, number)


@pytest.mark.parametrize(
    ("week", "key"),
    [("2026-W60", "cmd.error.bad_week"), ("1969-W01", "cmd.error.week_out_of_range")],
)
def test_a_card_buttons_bad_week_is_told_in_chinese(make_ctx: Ctx, week: str, key: str) -> None:
    # a button's value is not parsed as command text: the week reaches core's calendar as is
    ctx = make_ctx(language="zh")
    reply = answer(Command(verb="risks", period=week), USER, ctx)
    assert isinstance(reply, UsageErrorAnswer)
    assert reply.key == key
    assert reply.params["value"] == week
    assert_chinese(reply, "ISO week", "out of range")


def test_github_failures_of_a_live_lookup_are_told_in_chinese(
    make_ctx: Ctx, store: Store, github: FakeGitHub
) -> None:
    refused = make_ctx(fetch_pr=github_lookup(github, store, "wrong-token"))
    reply = answer_text("pr 999999 lang:zh", USER, refused)
    assert isinstance(reply, ErrorAnswer)
    assert reply.reason is not None
    assert reply.reason.key == "cmd.reason.auth_refused"
    assert_chinese(reply, "Bad credentials")

    github.fail_next(502, times=2)  # the first request and its one retry
    down = make_ctx(fetch_pr=github_lookup(github, store, TOKEN))
    reply = answer_text("pr 999998 lang:zh", USER, down)
    assert isinstance(reply, ErrorAnswer)
    assert reply.reason is not None
    assert reply.reason.key == "cmd.reason.unreachable"
    assert_chinese(reply, "502")

    github.exhaust_primary(times=10)
    limited = make_ctx(fetch_pr=github_lookup(github, store, TOKEN))
    reply = answer_text("pr 999997 lang:zh", USER, limited)
    assert isinstance(reply, ErrorAnswer)
    assert reply.reason is not None
    assert reply.reason.key == "cmd.reason.rate_limited"
    assert_chinese(reply, "rate limit")


def test_regenerate_failures_are_told_in_chinese(make_ctx: Ctx) -> None:
    ctx = make_ctx(language="zh")
    with pytest.raises(InputError) as bad_week:
        parse_week("2026-W60", "Asia/Shanghai", NOW)
    failures: list[tuple[ServiceError | None, str]] = [
        (bad_week.value, "cmd.error.bad_week"),
        (UnreachableError("GitHub: connection refused"), "cmd.reason.unreachable"),
        (InputError("unknown repository x/y"), "cmd.reason.input"),
        (None, "cmd.reason.not_configured"),
    ]
    for error, key in failures:
        reply = in_zh(regenerate_failed(REPO, period("2026-W04"), error))
        assert reply.reason is not None
        assert reply.reason.key == key
        english = [error.message] if error is not None else []
        assert_chinese(reply, *english)
    # the pipeline's own result of a failed run
    result = RunResult(REPO, period("2026-W04"), "failed", error="GitHub: connection refused")
    result.failure = UnreachableError("GitHub: connection refused")
    done = in_zh(answer_regenerated(result, ctx))
    assert isinstance(done, RegenerateAnswer)
    assert done.kind is AnswerKind.REGENERATE_FAILED
    assert_chinese(done, "connection refused")


def test_every_other_refusal_is_told_in_chinese(make_ctx: Ctx, store: Store) -> None:
    ctx = make_ctx()
    admin = Caller(user_id=ADMIN, platform="slack", channel="")
    replies = [
        answer_text("regenerate lang:zh", USER, ctx),  # not an admin
        answer_text("subscribe lang:zh", admin, ctx),  # no channel
        answer_text("risks 2030-W01 lang:zh", USER, ctx),  # not begun
        answer_text("frobnicate", USER, make_ctx(language="zh")),
        answer_text("pr 424242 lang:zh", USER, ctx),  # in no digest, GitHub not asked
        in_zh(unavailable()),
        in_zh(answer_failure("abc123")),
    ]
    for reply in replies:
        assert_chinese(reply)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_score_factor_of_the_recorded_weeks_has_catalog_wording(lang: str) -> None:
    # the factor's recorded `reason` is English: it may never be what a reader sees
    tr = translator(lang)
    names = {f.name for label in WEEK_LABELS for p in real_digest(label).prs for f in p.factors}
    assert {"size", "module", "type"} <= names
    assert {n for n in names if not tr.has(f"factor.{n}")} == set()
