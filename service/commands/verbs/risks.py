"""`risks [period] [high|medium|low] [public] [owner/repo] [filters]`: the period's risk items,
worst first, with the PRs they are about."""

from __future__ import annotations

from service.commands import tokens
from service.commands.kinds import Answer, RisksAnswer
from service.commands.reading import envelope, read_digest
from service.commands.verbs import CardButton, Request, VerbSpec
from service.core.models import Digest, Risk, ScoredPR
from service.core.ranking import sorted_risks

NAME = "risks"


def respond(request: Request) -> Answer:
    command, ctx, repo = request.command, request.ctx, request.repo
    digest = read_digest(command, ctx, repo, request.period)
    if not isinstance(digest, Digest):
        return digest
    risks = [r for r in digest.risks if command.severity in (None, r.severity)]
    return RisksAnswer(
        risks=sorted_risks(risks),
        severity=command.severity,
        prs=prs_of(digest, risks),
        **envelope(command, ctx, repo, digest),
    )


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
