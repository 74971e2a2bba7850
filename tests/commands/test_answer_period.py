"""An answer carries the Period it is about (issue 29: a Period is passed wherever a label was):
the period the engine resolved, or the one the answering digest tells; a button written from
an answer's period reads back as a command about that same period."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from service.commands import buttons
from service.commands.answer import (
    AnswerKind,
    Caller,
    EngineContext,
    answer,
    answer_regenerated,
    answer_text,
)
from service.commands.grammar import PeriodRef
from service.commands.kinds import (
    HelpAnswer,
    NoDigestAnswer,
    PrAnswer,
    RegenerateAnswer,
    RisksAnswer,
    TopAnswer,
)
from service.commands.periods import resolve_ref
from service.core.models import Digest, Period
from service.pipeline.jobs import RunResult
from service.render.environment import kind_told, label_of, period_label
from tests.commands.conftest import ADMIN, REPO, Clock

USER = Caller(user_id="UPLAIN", platform="slack", channel="C1")
ADMIN_CALLER = Caller(user_id=ADMIN, platform="slack", channel="C1")
Ctx = Callable[..., EngineContext]


def resolved(text: str, ctx: EngineContext, verb: str) -> Period:
    """The Period the engine resolves `text` to for `verb` (commands/periods.resolve_ref)."""
    return resolve_ref(PeriodRef(text=text), ctx.timezone, ctx.clock(), verb)


def test_a_pr_answer_carries_the_period_of_the_digest_that_holds_it(
    make_ctx: Ctx, digests: dict[str, Digest]
) -> None:
    digest = digests["2026-W03"]
    number = digest.prs[0].number
    reply = answer_text(f"pr {number}", USER, make_ctx())
    assert isinstance(reply, PrAnswer)
    assert isinstance(reply.period, Period)
    assert reply.period == digest.window
    assert reply.report_url.endswith(f"/{digest.window.label}")  # the URL names it by label


def test_a_pr_answer_of_a_named_period_carries_the_period_resolved(
    make_ctx: Ctx, digests: dict[str, Digest]
) -> None:
    ctx = make_ctx()
    number = digests["2026-W04"].prs[0].number
    reply = answer_text(f"pr {number} 2026-w04", USER, ctx)
    assert isinstance(reply, PrAnswer)
    assert reply.period == resolved("2026-W04", ctx, "pr")


@pytest.mark.parametrize("text", ["risks 2026-W03", "risks last", "top 3 2025-W47"])
def test_a_read_answer_carries_the_period_resolved(make_ctx: Ctx, clock: Clock, text: str) -> None:
    clock.now = clock.now.replace(year=2026, month=1, day=21)  # inside 2026-W04: last is W03
    ctx = make_ctx()
    verb, *_, named = text.split()
    reply = answer_text(text, USER, ctx)
    assert isinstance(reply, RisksAnswer | TopAnswer)
    assert reply.period == resolved(named, ctx, verb)


def test_no_digest_carries_the_period_asked_for_and_newest_carries_none(
    make_ctx: Ctx,
) -> None:
    ctx = make_ctx()
    month = answer_text("risks 2026-01", USER, ctx)  # only weeks are stored
    assert isinstance(month, NoDigestAnswer)
    assert month.period == resolved("2026-01", ctx, "risks")
    assert month.period is not None
    assert month.period.kind == "month"
    assert kind_told(month.period) == "month"  # worded for a month, from the value
    assert HelpAnswer().period is None
    assert kind_told(None) == "week"


def test_regenerate_answers_carry_the_period_resolved_and_rebuilt(make_ctx: Ctx) -> None:
    ctx = make_ctx()
    started = answer_text("regenerate 2026-W04", ADMIN_CALLER, ctx)
    assert isinstance(started, RegenerateAnswer)
    assert started.kind is AnswerKind.REGENERATE_STARTED
    week = resolved("2026-W04", ctx, "regenerate")
    assert started.period == week
    assert ctx.regenerations.is_running(REPO, week)
    assert started.params["week"] == week.label  # the catalog's parameter: the label, once
    done = answer_regenerated(RunResult(REPO, week, "failed", error="x"), ctx)
    assert done.period is week  # the rebuild's own Period, not a label read again
    ctx.regenerations.finish(REPO, week)
    assert not ctx.regenerations.is_running(REPO, week)


@pytest.mark.parametrize("text", ["risks 2026-W03", "risks 2026-01", "regenerate 2026-W04"])
def test_a_button_written_from_an_answer_reads_back_as_its_period(make_ctx: Ctx, text: str) -> None:
    ctx = make_ctx()
    first = answer_text(text, ADMIN_CALLER, ctx)
    assert first.period is not None
    ctx.regenerations.finish(REPO, first.period)  # a regenerate's gate, released for the button
    verb = text.split()[0]
    for value in (
        buttons.encode(verb, REPO, first.period),
        buttons.encode_text(verb, REPO, first.period),
    ):
        command = buttons.decode(value)
        assert command is not None
        assert command.period == PeriodRef(text=first.period.label)  # the wire carries a label
        again = answer(command, ADMIN_CALLER, make_ctx())
        assert again.kind == first.kind
        assert again.period == first.period


def test_templates_format_a_period_through_its_filters(digests: dict[str, Digest]) -> None:
    window = digests["2026-W04"].window
    assert label_of(window) == "2026-W04"
    assert label_of(None) == ""
    for lang in ("en", "zh"):
        assert period_label(window, lang) == period_label("2026-W04", lang)
    assert period_label(None, "en") == ""
