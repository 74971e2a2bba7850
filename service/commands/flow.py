"""The incoming-command flow every chat platform shares: answer, acknowledge, then the slow part.

A platform adapter turns its event into (text or Command, Caller) and gives the flow a
`Conversation`: its way to say the first answer (Slack: the ack body; Feishu: a reply card) and
the ones that come later (Slack: response_url; Feishu: another reply). The flow then does the
rest the same way everywhere: it counts the answer, asks GitHub for a PR the digests don't hold
(bounded in time), runs a regenerate after the acknowledgement and says how it went, and turns an
unexpected failure into an incident id the user can quote and the log carries with the traceback.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from service.commands.answer import (
    Answer,
    AnswerKind,
    Caller,
    EngineContext,
    RunResultLike,
    answer,
    answer_failure,
    answer_lookup,
    answer_regenerated,
    answer_text,
    regenerate_failed,
)
from service.commands.grammar import Command, strip_prefix
from service.commands.registry import VERBS
from service.core.models import Period
from service.errors import ServiceError

logger = logging.getLogger(__name__)


# (repo, period, requested_by=…) → the rebuild's result; None where regenerate is not wired
class Regenerate(Protocol):
    """Rebuild a (repository, period) and edit its posted cards (wiring.regenerate_callable)."""

    def __call__(self, repo: str, period: Period, /, *, requested_by: str) -> RunResultLike: ...


# (platform, answer kind, seconds to answer): how a command went, for the metrics
ObserveCommand = Callable[[str, str, float], None]


class Conversation(Protocol):
    """One command's way back to the user who sent it."""

    def first(self, reply: Answer) -> None:
        """The acknowledgement, with the answer (or a "working on it" answer)."""

    def later(self, reply: Answer) -> None:
        """An answer after the acknowledgement (a looked-up PR, a regenerate's outcome)."""


def typed_verb(text: str) -> str:
    """The verb a typed command starts with, or `other` (a log names no free text)."""
    words = strip_prefix(text).split()
    first = words[0].lower() if words else ""
    return first if first in VERBS else "other"


def new_incident() -> str:
    return uuid.uuid4().hex[:12]


@dataclass
class CommandFlow:
    """The engine and the rebuild a platform's commands reach, and where answers are counted."""

    engine: EngineContext
    platform: str
    regenerate: Regenerate | None = None
    observe: ObserveCommand | None = None

    def on_text(self, text: str, caller: Caller, talk: Conversation) -> Answer:
        """A typed command: answered at once (a PR lookup is deferred to `later`)."""
        started = time.perf_counter()
        reply = answer_text(text, caller, self.engine, defer_lookup=True)
        self.log(caller, typed_verb(text), "command", reply)
        self.reply(reply, caller, talk, started=started)
        return reply

    def on_command(self, command: Command, caller: Caller, talk: Conversation) -> Answer:
        """A command a card button stands for."""
        reply = answer(command, caller, self.engine)
        self.log(caller, command.verb, "button", reply)
        self.reply(reply, caller, talk)
        return reply

    def log(self, caller: Caller, verb: str, via: str, reply: Answer) -> None:
        """One line per inbound command or button: who, what, the outcome (never the text,
        which may hold anything a user pasted)."""
        logger.info(
            "chat %s %s: %s",
            via,
            verb,
            str(reply.kind),
            extra={
                "platform": self.platform,
                "user": caller.user_id,
                "channel": caller.channel,
                "command": verb,
                "via": via,
                "outcome": str(reply.kind),
                "repo": reply.repo,
                # the log's key, as before the rename: the period's label ("" for none)
                "week": reply.period.label if reply.period else "",
            },
        )

    def reply(
        self, reply: Answer, caller: Caller, talk: Conversation, *, started: float | None = None
    ) -> None:
        """Acknowledge with `reply`, then do what it promised: the lookup or the rebuild."""
        talk.first(reply)
        if self.observe is not None and started is not None:
            self.observe(self.platform, str(reply.kind), time.perf_counter() - started)
        if reply.kind is AnswerKind.REGENERATE_STARTED:
            self.run_regenerate(reply, caller.user_id, talk)
        elif reply.kind is AnswerKind.PR_LOOKUP:  # a PR asked of GitHub, bounded in time
            talk.later(answer_lookup(reply, self.engine))

    def run_regenerate(self, started: Answer, requested_by: str, talk: Conversation) -> None:
        """The heavy part of regenerate, after the acknowledgement; its outcome comes later."""
        repo, period = started.repo, started.period
        assert period is not None  # noqa: S101 - a started regenerate names its period
        try:
            if self.regenerate is None:
                done = regenerate_failed(repo, period, None)
            else:
                rebuilt = self.regenerate(repo, period, requested_by=requested_by)
                done = answer_regenerated(rebuilt, self.engine)
        except ServiceError as exc:
            done = regenerate_failed(repo, period, exc)
        finally:
            self.engine.forget(repo, period)
            self.engine.regenerations.finish(repo, period)
        done.language = started.language
        logger.info(
            "chat regenerate %s %s by %s: %s",
            repo,
            period.label,
            requested_by,
            str(done.kind),
            extra={"platform": self.platform, "user": requested_by, "outcome": str(done.kind)},
        )
        talk.later(done)

    def failed(self, talk: Conversation, what: str, error: BaseException | None = None) -> str:
        """An unexpected failure: logged with a new incident id, which the user is told later
        (a failure to tell them is logged too, never raised). Returns the id."""
        incident = new_incident()
        logger.error(what, exc_info=error or True, extra={"incident": incident})
        try:
            talk.later(answer_failure(incident))
        except Exception:
            logger.warning("failure reply failed", extra={"incident": incident})
        return incident
