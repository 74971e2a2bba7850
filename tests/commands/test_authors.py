"""`authors`: the period's PR authors with their merged PR counts, most first, from the stored
digest, on every platform (its own text view; Slack and Feishu through the plain-text
fallback)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest

from service.commands.answer import Caller, EngineContext, answer_text
from service.commands.kinds import NoDigestAnswer, NoticeAnswer
from service.commands.parse import Command, parse_command
from service.commands.registry import answer_adapter, verb_names
from service.commands.verbs.authors import AuthorsAnswer
from service.core.models import Digest
from service.render import feishu, slack
from service.render.limits import slack_violations
from service.render.text import render_answer_text
from tests.commands.conftest import REPO

USER = Caller(user_id="UPLAIN", platform="slack", channel="C1")
Ctx = Callable[..., EngineContext]


def expected(digest: Digest) -> list[tuple[str, int]]:
    counts = Counter(p.author for p in digest.prs if p.author)
    return sorted(counts.items(), key=lambda item: (-item[1], item[0].lower(), item[0]))


def test_it_parses_like_the_other_read_verbs() -> None:
    assert parse_command("authors 2026-W04 public") == Command(
        verb="authors", period="2026-W04", public=True
    )
    assert parse_command("who").verb == "authors"  # its alias
    assert "authors" in verb_names()


def test_the_authors_of_a_stored_week_most_prs_first(
    make_ctx: Ctx, digests: dict[str, Digest]
) -> None:
    reply = answer_text("authors 2026-W04", USER, make_ctx())
    assert isinstance(reply, AuthorsAnswer)
    digest = digests["2026-W04"]
    assert [(a.login, a.prs) for a in reply.authors] == expected(digest)
    assert reply.authors[0].prs >= 2  # someone merged more than one PR that week
    assert reply.prs == len(digest.prs)
    assert (reply.repo, reply.period) == (REPO, digest.window)
    assert reply.report_url.endswith("/2026-W04")


def test_a_filter_counts_the_matching_prs_only(make_ctx: Ctx) -> None:
    reply = answer_text("authors 2026-W04 author:Huazhong", USER, make_ctx())
    assert isinstance(reply, AuthorsAnswer)
    assert [(a.login, a.prs) for a in reply.authors] == [("Huazhong", 2)]
    assert reply.filter == "author:Huazhong"


def test_a_week_with_no_digest_says_so(make_ctx: Ctx) -> None:
    reply = answer_text("authors 2026-W05", USER, make_ctx())
    assert isinstance(reply, NoDigestAnswer)


def test_a_private_repository_is_refused_like_the_other_read_verbs(make_ctx: Ctx) -> None:
    reply = answer_text("authors", USER, make_ctx(may_read=lambda caller, repo: False))
    assert isinstance(reply, NoticeAnswer)
    assert reply.key == "cmd.answer.private_repo"


def test_it_reads_back_from_json_as_its_own_kind(make_ctx: Ctx) -> None:
    reply = answer_text("authors 2026-W04", USER, make_ctx())
    adapter = answer_adapter()
    assert adapter.validate_json(adapter.dump_json(reply)) == reply


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_platform_shows_it(make_ctx: Ctx, lang: str) -> None:
    reply = answer_text(f"authors 2026-W04 lang:{lang}", USER, make_ctx())
    assert isinstance(reply, AuthorsAnswer)
    first = reply.authors[0].login
    text = render_answer_text(reply, lang)
    assert f"1. {first} — " in text
    message = slack.render_answer(reply, lang)
    assert slack_violations(message) == []
    assert f"1. {first} — " in message.blocks[0]["text"]["text"]
    card = feishu.render_answer(reply, lang)
    assert f"1. {first} — " in str(card["body"]["elements"])
    assert (
        "authors" in card["header"]["title"]["content"]
        or "作者" in (card["header"]["title"]["content"])
    )


def test_help_lists_it(make_ctx: Ctx) -> None:
    reply = answer_text("help", USER, make_ctx())
    assert "cmd.usage.authors" in getattr(reply, "usage", [])
