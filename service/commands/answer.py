"""Answer a parsed Command from the stored digests: admin rule, regenerate gate, subscriptions.

Platform-neutral: the answer is one model per kind (`kinds.Answer`, a union on `kind`) that each
platform's renderer turns into blocks or a card. No words here; every sentence is a catalog key.
"""

from __future__ import annotations

from typing import TypedDict

from service.commands.context import (
    DIGEST_CACHE_TTL,
    CachedReader,
    Caller,
    DigestReader,
    EngineContext,
    Regenerations,
    RunResultLike,
    Subscriptions,
    bounded,
    find_pr,
)
from service.commands.failures import NOT_CONFIGURED_REASON, reason
from service.commands.filters import UNKNOWN_KEY, filter_keys
from service.commands.kinds import (
    Answer,
    AnswerKind,
    DigestViewAnswer,
    ErrorAnswer,
    HelpAnswer,
    NoDigestAnswer,
    NoMatchAnswer,
    NoticeAnswer,
    PrAnswer,
    RegenerateAnswer,
    RisksAnswer,
    Sentence,
    SubscriptionAnswer,
    SubscriptionsAnswer,
    SubscriptionView,
    TopAnswer,
    UsageErrorAnswer,
)
from service.commands.parse import (
    DEFAULT_TOP,
    READ_VERBS,
    RELATIVE_WEEKS,
    SCOPE_VERBS,
    Command,
    CommandError,
    Verb,
    parse_command,
)
from service.commands.periods import is_period_word, resolve_period
from service.core.analyst.sections import written
from service.core.cadences import MONTHLY, WEEKLY
from service.core.discussion import discussion
from service.core.filters import DigestFilter, narrow_digest, week_modules
from service.core.mentions import leaf_risks
from service.core.models import Digest, Risk, ScoredPR
from service.core.ranking import sorted_risks, top_prs
from service.core.scope import pr_key
from service.core.weeks import (
    WEEK_RE,
    has_not_begun,
    parse_week,
    refuse_before_time,
    window_for,
)
from service.errors import (
    InputError,
    NotFoundError,
    ServiceError,
    StoreUnavailableError,
    UpstreamError,
)

# `pr N` names at most this many earlier PRs it builds on
MAX_RELATIONS = 5

# the engine's context and answer types are re-exported: adapters import them from here
__all__ = [
    "DIGEST_CACHE_TTL",
    "Answer",
    "AnswerKind",
    "CachedReader",
    "Caller",
    "DigestReader",
    "EngineContext",
    "Regenerations",
    "RunResultLike",
    "SubscriptionView",
    "Subscriptions",
    "answer",
    "answer_failure",
    "answer_lookup",
    "answer_regenerated",
    "answer_text",
    "apply_filter",
    "regenerate_failed",
    "sorted_risks",
    "top_prs",
    "unavailable",
]


def usage_keys(verb: Verb | None) -> list[str]:
    """Catalog keys of the usage lines to show: one verb's, or every verb's."""
    if verb is not None:
        return [f"cmd.usage.{verb.value}"]
    return [*(f"cmd.usage.{v.value}" for v in Verb), "cmd.usage.filters"]


def answer_text(
    text: str, caller: Caller, ctx: EngineContext, *, defer_lookup: bool = False
) -> Answer:
    """Parse and answer in one go; bad text becomes a usage answer, never an exception."""
    try:
        command = parse_command(text)
    except CommandError as exc:
        reply: Answer
        if exc.key == UNKNOWN_KEY:  # the week's modules only to who may read the repository
            hide = not _readable(ctx, caller, ctx.repos[0])
            reply = _filter_usage(exc, ctx, ctx.repos[0], hide_modules=hide)
        else:
            reply = usage_error(exc)
        reply.language = ctx.language_for(caller)
        return reply
    return answer(command, caller, ctx, defer_lookup=defer_lookup)


def _readable(ctx: EngineContext, caller: Caller, repo: str) -> bool:
    """Whether `caller` may see what `repo`'s digests hold (its module names, say)."""
    try:
        return ctx.can_read(caller, repo)
    except ServiceError:
        return False


