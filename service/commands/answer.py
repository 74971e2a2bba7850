"""Answer a parsed Command: find its verb in the registry, the repository it is about, check who
may ask, and hand it to the verb's answer function (commands/verbs/).

Platform-neutral: the answer is one model per kind (commands/kinds.py, or a verb's own) that
each platform's renderer turns into blocks or a card. No words here; every sentence is a catalog
key.
"""

from __future__ import annotations

from service.commands.context import (
    DIGEST_CACHE_TTL,
    CachedReader,
    Caller,
    DigestReader,
    EngineContext,
    Regenerations,
    RunResultLike,
    Subscriptions,
)
from service.commands.failures import reason
from service.commands.filters import UNKNOWN_KEY
from service.commands.grammar import Command, CommandError, PeriodRef
from service.commands.kinds import (
    Answer,
    AnswerKind,
    ErrorAnswer,
    NoticeAnswer,
    SubscriptionView,
    UsageErrorAnswer,
)
from service.commands.parse import parse_command
from service.commands.periods import resolve_ref
from service.commands.reading import apply_filter, filter_usage
from service.commands.registry import usage_keys, verb_spec
from service.commands.verbs import Request, VerbSpec
from service.commands.verbs.pr import answer_lookup
from service.commands.verbs.regenerate import answer_regenerated, regenerate_failed
from service.core.models import Period
from service.core.ranking import sorted_risks, top_prs
from service.errors import InputError, ServiceError, StoreUnavailableError

# the engine's context and answer types are re-exported: adapters import them from here
__all__ = [
    "DIGEST_CACHE_TTL",
    "Answer",
    "AnswerKind",
    "CachedReader",
    "Caller",
    "DigestReader",
    "EngineContext",
    "Regenerations",
    "RunResultLike",
    "SubscriptionView",
    "Subscriptions",
    "answer",
    "answer_failure",
    "answer_lookup",
    "answer_regenerated",
    "answer_text",
    "apply_filter",
    "regenerate_failed",
    "resolve_ref",
    "sorted_risks",
    "top_prs",
    "unavailable",
    "usage_keys",
]


def answer_text(
    text: str, caller: Caller, ctx: EngineContext, *, defer_lookup: bool = False
) -> Answer:
    """Parse and answer in one go; bad text becomes a usage answer, never an exception."""
    try:
        command = parse_command(text)
    except CommandError as exc:
        reply: Answer
        if exc.key == UNKNOWN_KEY:  # the week's modules only to who may read the repository
            hide = not _readable(ctx, caller, ctx.repos[0])
            value = str(exc.params.get("value", ""))
            usage = usage_keys(exc.usage)
            reply = filter_usage(ctx, ctx.repos[0], value, usage, exc.usage, hide_modules=hide)
        else:
            reply = usage_error(exc)
        reply.language = ctx.language_for(caller)
        return reply
    return answer(command, caller, ctx, defer_lookup=defer_lookup)


def _readable(ctx: EngineContext, caller: Caller, repo: str) -> bool:
    """Whether `caller` may see what `repo`'s digests hold (its module names, say)."""
    try:
        return ctx.can_read(caller, repo)
    except ServiceError:
        return False


def usage_error(exc: CommandError) -> UsageErrorAnswer:
    """A CommandError as an answer carrying the usage of the verb concerned (or all verbs)."""
    return UsageErrorAnswer(
        key=exc.key, params=exc.params, usage=usage_keys(exc.usage), verb=exc.usage or ""
    )


def input_error(exc: InputError, verb: str | None) -> UsageErrorAnswer:
    """Input the engine could not use (a week of no calendar, say): the error's own catalog
    sentence, else the generic one, with the verb's usage."""
    key = exc.key or "cmd.error.input"
    return UsageErrorAnswer(key=key, params=exc.params, usage=usage_keys(verb))


def answer(
    command: Command, caller: Caller, ctx: EngineContext, *, defer_lookup: bool = False
) -> Answer:
    """The answer to `command` asked by `caller`, in the language it should be told in.
    `defer_lookup`: a `pr N` that must ask GitHub answers PR_LOOKUP at once, and the adapter
    gets the PR with `answer_lookup` afterwards (Slack wants its ack within 3 s)."""
    reply = _answer(command, caller, ctx, defer_lookup)
    reply.language = ctx.language_for(caller, command.language)
    scope = ctx.scope_for(reply.repo) if reply.repo else None
    if scope is not None and scope.is_family:
        reply.repos = list(scope.repos)
    return reply


def _answer(command: Command, caller: Caller, ctx: EngineContext, defer_lookup: bool) -> Answer:
    try:
        spec = verb_spec(command.verb)
        repo = _repo(command, spec, ctx)
        if spec.reads and not ctx.can_read(caller, repo):
            return _refused(command, repo, "cmd.answer.private_repo", {"repo": repo})
        if spec.admin and not ctx.is_admin(caller):
            return _refused(command, repo, "cmd.answer.denied", {"command": command.verb})
        usage = tuple(usage_keys(None))
        period = _period(command, spec, ctx)
        return spec.respond(Request(command, caller, ctx, repo, defer_lookup, usage, period))
    except CommandError as exc:
        return usage_error(exc)
    except InputError as exc:
        return input_error(exc, command.verb)
    except StoreUnavailableError:  # an outage: the store's own log line says why, once
        return unavailable()
    except ServiceError as exc:  # the store or GitHub failed: say so, with what to do next
        return ErrorAnswer(key="cmd.error.service", reason=reason(exc))


def _period(command: Command, spec: VerbSpec, ctx: EngineContext) -> Period | None:
    """The period `command` names (or its verb's when it names none), resolved once, in the
    engine's timezone and clock, before the verb answers; None for the newest."""
    ref = command.period
    if ref is None and spec.unnamed_period is not None:
        ref = PeriodRef(text=spec.unnamed_period)
    return resolve_ref(ref, ctx.timezone, ctx.clock(), command.verb) if ref else None


def _refused(command: Command, repo: str, key: str, params: dict[str, str | int]) -> NoticeAnswer:
    """A private repository asked about where its digest does not go, by a non-admin; an
    admin's verb asked by someone else."""
    return NoticeAnswer(
        kind=AnswerKind.DENIED, repo=repo, verb=command.verb, key=key, params=params
    )


def _repo(command: Command, spec: VerbSpec, ctx: EngineContext) -> str:
    """The repository the command is about, by its name now (an old name of a repository that
    moved is still understood)."""
    now = ctx.current_name or (lambda name: name)
    if command.repo is None:
        return now(ctx.repos[0])
    found = now(command.repo)
    if spec.families and ctx.scope_for(found).is_family:
        return found  # a family of DIGEST_GROUPS: subscribed to whether DIGEST_REPOS names it
    if found not in {now(repo) for repo in ctx.repos}:
        raise CommandError(
            "cmd.error.unknown_repo", command.verb, repo=command.repo, repos=", ".join(ctx.repos)
        )
    return found


def unavailable() -> ErrorAnswer:
    """The database does not answer: temporarily unavailable, try again in a few minutes."""
    return ErrorAnswer(key="cmd.error.unavailable")


def answer_failure(incident: str) -> ErrorAnswer:
    """An unexpected failure, told with the incident id the log carries with the traceback."""
    return ErrorAnswer(key="cmd.error.internal", params={"incident": incident}, incident=incident)
