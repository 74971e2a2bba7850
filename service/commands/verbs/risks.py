"""`risks [period] [high|medium|low] [public] [owner/repo] [filters]`: the period's risk items,
worst first, with the PRs they are about."""

from __future__ import annotations

from service.commands import tokens
from service.commands.context import Kept, digest_view
from service.commands.kinds import Answer, RisksAnswer
from service.commands.reading import envelope, read_digest
from service.commands.verbs import CardButton, Request, VerbSpec
from service.core.models import Digest, Risk, ScoredPR, Severity
from service.core.ranking import sorted_risks

NAME = "risks"


def respond(request: Request) -> Answer:
    command, ctx, repo = request.command, request.ctx, request.repo
    digest = read_digest(command, ctx, repo, request.period)
    if not isinstance(digest, Digest):
        return digest
    severity = command.severity
    view = digest_view(ctx.reader, digest, (NAME, severity), lambda: risks_of(digest, severity))
    worst_first, prs = view.value
    reply = RisksAnswer(
        risks=worst_first, severity=severity, prs=prs, **envelope(command, ctx, repo, digest)
    )
    reply.keep_renderings(view.renderings)  # the same view, the same message but the envelope
    return reply


def risks_of(digest: Digest, severity: Severity | None) -> Kept[tuple[list[Risk], list[ScoredPR]]]:
    """The risks of `severity` (all of them: None), worst first, and the PRs they are about."""
    risks = [r for r in digest.risks if severity in (None, r.severity)]
    return Kept((sorted_risks(risks), prs_of(digest, risks)))


def prs_of(digest: Digest, risks: list[Risk]) -> list[ScoredPR]:
    wanted = {n for r in risks for n in r.prs}
    return [p for p in digest.prs if p.number in wanted]


SPEC = VerbSpec(
    name=NAME,
    respond=respond,
    tokens=(tokens.public, tokens.period, tokens.severity, tokens.repository),
    aliases=("risk",),
    reads=True,
    filters=True,
    button=CardButton(filtered=True),
)