def usage_error(exc: CommandError) -> UsageErrorAnswer:
    """A CommandError as an answer carrying the usage of the verb concerned (or all verbs)."""
    return UsageErrorAnswer(
        key=exc.key,
        params=exc.params,
        usage=usage_keys(exc.usage),
        verb=exc.usage.value if exc.usage else "",
    )


def input_error(exc: InputError, verb: Verb | None) -> UsageErrorAnswer:
    """Input the engine could not use (a week of no calendar, say): the error's own catalog
    sentence, else the generic one, with the verb's usage."""
    key = exc.key or "cmd.error.input"
    return UsageErrorAnswer(key=key, params=exc.params, usage=usage_keys(verb))


def answer(
    command: Command, caller: Caller, ctx: EngineContext, *, defer_lookup: bool = False
) -> Answer:
    """The answer to `command` asked by `caller`, in the language it should be told in.
    `defer_lookup`: a `pr N` that must ask GitHub answers PR_LOOKUP at once, and the adapter
    gets the PR with `answer_lookup` afterwards (Slack wants its ack within 3 s)."""
    reply = _answer(command, caller, ctx, defer_lookup)
    reply.language = ctx.language_for(caller, command.language)
    scope = ctx.scope_for(reply.repo) if reply.repo else None
    if scope is not None and scope.is_family:
        reply.repos = list(scope.repos)
    return reply


def _answer(command: Command, caller: Caller, ctx: EngineContext, defer_lookup: bool) -> Answer:
    try:
        repo = _repo(command, ctx)
        if command.verb is Verb.HELP:
            return HelpAnswer(repo=repo, usage=usage_keys(None))
        if command.verb in READ_VERBS and not ctx.can_read(caller, repo):
            return _private(command, repo)
        if command.verb in (Verb.REGENERATE, Verb.SUBSCRIBE, Verb.UNSUBSCRIBE):
            return _admin_answer(command, caller, ctx, repo)
        if command.verb is Verb.SUBSCRIPTIONS:
            return _subscriptions_answer(caller, ctx, repo)
        if command.verb is Verb.PR:
            return _pr_answer(command, caller, ctx, repo, defer_lookup)
        return _digest_answer(command, ctx, repo)
    except CommandError as exc:
        return usage_error(exc)
    except InputError as exc:
        return input_error(exc, command.verb)
    except StoreUnavailableError:  # an outage: the store's own log line says why, once
        return unavailable()
    except ServiceError as exc:  # the store or GitHub failed: say so, with what to do next
        return ErrorAnswer(key="cmd.error.service", reason=reason(exc))


def _private(command: Command, repo: str) -> NoticeAnswer:
    """A private repository asked about where its digest does not go, by a non-admin."""
    return NoticeAnswer(
        kind=AnswerKind.DENIED,
        repo=repo,
        verb=command.verb.value,
        key="cmd.answer.private_repo",
        params={"repo": repo},
    )


def _repo(command: Command, ctx: EngineContext) -> str:
    """The repository the command is about, by its name now (an old name of a repository that
    moved is still understood)."""
    now = ctx.current_name or (lambda name: name)
    if command.repo is None:
        return now(ctx.repos[0])
    found = now(command.repo)
    if command.verb in SCOPE_VERBS and ctx.scope_for(found).is_family:
        return found  # a family of DIGEST_GROUPS: subscribed to whether DIGEST_REPOS names it
    if found not in {now(repo) for repo in ctx.repos}:
        raise CommandError(
            "cmd.error.unknown_repo", command.verb, repo=command.repo, repos=", ".join(ctx.repos)
        )
    return found


def resolve_week(week: str | None, ctx: EngineContext, verb: Verb | None = None) -> str | None:
    """`last`/`this` → an ISO label in the context's timezone; a label or None as is.
    A week that has not begun is a usage error (of `verb`)."""
    if week in RELATIVE_WEEKS:
        return parse_week(week, ctx.timezone, ctx.clock()).label
    if week is not None and is_period_word(week):  # a month or a range
        return resolve_period(week, ctx.timezone, ctx.clock(), verb)
    match = WEEK_RE.match(week) if week is not None else None
    if match is not None:
        window = window_for(int(match.group(1)), int(match.group(2)), ctx.timezone)
        if has_not_begun(window, ctx.clock()):
            raise CommandError("cmd.error.future_week", verb, week=window.label)
        try:
            refuse_before_time(window)
        except InputError as exc:
            raise CommandError(exc.key, verb, **exc.params) from None
    return week


