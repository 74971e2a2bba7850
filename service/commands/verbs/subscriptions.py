"""`subscriptions`: this channel's subscriptions, every scope, with cadence, filter and
language."""

from __future__ import annotations

from service.commands import tokens
from service.commands.kinds import Answer, ErrorAnswer, SubscriptionsAnswer, SubscriptionView
from service.commands.verbs import Request, VerbSpec


def respond(request: Request) -> Answer:
    ctx, repo, caller = request.ctx, request.repo, request.caller
    params: dict[str, str | int] = {"repo": repo, "channel": caller.channel}
    if ctx.subscriptions is None or not caller.channel:
        return ErrorAnswer(repo=repo, key="cmd.error.no_subscriptions", params=params)
    found = ctx.subscriptions.channel_subscriptions(caller.platform, caller.channel)
    views = [
        SubscriptionView(
            repo=s.repo, filter=s.filter, language=s.language or ctx.language, cadence=s.cadence
        )
        for s in found
    ]
    key = "cmd.answer.subscriptions" if views else "cmd.answer.no_subscriptions_here"
    return SubscriptionsAnswer(repo=repo, subscriptions=views, key=key, params=params)


SPEC = VerbSpec(name="subscriptions", respond=respond, tokens=(tokens.repository,))
