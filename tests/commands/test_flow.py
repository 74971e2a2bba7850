"""The incoming-command flow every platform shares, with a Conversation that keeps what it is
told: the first answer, then what the command promised (the rebuild's outcome), the rebuild's
gate released whatever happens, and an unexpected failure told with an incident id."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from service.commands.answer import Answer, AnswerKind, Caller, EngineContext
from service.commands.flow import CommandFlow
from service.commands.kinds import ErrorAnswer, RegenerateAnswer, TopAnswer
from service.core.models import Period
from service.errors import ServiceError
from service.pipeline.jobs import RunResult
from service.store.repository import Store
from tests.answers import as_kind
from tests.conftest import NOW
from tests.golden.test_surfaces import digest
from tests.periods import period

REPO = "volcengine/verl"
WEEK = "2026-W04"
ADMIN = "UADMIN"


@dataclass
class Kept:
    said: list[tuple[str, Answer]] = field(default_factory=list)

    def first(self, reply: Answer) -> None:
        self.said.append(("first", reply))

    def later(self, reply: Answer) -> None:
        self.said.append(("later", reply))


@pytest.fixture
def engine(tmp_path: Path) -> EngineContext:
    store = Store.open(f"sqlite:///{tmp_path}/flow.db")
    store.save_digest(digest(WEEK, "en"))
    return EngineContext(
        reader=store,
        repos=[REPO],
        language="en",
        timezone="Asia/Shanghai",
        clock=lambda: NOW,
        admins=frozenset({ADMIN}),
        subscriptions=store,
        report_url=lambda repo, week: f"http://reports.test/reports/{repo}/{week}",
    )


def test_an_answer_is_said_first_and_counted(engine: EngineContext) -> None:
    counted: list[tuple[str, str]] = []
    flow = CommandFlow(engine, "chat", observe=lambda p, kind, _s: counted.append((p, kind)))
    talk = Kept()
    flow.on_text(f"top 3 {WEEK}", Caller("U1", "chat", "C1"), talk)
    assert [(when, a.kind) for when, a in talk.said] == [("first", AnswerKind.TOP)]
    assert len(as_kind(talk.said[0][1], TopAnswer).prs) == 3
    assert counted == [("chat", "top")]


def test_a_rebuild_is_acknowledged_then_its_outcome_follows(engine: EngineContext) -> None:
    asked: list[tuple[str, Period, str]] = []

    def rebuild(repo: str, week: Period, *, requested_by: str) -> RunResult:
        asked.append((repo, week, requested_by))
        return RunResult(repo=repo, period=week, outcome="ok", digest=digest(WEEK, "en"))

    talk = Kept()
    CommandFlow(engine, "chat", regenerate=rebuild).on_text(
        f"regenerate {WEEK}", Caller(ADMIN, "chat", "C1"), talk
    )
    assert [(when, a.kind) for when, a in talk.said] == [
        ("first", AnswerKind.REGENERATE_STARTED),
        ("later", AnswerKind.REGENERATE_DONE),
    ]
    # the rebuild gets the Period the started answer carries (no label read again), and the
    # outcome is about that same period
    resolved = period(WEEK, engine.timezone)
    assert asked == [(REPO, resolved, ADMIN)]
    assert [a.period for _when, a in talk.said] == [resolved, resolved]
    assert not engine.regenerations.is_running(REPO, resolved)  # the gate is released


@pytest.mark.parametrize(
    ("rebuild", "reason"),
    [(None, "cmd.reason.not_configured"), ("raise", "cmd.reason.service")],
)
def test_a_rebuild_that_cannot_run_says_why_and_releases_the_gate(
    engine: EngineContext, rebuild: str | None, reason: str
) -> None:
    def failing(repo: str, week: Period, *, requested_by: str) -> RunResult:
        raise ServiceError("GitHub is unreachable")

    talk = Kept()
    flow = CommandFlow(engine, "chat", regenerate=failing if rebuild else None)
    flow.on_text(f"regenerate {WEEK}", Caller(ADMIN, "chat", "C1"), talk)
    later = talk.said[-1][1]
    assert later.kind is AnswerKind.REGENERATE_FAILED
    assert isinstance(later, RegenerateAnswer)
    assert later.params == {"repo": REPO, "week": WEEK}
    assert later.reason is not None
    assert later.reason.key == reason  # worded from the catalog in the asker's language
    assert later.period == period(WEEK, engine.timezone)
    assert not engine.regenerations.is_running(REPO, period(WEEK, engine.timezone))


def test_a_failure_is_told_with_its_incident_id(engine: EngineContext) -> None:
    talk = Kept()
    incident = CommandFlow(engine, "chat").failed(talk, "chat event failed", RuntimeError("x"))
    assert [(when, a.kind, as_kind(a, ErrorAnswer).incident) for when, a in talk.said] == [
        ("later", AnswerKind.ERROR, incident)
    ]
