"""What the verbs that read stored digests share: the digest of the period a command names
(resolved by the engine before the verb answers: commands/periods.resolve_ref), or the answer
that says none is stored; a filter applied to it (or the answer that says why it can't be);
the envelope of a digest's answer."""

from __future__ import annotations

from typing import TypedDict

from service.commands.context import EngineContext
from service.commands.filters import UNKNOWN_KEY, filter_keys
from service.commands.grammar import Command
from service.commands.kinds import Answer, NoDigestAnswer, NoMatchAnswer, UsageErrorAnswer
from service.core.filters import DigestFilter, narrow_digest, week_modules
from service.core.models import Digest, Period
from service.errors import ServiceError


def usage_of(verb: str | None) -> list[str]:
    """The usage line keys of one verb ([] for none)."""
    return [f"cmd.usage.{verb}"] if verb else []


def report_url(ctx: EngineContext, repo: str, period: Period | None) -> str:
    """The URL of `repo`'s report of `period` ("" for none, or where reports are not served):
    a URL names the period by its label."""
    return ctx.report_url(repo, period.label) if ctx.report_url and period else ""


def stored_periods(ctx: EngineContext, repo: str) -> list[Period]:
    """The stored weeks of `repo` in the context's language, newest first (the store lists
    their labels)."""
    labels = ctx.reader.list_periods(repo, ctx.language)
    return [Period.of_label(label, ctx.timezone) for label in labels]


def load(
    command: Command, ctx: EngineContext, repo: str, period: Period | None
) -> Digest | NoDigestAnswer:
    """The digest of the command's (resolved) `period` (the newest for none), or the answer
    that none is."""
    if period is None:
        digest = ctx.reader.latest_digest(repo, ctx.language)
    else:
        digest = ctx.reader.get_digest(repo, period, ctx.language)
    if digest is not None:
        return digest
    weeks = ctx.reader.list_periods(repo, ctx.language)
    label = period.label if period is not None else ""
    return NoDigestAnswer(
        repo=repo,
        period=period,
        weeks=weeks[:5],
        key="cmd.answer.no_digest_week" if period else "cmd.answer.no_digest",
        params={"repo": repo, "week": label},
        public=command.public,
    )


def canonical(flt: DigestFilter, ctx: EngineContext, repo: str) -> DigestFilter:
    """Module names as the classifier writes them (`npu` → `hardware` for verl)."""
    if not flt.modules or ctx.profile_for is None:
        return flt
    profile = ctx.profile_for(repo)
    modules = dict.fromkeys(profile.canonical_module(m) for m in flt.modules)
    return flt.model_copy(update={"modules": tuple(modules)})


def unknown_module(flt: DigestFilter, ctx: EngineContext, repo: str, digest: Digest | None) -> str:
    """The first module of `flt` neither the week nor the repo's profile knows, or ""."""
    known = {m.lower() for m in week_modules(digest)} if digest else set()
    if ctx.profile_for is not None:
        known |= ctx.profile_for(repo).module_names()
    return next((m for m in flt.modules if m.lower() not in known), "")


def filter_usage(
    ctx: EngineContext,
    repo: str,
    value: str,
    usage: list[str],
    verb: str | None,
    *,
    hide_modules: bool = False,
) -> UsageErrorAnswer:
    """An unknown filter key or module: the usage, the keys and the week's module names."""
    try:
        digest = None if hide_modules else ctx.reader.latest_digest(repo, ctx.language)
    except ServiceError:
        digest = None
    return UsageErrorAnswer(
        repo=repo,
        key=UNKNOWN_KEY,
        params={
            "value": value,
            "keys": filter_keys(),
            "modules": ", ".join(week_modules(digest)) if digest else "-",
        },
        usage=["cmd.usage.filters", *usage],
        verb=verb or "",
    )


def apply_filter(
    command: Command, ctx: EngineContext, repo: str, digest: Digest
) -> Digest | UsageErrorAnswer | NoMatchAnswer:
    """The digest narrowed to the command's filter, or the answer that says why it can't be."""
    if command.filter.empty:
        return digest
    flt = canonical(command.filter, ctx, repo)
    unknown = unknown_module(flt, ctx, repo, digest)
    if unknown:
        value = f"module:{unknown}"
        return filter_usage(ctx, repo, value, usage_of(command.verb), command.verb)
    before = digest.trends.previous_period  # a stored label: read as a period of the digest's
    previous = (
        ctx.reader.get_digest(repo, Period.of_label(before, digest.timezone), ctx.language)
        if before
        else None
    )
    narrowed = narrow_digest(digest, flt, previous)
    if narrowed.prs:
        return narrowed
    told = digest.window
    return NoMatchAnswer(
        repo=repo,
        period=told,
        filter=narrowed.filter,
        key="cmd.answer.no_match",
        params={"repo": repo, "week": told.label, "filter": narrowed.filter},
        public=command.public,
        report_url=report_url(ctx, repo, told),
    )


class Envelope(TypedDict):
    repo: str
    period: Period
    public: bool
    report_url: str
    filter: str


def envelope(command: Command, ctx: EngineContext, repo: str, digest: Digest) -> Envelope:
    """Where a digest's answer is about, to whom it is shown and the report it links."""
    told = digest.window
    return Envelope(
        repo=repo,
        period=told,
        public=command.public,
        report_url=report_url(ctx, repo, told),
        filter=digest.filter,
    )


def read_digest(
    command: Command, ctx: EngineContext, repo: str, period: Period | None
) -> Digest | Answer:
    """The digest of the command's (resolved) `period` with its filter applied, or the answer
    that says why there is none."""
    loaded = load(command, ctx, repo, period)
    if not isinstance(loaded, Digest):
        return loaded
    return apply_filter(command, ctx, repo, loaded)
