"""`regenerate [period] [owner/repo]` (admins): rebuild a period's digest. Answered at once
(started, busy, limited); the flow runs the rebuild after the acknowledgement and tells its
outcome (`answer_regenerated`)."""

from __future__ import annotations

from service.commands import tokens
from service.commands.context import EngineContext, RunResultLike
from service.commands.failures import NOT_CONFIGURED_REASON, reason
from service.commands.kinds import Answer, AnswerKind, NoticeAnswer, RegenerateAnswer, Sentence
from service.commands.reading import report_url
from service.commands.verbs import CardButton, Request, VerbSpec
from service.core.models import Period
from service.errors import ServiceError

NAME = "regenerate"


def respond(request: Request) -> Answer:
    ctx, repo, caller = request.ctx, request.repo, request.caller
    period = request.period
    assert period is not None  # noqa: S101 - SPEC.unnamed_period: never None
    now = ctx.clock()
    wait = ctx.regenerations.wait_seconds(caller.user_id, now)
    if wait:
        return NoticeAnswer(
            kind=AnswerKind.RATE_LIMITED,
            repo=repo,
            period=period,
            key="cmd.answer.rate_limited",
            params={"seconds": wait},
        )
    params: dict[str, str | int] = {"repo": repo, "week": period.label}
    if not ctx.regenerations.try_start(caller.user_id, repo, period, now):
        return RegenerateAnswer(
            kind=AnswerKind.REGENERATE_BUSY,
            repo=repo,
            period=period,
            key="cmd.answer.regenerate_busy",
            params=params,
        )
    return RegenerateAnswer(
        kind=AnswerKind.REGENERATE_STARTED,
        repo=repo,
        period=period,
        key="cmd.answer.regenerate_started",
        params=params,
        report_url=report_url(ctx, repo, period),
    )


def answer_regenerated(result: RunResultLike, ctx: EngineContext) -> RegenerateAnswer:
    """The answer sent after the rebuild (through response_url or a reply)."""
    period = result.period
    params: dict[str, str | int] = {"repo": result.repo, "week": period.label}
    url = report_url(ctx, result.repo, period)
    if result.outcome in ("ok", "partial") and result.digest is not None:
        params["prs"] = result.digest.stats.prs
        params["risks"] = len(result.digest.risks)
        key = "cmd.answer.regenerate_done" + ("_partial" if result.outcome == "partial" else "")
        return RegenerateAnswer(
            kind=AnswerKind.REGENERATE_DONE,
            repo=result.repo,
            period=period,
            key=key,
            params=params,
            report_url=url,
        )
    if result.outcome == "locked":
        return RegenerateAnswer(
            kind=AnswerKind.REGENERATE_BUSY,
            repo=result.repo,
            period=period,
            key="cmd.answer.regenerate_busy",
            params=params,
        )
    return regenerate_failed(result.repo, period, result.failure)


def regenerate_failed(repo: str, period: Period, exc: ServiceError | None) -> RegenerateAnswer:
    """Regenerate of (repo, period) failed: `exc` says why (None: it is not set up here)."""
    cause = reason(exc) if exc is not None else Sentence(key=NOT_CONFIGURED_REASON)
    return RegenerateAnswer(
        kind=AnswerKind.REGENERATE_FAILED,
        repo=repo,
        period=period,
        key="cmd.answer.regenerate_failed",
        params={"repo": repo, "week": period.label},
        reason=cause,
    )


SPEC = VerbSpec(
    name=NAME,
    respond=respond,
    tokens=(tokens.period, tokens.repository),
    aliases=("regen",),
    unnamed_period="last",
    admin=True,
    button=CardButton(style="danger"),
)