def _url(ctx: EngineContext, repo: str, week: str) -> str:
    return ctx.report_url(repo, week) if ctx.report_url and week else ""


def _load(command: Command, ctx: EngineContext, repo: str) -> Digest | NoDigestAnswer:
    week = resolve_week(command.week, ctx, command.verb)
    if week is None:
        digest = ctx.reader.latest_digest(repo, ctx.language)
    else:
        digest = ctx.reader.get_digest(repo, week, ctx.language)
    if digest is not None:
        return digest
    weeks = ctx.reader.list_weeks(repo, ctx.language)
    return NoDigestAnswer(
        repo=repo,
        week=week or "",
        weeks=weeks[:5],
        key="cmd.answer.no_digest_week" if week else "cmd.answer.no_digest",
        params={"repo": repo, "week": week or ""},
        public=command.public,
    )


def _canonical(flt: DigestFilter, ctx: EngineContext, repo: str) -> DigestFilter:
    """Module names as the classifier writes them (`npu` → `hardware` for verl)."""
    if not flt.modules or ctx.profile_for is None:
        return flt
    profile = ctx.profile_for(repo)
    modules = dict.fromkeys(profile.canonical_module(m) for m in flt.modules)
    return flt.model_copy(update={"modules": tuple(modules)})


def _unknown_module(flt: DigestFilter, ctx: EngineContext, repo: str, digest: Digest | None) -> str:
    """The first module of `flt` neither the week nor the repo's profile knows, or ""."""
    known = {m.lower() for m in week_modules(digest)} if digest else set()
    if ctx.profile_for is not None:
        known |= ctx.profile_for(repo).module_names()
    return next((m for m in flt.modules if m.lower() not in known), "")


def _filter_usage(
    exc: CommandError | None,
    ctx: EngineContext,
    repo: str,
    *,
    value: str = "",
    verb: Verb | None = None,
    hide_modules: bool = False,
) -> UsageErrorAnswer:
    """An unknown filter key or module: the usage, the keys and the week's module names."""
    try:
        digest = None if hide_modules else ctx.reader.latest_digest(repo, ctx.language)
    except ServiceError:
        digest = None
    usage = exc.usage if exc is not None else verb
    return UsageErrorAnswer(
        repo=repo,
        key=UNKNOWN_KEY,
        params={
            "value": str(exc.params.get("value", "")) if exc is not None else value,
            "keys": filter_keys(),
            "modules": ", ".join(week_modules(digest)) if digest else "-",
        },
        usage=["cmd.usage.filters", *usage_keys(usage)],
        verb=usage.value if usage else "",
    )


def apply_filter(
    command: Command, ctx: EngineContext, repo: str, digest: Digest
) -> Digest | UsageErrorAnswer | NoMatchAnswer:
    """The digest narrowed to the command's filter, or the answer that says why it can't be."""
    if command.filter.empty:
        return digest
    flt = _canonical(command.filter, ctx, repo)
    unknown = _unknown_module(flt, ctx, repo, digest)
    if unknown:
        return _filter_usage(None, ctx, repo, value=f"module:{unknown}", verb=command.verb)
    before = digest.trends.previous_week
    previous = ctx.reader.get_digest(repo, before, ctx.language) if before else None
    narrowed = narrow_digest(digest, flt, previous)
    if narrowed.prs:
        return narrowed
    return NoMatchAnswer(
        repo=repo,
        week=digest.week,
        filter=narrowed.filter,
        key="cmd.answer.no_match",
        params={"repo": repo, "week": digest.week, "filter": narrowed.filter},
        public=command.public,
        report_url=_url(ctx, repo, digest.week),
    )


class _Envelope(TypedDict):
    repo: str
    week: str
    public: bool
    report_url: str
    filter: str


