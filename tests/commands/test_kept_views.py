"""`risks` and `top` on a cached digest: the view (the risks worst first and their PRs, the top
PRs) is worked out once per digest, and each envelope's message rendered once for every answer
made from it (issue 30: a 2,000-PR digest is not ranked, scanned and rendered again by every
command of 50 parallel clients). A narrowed digest, another envelope or a digest read again
gets its own."""

from __future__ import annotations

from collections.abc import Callable

from service.commands.answer import Caller, EngineContext, answer_text
from service.commands.context import CachedReader
from service.commands.kinds import RisksAnswer
from service.render.slack import SlackMessage, render_answer
from service.store.repository import Store
from tests.commands.conftest import ADMIN, REPO, Clock
from tests.periods import TIMEZONE

CALLER = Caller(ADMIN, "slack", "C1")


def _messages(reply_text: str, ctx: EngineContext, renders: list[str]) -> SlackMessage:
    reply = answer_text(reply_text, CALLER, ctx)

    def render() -> SlackMessage:
        renders.append(reply_text)
        return render_answer(reply, reply.language or "en")

    return reply.rendered("slack", reply.language or "en", render)


def test_the_same_command_on_a_kept_digest_is_rendered_once(
    make_ctx: Callable[..., EngineContext], store: Store, clock: Clock
) -> None:
    ctx = make_ctx(reader=CachedReader(store, clock, timezone=TIMEZONE))
    plain = make_ctx()  # the store itself: nothing kept
    renders: list[str] = []
    for text in ("risks", "risks high", "top 3", "top 3 public"):
        first = _messages(text, ctx, renders)
        again = _messages(text, ctx, renders)
        assert again is first
        assert first == render_answer(answer_text(text, CALLER, plain), "en")
    assert renders == ["risks", "risks high", "top 3", "top 3 public"]


def test_kept_views_are_the_digest_s_own(
    make_ctx: Callable[..., EngineContext], store: Store, clock: Clock
) -> None:
    reader = CachedReader(store, clock, timezone=TIMEZONE)
    ctx = make_ctx(reader=reader)
    first, again = answer_text("risks", CALLER, ctx), answer_text("risks", CALLER, ctx)
    assert isinstance(first, RisksAnswer)
    assert isinstance(again, RisksAnswer)
    assert again.risks == first.risks
    assert again.prs == first.prs
    narrowed = answer_text("risks severity:high", CALLER, ctx)
    assert isinstance(narrowed, RisksAnswer)
    assert {r.severity.value for r in narrowed.risks} <= {"high"}
    reader.invalidate(REPO)
    renders: list[str] = []
    _messages("risks", ctx, renders)
    assert renders == ["risks"]  # the digest read again: rendered again
    assert answer_text("risks", CALLER, ctx) == first  # the same answer either way
