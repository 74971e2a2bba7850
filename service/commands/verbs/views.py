"""What `summary`, `trends`, `week` and `month` share: a view of one (possibly filtered) digest,
told as the kind of answer each names."""

from __future__ import annotations

from service.commands import tokens
from service.commands.kinds import Answer, AnswerKind, DigestViewAnswer
from service.commands.reading import envelope, read_digest
from service.commands.verbs import Request, Respond
from service.core.models import Digest

# the tokens of a digest's view: `[period] [public] [owner/repo]`
VIEW_TOKENS = (tokens.public, tokens.period, tokens.repository)


def digest_view(kind: AnswerKind) -> Respond:
    """The answer function of a view of `kind`."""

    def respond(request: Request) -> Answer:
        command, ctx, repo = request.command, request.ctx, request.repo
        digest = read_digest(command, ctx, repo, request.period)
        if not isinstance(digest, Digest):
            return digest
        return DigestViewAnswer(kind=kind, digest=digest, **envelope(command, ctx, repo, digest))

    return respond