def _digest_answer(command: Command, ctx: EngineContext, repo: str) -> Answer:
    loaded = _load(command, ctx, repo)
    if not isinstance(loaded, Digest):
        return loaded
    digest = apply_filter(command, ctx, repo, loaded)
    if not isinstance(digest, Digest):
        return digest
    base = _Envelope(
        repo=repo,
        week=digest.week,
        public=command.public,
        report_url=_url(ctx, repo, digest.week),
        filter=digest.filter,
    )
    if command.verb is Verb.RISKS:
        risks = [r for r in digest.risks if command.severity in (None, r.severity)]
        return RisksAnswer(
            risks=sorted_risks(risks),
            severity=command.severity,
            prs=_prs_of(digest, risks),
            **base,
        )
    if command.verb is Verb.TOP:
        return TopAnswer(prs=top_prs(digest, command.limit or DEFAULT_TOP), **base)
    kind = {Verb.TRENDS: AnswerKind.TRENDS, Verb.SUMMARY: AnswerKind.SUMMARY}.get(
        command.verb, AnswerKind.WEEK
    )
    return DigestViewAnswer(kind=kind, digest=digest, **base)


def _prs_of(digest: Digest, risks: list[Risk]) -> list[ScoredPR]:
    wanted = {n for r in risks for n in r.prs}
    return [p for p in digest.prs if p.number in wanted]


def _pr_answer(
    command: Command, caller: Caller, ctx: EngineContext, repo: str, defer_lookup: bool
) -> Answer:
    assert command.number is not None  # noqa: S101 - parse_command guarantees it for `pr`
    member, number = _member_key(command, ctx, repo)
    week = resolve_week(command.week, ctx, command.verb)
    weeks = [week] if week else ctx.reader.list_weeks(repo, ctx.language)
    for label in weeks:
        stored = ctx.reader.get_digest(repo, label, ctx.language)
        if stored is None or find_pr(ctx.reader, stored, number) is None:
            continue
        digest = apply_filter(command, ctx, repo, stored)
        if not isinstance(digest, Digest):
            return digest
        found = find_pr(ctx.reader, digest, number)
        if found is None:
            return _pr_outside_filter(command, repo, digest, number)
        # a roll-up's member about this PR, not the whole roll-up of many PRs
        risks = [r for r in leaf_risks(digest.risks) if number in r.prs]
        # the model's point in the answer's language, when it wrote in that language
        view = written(digest, ctx.language_for(caller, command.language))
        return PrAnswer(
            point=view.point(number) if view else None,
            point_model=view.model if view else "",
            repo=repo,
            week=digest.week,
            pr=found,
            number=number,
            risks=sorted_risks(risks),
            public=command.public,
            report_url=_url(ctx, repo, digest.week),
            filter=digest.filter,
            discussion=found.discussion,
            relations=[r for r in digest.relations if r.pr == number][:MAX_RELATIONS],
        )
    # not in a stored digest: asked of its own repository, by its own number
    return _live_pr(command, caller, ctx, member, command.number, defer_lookup)


def _member_key(command: Command, ctx: EngineContext, repo: str) -> tuple[str, int]:
    """The repository `pr N` / `pr verl-omni#N` is about and the PR's key in `repo`'s digests:
    in a family, `N` alone is a PR of its first repository (core/scope.py)."""
    assert command.number is not None  # noqa: S101 - parse_command guarantees it for `pr`
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
        week=digest.week,
        number=number,
        filter=digest.filter,
        key="cmd.answer.pr_no_match",
        params={"repo": repo, "number": number, "filter": digest.filter},
        public=command.public,
    )


def _live_pr(
    command: Command,
    caller: Caller,
    ctx: EngineContext,
    repo: str,
    number: int,
    defer_lookup: bool,
) -> Answer:
    if ctx.fetch_pr is None:  # no GitHub here (the sample, lookups off): say only what we know
        return _pr_not_found(repo, number, command.public, "cmd.answer.pr_not_stored")
    wait = ctx.lookups.take(caller.user_id, ctx.clock())
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
        public=command.public,
        key="cmd.answer.pr_lookup_started",
        params={"repo": repo, "number": number},
    )
    return started if defer_lookup else answer_lookup(started, ctx)


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


def _admin_answer(command: Command, caller: Caller, ctx: EngineContext, repo: str) -> Answer:
    if not ctx.is_admin(caller):
        return NoticeAnswer(
            kind=AnswerKind.DENIED,
            repo=repo,
            verb=command.verb.value,
            key="cmd.answer.denied",
            params={"command": command.verb.value},
        )
    if command.verb is Verb.REGENERATE:
        return _regenerate_answer(command, caller, ctx, repo)
    return _subscription_answer(command, caller, ctx, repo)


