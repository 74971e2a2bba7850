"""Answering commands from the real store: reads, admin rule, regenerate gate, subscriptions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

import pytest

from service.commands.answer import (
    AnswerKind,
    Caller,
    EngineContext,
    answer_failure,
    answer_regenerated,
    answer_text,
    usage_keys,
)
from service.commands.context import REGENERATE_INTERVAL, LiveLookups
from service.commands.kinds import (
    DigestViewAnswer,
    ErrorAnswer,
    HelpAnswer,
    NoDigestAnswer,
    NoticeAnswer,
    PrAnswer,
    RegenerateAnswer,
    RisksAnswer,
    Sentence,
    TopAnswer,
    UsageErrorAnswer,
)
from service.commands.registry import verb_names
from service.core.models import Digest, Period, PullRequest, Severity
from service.errors import InputError, NotFoundError, ServiceError, UnreachableError
from service.store.repository import Store
from tests.answers import as_kind
from tests.commands.conftest import ADMIN, REPO, Clock
from tests.conftest import load_week
from tests.periods import TIMEZONE, period

USER = Caller(user_id="UPLAIN", platform="slack", channel="C1")
ADMIN_CALLER = Caller(user_id=ADMIN, platform="slack", channel="C1")
Ctx = Callable[..., EngineContext]


def test_risks_without_week_answer_from_the_newest_digest(
    make_ctx: Ctx, digests: dict[str, Digest]
) -> None:
    reply = answer_text("risks", USER, make_ctx())
    newest = digests["2026-W04"]
    assert reply.kind is AnswerKind.RISKS
    assert isinstance(reply, RisksAnswer)
    assert reply.period == newest.window  # the digest's own period, not a label
    assert len(reply.risks) == len(newest.risks)
    assert reply.public is False
    assert reply.report_url.endswith("/reports/volcengine/verl/2026-W04")
    order = {Severity.HIGH: 0, Severity.MEDIUM: 1, Severity.LOW: 2}
    assert [order[r.severity] for r in reply.risks] == sorted(
        order[r.severity] for r in reply.risks
    )


def test_risks_filter_by_severity_and_week(make_ctx: Ctx, digests: dict[str, Digest]) -> None:
    for label, digest in digests.items():
        for severity in Severity:
            reply = answer_text(f"risks {label} {severity.value} public", USER, make_ctx())
            assert isinstance(reply, RisksAnswer)
            assert reply.period == digest.window
            assert reply.public is True
            assert all(r.severity is severity for r in reply.risks)
            assert len(reply.risks) == sum(r.severity is severity for r in digest.risks)


def test_relative_week_resolves_in_the_timezone(make_ctx: Ctx, clock: Clock) -> None:
    clock.now = clock.now.replace(year=2026, month=1, day=28)  # inside 2026-W05
    last = answer_text("summary last", USER, make_ctx()).period
    assert last is not None
    assert last.label == "2026-W04"
    reply = answer_text("summary this", USER, make_ctx())
    assert reply.kind is AnswerKind.NO_DIGEST
    assert isinstance(reply, NoDigestAnswer)
    assert reply.period == period("2026-W05", "Asia/Shanghai")  # as the engine resolved it
    assert reply.weeks[0] == "2026-W04"


def test_pr_comes_from_the_digest_that_contains_it(
    make_ctx: Ctx, digests: dict[str, Digest]
) -> None:
    for digest in digests.values():
        pr = digest.prs[-1]
        reply = answer_text(f"pr #{pr.number}", USER, make_ctx())
        assert reply.kind is AnswerKind.PR
        assert isinstance(reply, PrAnswer)
        assert reply.period == digest.window
        assert reply.pr == pr
        assert {r.kind for r in reply.risks} == {r.kind for r in digest.risks if pr.number in r.prs}


def test_pr_of_a_rolled_up_risk_shows_its_own_member(
    make_ctx: Ctx, digests: dict[str, Digest]
) -> None:
    """2026-W03 rolls core-without-tests up over four PRs: `pr N` shows N's own risk, with N's
    evidence only, not the roll-up naming the other three."""
    rollup = next(r for r in digests["2026-W03"].risks if r.members)
    for member in rollup.members:
        (number,) = member.prs
        reply = answer_text(f"pr {number} 2026-W03", USER, make_ctx())
        assert isinstance(reply, PrAnswer)
        own = [r for r in reply.risks if r.kind is rollup.kind]
        assert own == [member]
        assert all(ev.pr in (None, number) for r in reply.risks for ev in r.evidence)


def test_pr_with_a_week_that_does_not_hold_it_is_fetched_live(
    make_ctx: Ctx, digests: dict[str, Digest]
) -> None:
    number = digests["2025-W47"].prs[0].number
    live = load_week("2025-W47").prs[0]
    asked: list[tuple[str, int]] = []

    def fetch(repo: str, n: int) -> PullRequest:
        asked.append((repo, n))
        return live

    reply = answer_text(f"pr {number} 2026-W04", USER, make_ctx(fetch_pr=fetch))
    assert reply.kind is AnswerKind.PR
    assert isinstance(reply, PrAnswer)
    assert reply.live_pr == live
    assert reply.pr is None
    assert asked == [(REPO, number)]


def test_pr_nowhere_is_not_found(make_ctx: Ctx) -> None:
    def missing(repo: str, n: int) -> PullRequest:
        raise NotFoundError(f"{repo}#{n} not found")

    for ctx, key in (
        # no GitHub to ask (the sample, lookups off): it is not claimed that GitHub was asked
        (make_ctx(), "cmd.answer.pr_not_stored"),
        (make_ctx(fetch_pr=missing), "cmd.answer.pr_not_found"),
    ):
        reply = answer_text("pr 1", USER, ctx)
        assert reply.kind is AnswerKind.NOT_FOUND
        assert isinstance(reply, NoticeAnswer)
        assert reply.params == {"repo": REPO, "number": 1}
        assert reply.key == key


def test_pr_when_github_is_down_says_so(make_ctx: Ctx) -> None:
    def down(repo: str, n: int) -> PullRequest:
        raise UnreachableError("connection refused")

    reply = answer_text("pr 1", USER, make_ctx(fetch_pr=down))
    assert reply.kind is AnswerKind.ERROR
    assert isinstance(reply, ErrorAnswer)
    # the cause is a catalog sentence, never the error's English message
    assert (reply.key, reply.reason) == (
        "cmd.error.upstream",
        Sentence(key="cmd.reason.unreachable"),
    )


def test_top_is_ordered_by_score(make_ctx: Ctx, digests: dict[str, Digest]) -> None:
    reply = answer_text("top 3 2026-W03", USER, make_ctx())
    assert isinstance(reply, TopAnswer)
    scores = sorted((p.score for p in digests["2026-W03"].prs), reverse=True)[:3]
    assert [p.score for p in reply.prs] == scores
    top = as_kind(answer_text("top", USER, make_ctx()), TopAnswer)
    assert len(top.prs) == min(5, len(digests["2026-W04"].prs))


def test_summary_trends_and_week_carry_the_digest(
    make_ctx: Ctx, digests: dict[str, Digest]
) -> None:
    summary = as_kind(answer_text("summary", USER, make_ctx()), DigestViewAnswer)
    assert summary.digest == digests["2026-W04"]
    trends = answer_text("trends 2025-W48", USER, make_ctx())
    assert trends.kind is AnswerKind.TRENDS
    assert isinstance(trends, DigestViewAnswer)
    assert trends.digest.trends == digests["2025-W48"].trends
    week = answer_text("week 2025-W47 public", USER, make_ctx())
    assert week.kind is AnswerKind.WEEK
    assert isinstance(week, DigestViewAnswer)
    assert week.public
    assert week.digest == digests["2025-W47"]


def test_empty_store_says_there_is_no_digest(tmp_path: object, make_ctx: Ctx) -> None:
    empty = Store.open(f"sqlite:///{tmp_path}/empty.db")
    reply = answer_text("risks", USER, make_ctx(reader=empty))
    assert reply.kind is AnswerKind.NO_DIGEST
    assert isinstance(reply, NoDigestAnswer)
    assert reply.key == "cmd.answer.no_digest"


def test_bad_text_answers_with_usage(make_ctx: Ctx) -> None:
    reply = answer_text("pr abc", USER, make_ctx())
    assert reply.kind is AnswerKind.USAGE_ERROR
    assert isinstance(reply, UsageErrorAnswer)
    assert reply.key == "cmd.error.bad_number"
    assert reply.usage == ["cmd.usage.pr"]
    general = answer_text("launch", USER, make_ctx())
    assert isinstance(general, UsageErrorAnswer)
    assert general.usage == usage_keys(None)
    assert len(general.usage) == len(verb_names()) + 1  # every verb, then the filter keys


def test_unknown_repo_is_a_usage_error(make_ctx: Ctx) -> None:
    reply = answer_text("risks other/repo", USER, make_ctx())
    assert reply.kind is AnswerKind.USAGE_ERROR
    assert isinstance(reply, UsageErrorAnswer)
    assert reply.key == "cmd.error.unknown_repo"


def test_help_lists_every_verb(make_ctx: Ctx) -> None:
    reply = answer_text("help", USER, make_ctx())
    assert reply.kind is AnswerKind.HELP
    assert isinstance(reply, HelpAnswer)
    assert reply.usage == [*(f"cmd.usage.{v}" for v in verb_names()), "cmd.usage.filters"]


@pytest.mark.parametrize("text", ["regenerate", "subscribe", "unsubscribe", "regenerate 2026-W04"])
def test_admin_commands_are_denied_to_others(make_ctx: Ctx, store: Store, text: str) -> None:
    ctx = make_ctx()
    reply = answer_text(text, USER, ctx)
    assert reply.kind is AnswerKind.DENIED
    assert isinstance(reply, NoticeAnswer)
    assert reply.params == {"command": text.split()[0]}
    assert store.subscriptions(REPO) == []
    assert not ctx.regenerations.is_running(REPO, period("2026-W04"))


def test_regenerate_defaults_to_last_week_and_is_gated(make_ctx: Ctx, clock: Clock) -> None:
    ctx = make_ctx()
    started = answer_text("regenerate", ADMIN_CALLER, ctx)
    assert started.kind is AnswerKind.REGENERATE_STARTED
    assert isinstance(started, RegenerateAnswer)
    last_week = period("2026-W48", ctx.timezone)  # NOW is 2026-12-02, in W49
    assert started.period == last_week
    assert ctx.regenerations.is_running(REPO, last_week)
    again = answer_text("regenerate", ADMIN_CALLER, ctx)
    assert again.kind is AnswerKind.RATE_LIMITED
    assert isinstance(again, NoticeAnswer)
    assert 0 < int(again.params["seconds"]) <= REGENERATE_INTERVAL.total_seconds()
    other = Caller(user_id="UADMIN2", platform="slack", channel="C1")
    ctx.admins = frozenset({ADMIN, other.user_id})
    assert answer_text("regenerate last", other, ctx).kind is AnswerKind.REGENERATE_BUSY
    ctx.regenerations.finish(REPO, last_week)
    clock.now += REGENERATE_INTERVAL + timedelta(seconds=1)
    assert answer_text("regenerate", ADMIN_CALLER, ctx).kind is AnswerKind.REGENERATE_STARTED


@pytest.mark.parametrize("label", ["1970-W01", "1970-01", "1970-01-01..1970-01-07"])
def test_regenerate_of_the_first_period_of_1970_is_refused_before_any_work(
    make_ctx: Ctx, label: str
) -> None:
    ctx = make_ctx()
    reply = answer_text(f"regenerate {label}", ADMIN_CALLER, ctx)
    assert reply.kind is AnswerKind.USAGE_ERROR
    assert isinstance(reply, UsageErrorAnswer)
    assert reply.key == "cmd.error.before_time"
    assert reply.params["value"] == label
    assert not ctx.regenerations.is_running(REPO, period(label, ctx.timezone))
    read = answer_text(f"risks {label}", USER, ctx)
    assert read.kind is AnswerKind.USAGE_ERROR
    assert isinstance(read, UsageErrorAnswer)


@dataclass
class Result:
    repo: str
    period: Period
    outcome: str
    digest: Digest | None = None
    error: str | None = None
    failure: ServiceError | None = None


def test_regenerate_results_become_answers(make_ctx: Ctx, digests: dict[str, Digest]) -> None:
    ctx = make_ctx()
    digest = digests["2026-W04"]
    done = answer_regenerated(Result(REPO, period("2026-W04"), "ok", digest), ctx)
    assert done.kind is AnswerKind.REGENERATE_DONE
    assert isinstance(done, RegenerateAnswer)
    assert done.params["prs"] == digest.stats.prs
    partial = answer_regenerated(Result(REPO, period("2026-W04"), "partial", digest), ctx)
    assert partial.key == "cmd.answer.regenerate_done_partial"
    locked = answer_regenerated(Result(REPO, period("2026-W04"), "locked"), ctx)
    assert locked.kind is AnswerKind.REGENERATE_BUSY
    assert isinstance(locked, RegenerateAnswer)
    down = UnreachableError("GitHub down")
    failed = answer_regenerated(
        Result(REPO, period("2026-W04"), "failed", error="GitHub down", failure=down), ctx
    )
    assert failed.kind is AnswerKind.REGENERATE_FAILED
    assert isinstance(failed, RegenerateAnswer)
    assert failed.reason == Sentence(key="cmd.reason.unreachable")
    assert "reason" not in failed.params
    bad = InputError("bad week 'x'", key="cmd.error.bad_week", params={"value": "x"})
    refused = answer_regenerated(Result(REPO, period("2026-W04"), "failed", failure=bad), ctx)
    assert refused.reason == Sentence(key="cmd.error.bad_week", params={"value": "x"})


def test_subscribe_and_unsubscribe_keep_the_channel_in_the_store(
    make_ctx: Ctx, store: Store
) -> None:
    ctx = make_ctx()
    assert answer_text("subscribe", ADMIN_CALLER, ctx).kind is AnswerKind.SUBSCRIBED
    assert store.subscriptions(REPO, "slack") == [("slack", "C1")]
    assert answer_text("subscribe", ADMIN_CALLER, ctx).kind is AnswerKind.ALREADY_SUBSCRIBED
    assert answer_text("unsubscribe", ADMIN_CALLER, ctx).kind is AnswerKind.UNSUBSCRIBED
    assert store.subscriptions(REPO) == []
    assert answer_text("unsubscribe", ADMIN_CALLER, ctx).kind is AnswerKind.NOT_SUBSCRIBED


def test_subscribe_outside_a_channel_is_explained(make_ctx: Ctx) -> None:
    nowhere = Caller(user_id=ADMIN, platform="slack", channel="")
    reply = answer_text("subscribe", nowhere, make_ctx())
    assert isinstance(reply, ErrorAnswer)
    assert reply.key == "cmd.error.no_subscriptions"


def test_failure_answer_carries_the_incident() -> None:
    reply = answer_failure("abc123")
    assert reply.kind is AnswerKind.ERROR
    assert isinstance(reply, ErrorAnswer)
    assert reply.params == {"incident": "abc123"}


def test_cached_reader_serves_parsed_digests_until_ttl_or_invalidate(
    store: Store, clock: Clock, digests: dict[str, Digest]
) -> None:
    from service.commands.context import DIGEST_CACHE_TTL, CachedReader

    cached = CachedReader(store, clock, spawn=lambda refresh: refresh(), timezone=TIMEZONE)
    first = cached.get_digest(REPO, period("2026-W04"), "en")
    assert first == digests["2026-W04"]
    assert cached.latest_digest(REPO, "en") is first  # the same parsed object: no store read
    rebuilt = digests["2026-W04"].model_copy(update={"discussion_url": "https://x.test/d"})
    store.save_digest(rebuilt)
    assert cached.get_digest(REPO, period("2026-W04"), "en") is first  # within the ttl
    cached.invalidate(REPO, period("2026-W04"))
    assert cached.get_digest(REPO, period("2026-W04"), "en") == rebuilt
    store.save_digest(digests["2026-W04"])
    clock.now += DIGEST_CACHE_TTL
    # past the ttl the kept digest answers while the store is read again (here at once)
    assert cached.get_digest(REPO, period("2026-W04"), "en") == rebuilt
    assert cached.get_digest(REPO, period("2026-W04"), "en") == digests["2026-W04"]
    assert cached.list_periods(REPO, "en") == sorted(digests, reverse=True)


def test_a_refresh_that_cannot_start_leaves_no_stale_claim(
    store: Store, clock: Clock, digests: dict[str, Digest]
) -> None:
    from service.commands.context import DIGEST_CACHE_TTL, CachedReader

    can_start = [False]

    def spawn(refresh: Callable[[], None]) -> None:
        if not can_start[0]:
            raise RuntimeError("can't start new thread")
        refresh()

    cached = CachedReader(store, clock, spawn=spawn, timezone=TIMEZONE)
    assert cached.get_digest(REPO, period("2026-W04"), "en") == digests["2026-W04"]
    rebuilt = digests["2026-W04"].model_copy(update={"discussion_url": "https://x.test/d"})
    store.save_digest(rebuilt)
    clock.now += DIGEST_CACHE_TTL
    # no thread for the refresh: the kept digest answers, and the claim is given up
    assert cached.get_digest(REPO, period("2026-W04"), "en") == digests["2026-W04"]
    can_start[0] = True
    assert cached.get_digest(REPO, period("2026-W04"), "en") == digests["2026-W04"]  # refreshes now
    assert cached.get_digest(REPO, period("2026-W04"), "en") == rebuilt


def test_engine_answers_the_same_through_the_cache(
    make_ctx: Ctx, store: Store, clock: Clock
) -> None:
    from service.commands.answer import CachedReader

    ctx = make_ctx(reader=CachedReader(store, clock, timezone=TIMEZONE))
    for text in ("risks", "pr 4280", "top 3 2026-W03", "summary 2025-W47"):
        assert answer_text(text, USER, ctx) == answer_text(text, USER, make_ctx())
    ctx.forget(REPO, period("2026-W04"))


def test_live_lookups_have_a_per_user_quota_that_frees_up_with_time(
    make_ctx: Ctx, clock: Clock
) -> None:
    asked: list[int] = []

    def fetch(repo: str, n: int) -> PullRequest:
        asked.append(n)
        raise NotFoundError(f"{repo}#{n} not found")

    ctx = make_ctx(fetch_pr=fetch, lookups=LiveLookups(limit=2))
    assert [answer_text(f"pr {n}", USER, ctx).kind for n in (1, 2)] == [AnswerKind.NOT_FOUND] * 2
    clock.now += timedelta(minutes=30)
    limited = answer_text("pr 3", USER, ctx)
    assert limited.kind is AnswerKind.RATE_LIMITED
    assert isinstance(limited, NoticeAnswer)
    assert limited.params == {"limit": 2, "minutes": 30}
    assert asked == [1, 2]
    stored = next(iter(ctx.reader.get_digest(REPO, period("2026-W04"), "en").prs))  # type: ignore[union-attr]
    assert answer_text(f"pr {stored.number} 2026-W04", USER, ctx).kind is AnswerKind.PR
    clock.now += timedelta(minutes=31)
    assert answer_text("pr 3", USER, ctx).kind is AnswerKind.NOT_FOUND
    assert asked == [1, 2, 3]
