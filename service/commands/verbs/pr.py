"""`pr <number|repo#number|url> [period] [public] [owner/repo] [filters]`: one PR as the stored
digests hold it (its score, point, risks, discussion and what it builds on), else as GitHub has
it now (bounded in time and by a per-user quota)."""

from __future__ import annotations

from service.commands import tokens
from service.commands.context import EngineContext, bounded, find_pr
from service.commands.failures import reason
from service.commands.grammar import Command, CommandError
from service.commands.kinds import (
    Answer,
    AnswerKind,
    ErrorAnswer,
    NoMatchAnswer,
    NoticeAnswer,
    PrAnswer,
)
from service.commands.reading import apply_filter, report_url, stored_periods
from service.commands.verbs import Request, VerbSpec
from service.core.analyst.sections import written
from service.core.discussion import discussion
from service.core.mentions import leaf_risks
from service.core.models import Digest
from service.core.ranking import sorted_risks
from service.core.scope import pr_key
from service.errors import NotFoundError, ServiceError, UpstreamError

NAME = "pr"
# `pr N` names at most this many earlier PRs it builds on
MAX_RELATIONS = 5


def respond(request: Request) -> Answer:
    command, ctx, repo = request.command, request.ctx, request.repo
    assert command.number is not None  # noqa: S101 - SPEC.required guarantees it
    member, number = _member_key(command, ctx, repo)
    period = request.period
    periods = [period] if period else stored_periods(ctx, repo)
    for each in periods:
        stored = ctx.reader.get_digest(repo, each, ctx.language)
        if stored is not None and find_pr(ctx.reader, stored, number) is not None:
            return _stored_pr(request, stored, number)
    # not in a stored digest: asked of its own repository, by its own number
    return _live_pr(request, member, command.number)


def _stored_pr(request: Request, stored: Digest, number: int) -> Answer:
    command, ctx, repo = request.command, request.ctx, request.repo
    digest = apply_filter(command, ctx, repo, stored)
    if not isinstance(digest, Digest):
        return digest
    found = find_pr(ctx.reader, digest, number)
    if found is None:
        return _pr_outside_filter(command, repo, digest, number)
    # a roll-up's member about this PR, not the whole roll-up of many PRs
    risks = [r for r in leaf_risks(digest.risks) if number in r.prs]
    # the model's point in the answer's language, when it wrote in that language
    view = written(digest, ctx.language_for(request.caller, command.language))
    return PrAnswer(
        point=view.point(number) if view else None,
        point_model=view.model if view else "",
        repo=repo,
        period=digest.window,
        pr=found,
        number=number,
        risks=sorted_risks(risks),
        public=command.public,
        report_url=report_url(ctx, repo, digest.window),
        filter=digest.filter,
        discussion=found.discussion,
        relations=[r for r in digest.relations if r.pr == number][:MAX_RELATIONS],
    )


def _member_key(command: Command, ctx: EngineContext, repo: str) -> tuple[str, int]:
    """The repository `pr N` / `pr verl-omni#N` is about and the PR's key in `repo`'s digests:
    in a family, `N` alone is a PR of its first repository (core/scope.py)."""
    assert command.number is not None  # noqa: S101 - SPEC.required guarantees it
    scope = ctx.scope_for(repo)
    index = 0 if command.member is None else scope.index(command.member)
    if index is None and not scope.is_family:
        index = 0  # a pull URL of another name (an old one) of the one repository
    if index is None:
        raise CommandError(
            "cmd.error.unknown_repo",
            command.verb,
            repo=command.member or "",
            repos=", ".join(scope.repos),
        )
    member = scope.repos[index] if scope.is_family else repo
    return member, pr_key(index, command.number)


def _pr_outside_filter(command: Command, repo: str, digest: Digest, number: int) -> NoMatchAnswer:
    return NoMatchAnswer(
        repo=repo,
        period=digest.window,
        number=number,
        filter=digest.filter,
        key="cmd.answer.pr_no_match",
        params={"repo": repo, "number": number, "filter": digest.filter},
        public=command.public,
    )


def _live_pr(request: Request, repo: str, number: int) -> Answer:
    ctx, public = request.ctx, request.command.public
    if ctx.fetch_pr is None:  # no GitHub here (the sample, lookups off): say only what we know
        return _pr_not_found(repo, number, public, "cmd.answer.pr_not_stored")
    wait = ctx.lookups.take(request.caller.user_id, ctx.clock())
    if wait:
        return NoticeAnswer(
            kind=AnswerKind.RATE_LIMITED,
            repo=repo,
            number=number,
            key="cmd.answer.lookups_limited",
            params={"limit": ctx.lookups.limit, "minutes": (wait + 59) // 60},
        )
    started = NoticeAnswer(
        kind=AnswerKind.PR_LOOKUP,
        repo=repo,
        number=number,
        public=public,
        key="cmd.answer.pr_lookup_started",
        params={"repo": repo, "number": number},
    )
    return started if request.defer_lookup else answer_lookup(started, ctx)


def _pr_not_found(
    repo: str, number: int, public: bool, key: str = "cmd.answer.pr_not_found"
) -> NoticeAnswer:
    return NoticeAnswer(
        kind=AnswerKind.NOT_FOUND,
        repo=repo,
        number=number,
        public=public,
        key=key,
        params={"repo": repo, "number": number},
    )


def answer_lookup(started: Answer, ctx: EngineContext) -> Answer:
    """The answer to a PR_LOOKUP: the PR as GitHub has it, asked for at most
    `ctx.lookups.timeout` seconds (then a "GitHub is slow" answer), in `started`'s language."""
    reply = _lookup(started, ctx)
    reply.language = started.language
    return reply


def _lookup(started: Answer, ctx: EngineContext) -> Answer:
    repo, fetch = started.repo, ctx.fetch_pr
    number = started.number if isinstance(started, NoticeAnswer) else None
    if number is None or fetch is None:
        return _pr_not_found(repo, number or 0, started.public)
    try:
        live = bounded(lambda: fetch(repo, number), ctx.lookups.timeout)
    except TimeoutError:
        seconds = round(ctx.lookups.timeout)
        params: dict[str, str | int] = {"repo": repo, "number": number, "seconds": seconds}
        return ErrorAnswer(repo=repo, number=number, key="cmd.answer.pr_lookup_slow", params=params)
    except NotFoundError:
        return _pr_not_found(repo, number, started.public)
    except UpstreamError as exc:
        return ErrorAnswer(repo=repo, number=number, key="cmd.error.upstream", reason=reason(exc))
    except ServiceError as exc:
        return ErrorAnswer(repo=repo, number=number, key="cmd.error.service", reason=reason(exc))
    return PrAnswer(
        repo=repo,
        number=number,
        live_pr=live,
        public=started.public,
        discussion=discussion(live),
    )


SPEC = VerbSpec(
    name=NAME,
    respond=respond,
    tokens=(tokens.public, tokens.period, tokens.pr, tokens.repository),
    reads=True,
    filters=True,
    required=(("number", "cmd.error.missing_number"),),
    bad_argument="cmd.error.bad_number",
)
