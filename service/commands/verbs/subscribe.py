"""`subscribe [owner/repo|family] [weekly|monthly] [filters] [lang:…]` (admins): this channel
gets the scope's card at that cadence."""

from __future__ import annotations

from service.commands import tokens
from service.commands.kinds import Answer, AnswerKind, ErrorAnswer, SubscriptionAnswer
from service.commands.reading import canonical, filter_usage, unknown_module, usage_of
from service.commands.verbs import Request, VerbSpec
from service.core.cadences import MONTHLY, WEEKLY

NAME = "subscribe"
# a subscription's scope and cadence: `owner/repo` or a family's name, `weekly` or `monthly`
SCOPE_TOKENS = (tokens.repository, tokens.cadence, tokens.family)


def respond(request: Request) -> Answer:
    return change_subscription(request, subscribe=True)


def change_subscription(request: Request, *, subscribe: bool) -> Answer:
    """Subscribe this channel to (or unsubscribe it from) the command's scope and cadence."""
    command, ctx, repo, caller = request.command, request.ctx, request.repo, request.caller
    params: dict[str, str | int] = {"repo": repo, "channel": caller.channel}
    if ctx.subscriptions is None or not caller.channel:
        return ErrorAnswer(repo=repo, key="cmd.error.no_subscriptions", params=params)
    flt = canonical(command.filter, ctx, repo)
    latest = ctx.reader.latest_digest(repo, ctx.language) if flt.modules else None
    unknown = unknown_module(flt, ctx, repo, latest)
    if unknown:
        return filter_usage(ctx, repo, f"module:{unknown}", usage_of(command.verb), command.verb)
    text = flt.describe()
    params["filter"] = text
    suffix = ("_filter" if text else "") + ("_monthly" if command.cadence == MONTHLY else "")
    if subscribe:
        added = ctx.subscriptions.subscribe(
            caller.platform,
            caller.channel,
            repo,
            caller.user_id,
            filter_text=text,
            language=command.language,
            cadence=command.cadence or WEEKLY,
        )
        kind = AnswerKind.SUBSCRIBED if added else AnswerKind.ALREADY_SUBSCRIBED
    else:
        removed = ctx.subscriptions.unsubscribe(
            caller.platform, caller.channel, repo, filter_text=text or None, cadence=command.cadence
        )
        kind = AnswerKind.UNSUBSCRIBED if removed else AnswerKind.NOT_SUBSCRIBED
    return SubscriptionAnswer(
        kind=kind, repo=repo, filter=text, key=f"cmd.answer.{kind.value}{suffix}", params=params
    )


SPEC = VerbSpec(
    name=NAME, respond=respond, tokens=SCOPE_TOKENS, admin=True, filters=True, families=True
)