def _regenerate_answer(command: Command, caller: Caller, ctx: EngineContext, repo: str) -> Answer:
    week = resolve_week(command.week or "last", ctx, command.verb) or ""
    now = ctx.clock()
    wait = ctx.regenerations.wait_seconds(caller.user_id, now)
    if wait:
        return NoticeAnswer(
            kind=AnswerKind.RATE_LIMITED,
            repo=repo,
            week=week,
            key="cmd.answer.rate_limited",
            params={"seconds": wait},
        )
    params: dict[str, str | int] = {"repo": repo, "week": week}
    if not ctx.regenerations.try_start(caller.user_id, repo, week, now):
        return RegenerateAnswer(
            kind=AnswerKind.REGENERATE_BUSY,
            repo=repo,
            week=week,
            key="cmd.answer.regenerate_busy",
            params=params,
        )
    return RegenerateAnswer(
        kind=AnswerKind.REGENERATE_STARTED,
        repo=repo,
        week=week,
        key="cmd.answer.regenerate_started",
        params=params,
        report_url=_url(ctx, repo, week),
    )


def answer_regenerated(result: RunResultLike, ctx: EngineContext) -> RegenerateAnswer:
    """The answer sent after the rebuild (through response_url or a reply)."""
    params: dict[str, str | int] = {"repo": result.repo, "week": result.period}
    url = _url(ctx, result.repo, result.period)
    if result.outcome in ("ok", "partial") and result.digest is not None:
        params["prs"] = result.digest.stats.prs
        params["risks"] = len(result.digest.risks)
        key = "cmd.answer.regenerate_done" + ("_partial" if result.outcome == "partial" else "")
        return RegenerateAnswer(
            kind=AnswerKind.REGENERATE_DONE,
            repo=result.repo,
            week=result.period,
            key=key,
            params=params,
            report_url=url,
        )
    if result.outcome == "locked":
        return RegenerateAnswer(
            kind=AnswerKind.REGENERATE_BUSY,
            repo=result.repo,
            week=result.period,
            key="cmd.answer.regenerate_busy",
            params=params,
        )
    return regenerate_failed(result.repo, result.period, result.failure)


def regenerate_failed(repo: str, week: str, exc: ServiceError | None) -> RegenerateAnswer:
    """Regenerate of (repo, week) failed: `exc` says why (None: it is not set up here)."""
    cause = reason(exc) if exc is not None else Sentence(key=NOT_CONFIGURED_REASON)
    return RegenerateAnswer(
        kind=AnswerKind.REGENERATE_FAILED,
        repo=repo,
        week=week,
        key="cmd.answer.regenerate_failed",
        params={"repo": repo, "week": week},
        reason=cause,
    )


def _subscription_answer(command: Command, caller: Caller, ctx: EngineContext, repo: str) -> Answer:
    params: dict[str, str | int] = {"repo": repo, "channel": caller.channel}
    if ctx.subscriptions is None or not caller.channel:
        return ErrorAnswer(repo=repo, key="cmd.error.no_subscriptions", params=params)
    flt = _canonical(command.filter, ctx, repo)
    latest = ctx.reader.latest_digest(repo, ctx.language) if flt.modules else None
    unknown = _unknown_module(flt, ctx, repo, latest)
    if unknown:
        return _filter_usage(None, ctx, repo, value=f"module:{unknown}", verb=command.verb)
    text = flt.describe()
    params["filter"] = text
    suffix = ("_filter" if text else "") + ("_monthly" if command.cadence == MONTHLY else "")
    if command.verb is Verb.SUBSCRIBE:
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


def _subscriptions_answer(caller: Caller, ctx: EngineContext, repo: str) -> Answer:
    """This channel's subscriptions, every repo, with filter and language."""
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


def unavailable() -> ErrorAnswer:
    """The database does not answer: temporarily unavailable, try again in a few minutes."""
    return ErrorAnswer(key="cmd.error.unavailable")


def answer_failure(incident: str) -> ErrorAnswer:
    """An unexpected failure, told with the incident id the log carries with the traceback."""
    return ErrorAnswer(key="cmd.error.internal", params={"incident": incident}, incident=incident)
