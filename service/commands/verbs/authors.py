"""`authors [period] [public] [owner/repo] [filters]`: who wrote the period's merged PRs, with
how many each, most first (from the stored digest; a filter narrows the PRs counted).

The whole verb is this module, its line in the registry, its words (templates/strings/<lang>/
authors.toml) and its text view (templates/text/authors.md.j2), which Slack and Feishu show as
the plain-text fallback (render/answers.py).
"""

from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from service.commands import tokens
from service.commands.kinds import Answer, AnswerBase
from service.commands.reading import envelope, read_digest
from service.commands.verbs import Request, VerbSpec
from service.core.models import Digest

NAME = "authors"


class AuthorCount(BaseModel):
    """One author and the number of the period's merged PRs they wrote."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    login: str
    prs: int


class AuthorsAnswer(AnswerBase):
    kind: Literal["authors"] = "authors"
    authors: list[AuthorCount] = Field(default_factory=list)
    # the period's merged PRs (those with no known author too)
    prs: int = 0


def authors_of(digest: Digest) -> list[AuthorCount]:
    """The authors of `digest`'s PRs, most PRs first, then by login (case aside)."""
    counts = Counter(p.author for p in digest.prs if p.author)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0].lower(), item[0]))
    return [AuthorCount(login=login, prs=count) for login, count in ranked]


def respond(request: Request) -> Answer:
    command, ctx, repo = request.command, request.ctx, request.repo
    digest = read_digest(command, ctx, repo, request.period)
    if not isinstance(digest, Digest):
        return digest
    return AuthorsAnswer(
        authors=authors_of(digest), prs=len(digest.prs), **envelope(command, ctx, repo, digest)
    )


SPEC = VerbSpec(
    name=NAME,
    respond=respond,
    tokens=(tokens.public, tokens.period, tokens.repository),
    aliases=("who",),
    reads=True,
    filters=True,
    models=(AuthorsAnswer,),
)
