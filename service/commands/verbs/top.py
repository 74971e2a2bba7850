"""`top [n] [period] [public] [owner/repo] [filters]`: the period's highest-scored PRs."""

from __future__ import annotations

from service.commands import tokens
from service.commands.context import Kept, digest_view
from service.commands.grammar import CommandError
from service.commands.kinds import Answer, TopAnswer
from service.commands.reading import envelope, read_digest
from service.commands.verbs import Request, VerbSpec
from service.core.models import Digest
from service.core.ranking import top_prs

NAME = "top"
MAX_TOP = 10
DEFAULT_TOP = 5


def limit(verb: str, token: str, fields: tokens.Fields) -> bool:
    """`5`: how many PRs (1 to MAX_TOP)."""
    if not token.isdigit() or "limit" in fields:
        return False
    value = int(token)
    if not 1 <= value <= MAX_TOP:
        raise CommandError("cmd.error.bad_limit", verb, value=token, max=MAX_TOP)
    fields["limit"] = value
    return True


def respond(request: Request) -> Answer:
    command, ctx, repo = request.command, request.ctx, request.repo
    digest = read_digest(command, ctx, repo, request.period)
    if not isinstance(digest, Digest):
        return digest
    limit = command.limit or DEFAULT_TOP
    view = digest_view(ctx.reader, digest, (NAME, limit), lambda: Kept(top_prs(digest, limit)))
    reply = TopAnswer(prs=view.value, **envelope(command, ctx, repo, digest))
    reply.keep_renderings(view.renderings)  # the same view, the same message but the envelope
    return reply


SPEC = VerbSpec(
    name=NAME,
    respond=respond,
    tokens=(tokens.public, tokens.period, limit, tokens.repository),
    reads=True,
    filters=True,
)
