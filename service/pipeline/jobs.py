"""The one pipeline: collect → store → build digest → store → deliver, used by the CLI, the
scheduler and regenerate. Every run takes a database lock per (repo, week) and leaves a run row."""

from __future__ import annotations

import functools
import hashlib
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote_plus

from service import __version__
from service import core as core_package
from service.core.cadences import MONTHLY, WEEKLY
from service.core.models import (
    DIGEST_SCHEMA_VERSION,
    CollectedPeriod,
    Digest,
    Period,
    PullRequest,
)
from service.core.periods import parse_period, previous_period
from service.core.profile import RepoProfile
from service.core.scope import Scope
from service.core.subject import Subject
from service.core.weeks import window_containing
from service.delivery.outbox import Outcome, Sender, Target, as_targets, current_name, deliver
from service.errors import InputError, ServiceError
from service.github.search import merged_qualifier
from service.observe.metrics import Metrics
from service.pipeline.gc_passes import fewer_gc_passes
from service.pipeline.runs import DEFAULT_LEASE, Heartbeat
from service.store.repository import PROCESS_OWNER, Store

if TYPE_CHECKING:
    from service.pipeline.narrator import Narrator
    from service.render.links import ReportLinks

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Retention:
    """How long the stores that only grow keep a row (EVENTS_/HTTP_CACHE_RETENTION_DAYS)."""

    events: timedelta
    http_cache: timedelta


@dataclass
class Pipeline:
    """Everything a run needs, built by wiring from Settings (or by tests from loopback fakes)."""

    store: Store
    collect: Callable[[str, Period], CollectedPeriod]
    profile_for: Callable[[str], RepoProfile]
    repos: list[str]
    language: str
    timezone: str
    public_base_url: str
    clock: Callable[[], datetime]
    senders: dict[str, Sender] = field(default_factory=dict)
    # every target of a scope's card of a cadence (`weekly`, `monthly`): destination, filter
    # and language (wiring: the routes of delivery/routing.py)
    destinations_for: Callable[[str, str], Sequence[str | Target]] = lambda _scope, _cadence: []
    # the scopes with routes of a cadence (DIGEST_REPOS when the settings route that cadence,
    # the scopes subscribed to by command); the weekly job runs `repos` besides
    routed_scopes: Callable[[str], Sequence[str]] = lambda _cadence: []
    fetch_pr: Callable[[str, int], PullRequest] | None = None
    metrics: Metrics = field(default_factory=Metrics)
    # the optional language model's narrative (None: deterministic only, e.g. `--no-llm`)
    narrator: Narrator | None = None
    github_web_url: str = ""  # GITHUB_WEB_URL; empty: the report derives it from PR URLs
    retention: Retention | None = None  # None: the weekly job prunes nothing
    # how long a run's lock and row stay claimed without a heartbeat (RUN_LEASE_SECONDS)
    lease: timedelta = DEFAULT_LEASE
    # told each stage of a build as it begins ("collecting", "analysing"…, then "done")
    stage: Callable[[str], None] = lambda _name: None
    # the report links cards, answers and pages carry, made once (wiring.pipeline_links)
    links: ReportLinks | None = None
    # what a name of DIGEST_REPOS, a command or a stored digest stands for: a repository or a
    # family of DIGEST_GROUPS (wiring); without families, the repository itself
    scope_for: Callable[[str], Scope] = Scope.one


@dataclass
class RunResult:
    repo: str
    period: Period  # the period the run built (a week, month, range…)
    outcome: str  # ok | partial | locked | failed
    digest: Digest | None = None
    outcomes: list[Outcome] = field(default_factory=list)
    error: str | None = None
    # the error that failed the run, for a chat answer to word in the user's language
    failure: ServiceError | None = None
    seconds: float = 0.0


def _previous(p: Pipeline, repo: str, window: Period) -> tuple[Digest | None, list[PullRequest]]:
    """The stored digest of the period before `window` and that period's PRs."""
    before = previous_period(window)
    digest = p.store.get_digest(repo, before, p.language)
    if before.kind == "week":
        return digest, p.store.load_prs(repo, before.label)
    return digest, p.store.load_prs_between(repo, before.start, before.end)


def _save_snapshots(p: Pipeline, repo: str, window: Period, prs: list[PullRequest]) -> None:
    """PR snapshots stay keyed by the ISO week each PR was merged in, whatever the period."""
    if window.kind == "week":
        p.store.save_prs(repo, window.label, prs)
        return
    by_week: dict[str, list[PullRequest]] = {}
    for pr in prs:
        week = window_containing(pr.merged_at, window.timezone).label
        by_week.setdefault(week, []).append(pr)
    for week, group in by_week.items():
        p.store.save_prs(repo, week, group)


def discussion_url(github_web_url: str, repo: str, window: Period) -> str:
    """The repository's PRs merged in `window` on its own GitHub host, searched as the collector
    searches them; empty when the host is unknown."""
    if not github_web_url:
        return ""
    merged = merged_qualifier(window.start, window.end)
    return f"{github_web_url.rstrip('/')}/{repo}/pulls?q={quote_plus(f'is:pr is:merged {merged}')}"


def family_discussion_url(github_web_url: str, repos: Sequence[str], window: Period) -> str:
    """Every repository's PRs of a family merged in `window`, in one search of the host (its
    `repo:` qualifiers are ORed); empty when the host is unknown."""
    if not github_web_url:
        return ""
    named = " ".join(f"repo:{repo}" for repo in repos)
    query = f"is:pr is:merged {named} {merged_qualifier(window.start, window.end)}"
    return f"{github_web_url.rstrip('/')}/pulls?q={quote_plus(query)}"


@functools.cache
def analysis_version() -> str:
    """What the analysing code is: editing any core module makes every stored digest stale."""
    core = Path(core_package.__file__).parent
    key = hashlib.sha256(f"{__version__}:{DIGEST_SCHEMA_VERSION}".encode())
    for path in sorted(core.rglob("*.py")):
        key.update(path.relative_to(core).as_posix().encode() + b"\0" + path.read_bytes())
    return key.hexdigest()


@functools.cache
def helpers_key() -> str:
    """Which optional helpers judge (doctor's list: the glob engine, the shell-variable reader):
    a digest built with another one is built again, not reused."""
    from service.observe.optional_helpers import helpers

    return ";".join(f"{h.extra}={'native' if h.native else 'fallback'}" for h in helpers())


def inputs_key(
    collected: CollectedPeriod,
    profile: RepoProfile,
    language: str,
    discussion: str,
    before: str,
    narration: str = "",
) -> str:
    """sha256 of everything a digest is built from: the collected week, the profile, the
    language, the code, `before` (what the store holds for the previous week) and `narration`
    (the language model and its prompts; empty without one, or with `--no-llm`), and which
    optional helpers run."""
    key = hashlib.sha256()
    parts = (analysis_version(), helpers_key(), language, discussion, before, narration)
    for part in (*parts, profile.model_dump_json()):
        key.update(part.encode() + b"\0")
    key.update(collected.model_dump_json(exclude={"prs"}).encode())
    for pr in collected.prs:  # one PR at a time: a 2,000-PR week is ~40 MB of JSON
        key.update(pr.__pydantic_serializer__.to_json(pr))  # model_dump_json's, as bytes
    return key.hexdigest()


@fewer_gc_passes()
def build_week(p: Pipeline, repo: str, window: Period, languages: Sequence[str] = ()) -> Digest:
    """Collect the week, keep the PR snapshots, build and store the digest (no posting); with a
    language model, its narrative in the digest's language and in each of `languages` (the
    languages its cards are posted in).

    When nothing the digest is built from changed since the stored one was built (same PRs,
    reviews, checks, labels, profile, code, previous week, model and prompts), the stored
    digest stands: a rebuild of a finished week re-renders it instead of analysing again, and
    asks the model only for a language whose narrative it does not hold yet."""
    clock = _Stopwatch()
    p.stage("collecting")
    collected = identified(p, repo, p.collect(repo, window))
    repo = collected.repo  # its name now, when GitHub answered for a repository that moved
    clock.lap("collect")
    profile = p.profile_for(repo)
    discussion = discussion_url(p.github_web_url, repo, window)
    before = p.store.period_stamp(repo, previous_period(window), p.language)
    narration = p.narrator.settings_key if p.narrator is not None else ""
    inputs = inputs_key(collected, profile, p.language, discussion, before, narration)
    digest = p.store.digest_built_from(repo, window, p.language, inputs)
    reused = digest is not None
    if digest is None:
        # imported here: a reused digest needs none of the analysis (~0.1 s of imports)
        from service.core.digest import build_digest

        p.stage("analysing")
        _save_snapshots(p, repo, window, collected.prs)
        previous, earlier = _previous(p, repo, window)
        clock.lap("store")
        digest = build_digest(
            collected,
            profile,
            language=p.language,
            now=p.clock(),
            previous=previous,
            earlier=earlier,
            discussion_url=discussion,
        )
        clock.lap("analyse")
    p.stage("narrating")
    narrated = _narrate(p, digest, collected.prs, [p.language, *languages])
    clock.lap("narrate")
    if not reused or narrated:
        p.store.save_digest(digest, inputs=inputs)
    p.store.announce_moves(repo, window, collected.moved_from)
    clock.lap("store")
    p.stage("done")
    extra = {"repo": repo, "week": window.label, "prs": len(collected.prs), "reused": reused}
    logger.debug("week built", extra={**extra, **clock.laps})
    return digest


def build_scope(p: Pipeline, scope: Scope, window: Period, languages: Sequence[str] = ()) -> Digest:
    """The digest of a repository (build_week) or of a family (one over its repositories)."""
    if not scope.is_family:
        return build_week(p, scope.primary, window, languages)
    return build_family(p, scope, window, languages)


def collect_scope(p: Pipeline, scope: Scope, window: Period) -> list[CollectedPeriod]:
    """Each repository's period, collected concurrently (one thread each, through the one
    GitHub client and its rate budget), in the scope's order."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=len(scope.repos), thread_name_prefix="collect") as pool:
        weeks = list(pool.map(lambda repo: p.collect(repo, window), scope.repos))
    return [identified(p, repo, week) for repo, week in zip(scope.repos, weeks, strict=True)]


@fewer_gc_passes()
def build_family(
    p: Pipeline, scope: Scope, window: Period, languages: Sequence[str] = ()
) -> Digest:
    """One digest over the family: each repository's period analysed as its own (its profile,
    its previous period), merged under the scope's key with the ties between repositories;
    kept until what it is built from changes, as build_week does."""
    from service.core.crossings import find_crossings
    from service.core.digest import build_digest
    from service.core.family import keyed_prs, merge_family

    p.stage("collecting")
    weeks = collect_scope(p, scope, window)
    repos = [w.repo for w in weeks]
    private = [w.private for w in weeks]
    if None not in private or any(private):  # a family is private when one of them is
        p.store.save_repo_privacy(scope.key, any(private))
    profiles = [p.profile_for(repo) for repo in repos]
    before = previous_period(window)
    stamp = p.store.period_stamp(scope.key, before, p.language)
    narration = p.narrator.settings_key if p.narrator is not None else ""
    inputs = hashlib.sha256(scope.key.encode())
    for week, profile in zip(weeks, profiles, strict=True):
        # each member's previous digest is its part's `previous`, and the family's previous
        # one may be merged from them: a member's previous week built later changes the key
        member = p.store.period_stamp(week.repo, before, p.language)
        before_key = f"{stamp}|{member}"
        inputs.update(inputs_key(week, profile, p.language, "", before_key, narration).encode())
    key = inputs.hexdigest()
    digest = p.store.digest_built_from(scope.key, window, p.language, key)
    reused = digest is not None
    if digest is None:
        p.stage("analysing")
        parts, earlier, previous_parts = [], [], []
        for week, profile in zip(weeks, profiles, strict=True):
            _save_snapshots(p, week.repo, window, week.prs)
            previous, prs_before = _previous(p, week.repo, window)
            earlier.append({before.label: prs_before})
            previous_parts.append(previous)
            discussion = discussion_url(p.github_web_url, week.repo, window)
            parts.append(
                build_digest(
                    week,
                    profile,
                    language=p.language,
                    now=p.clock(),
                    previous=previous,
                    earlier=prs_before,
                    discussion_url=discussion,
                )
            )
        crossings, ties = find_crossings(repos, [w.prs for w in weeks], earlier)
        digest = merge_family(
            scope.key,
            repos,
            parts,
            [w.prs for w in weeks],
            now=p.clock(),
            previous=_family_previous(p, scope.key, repos, before, previous_parts, earlier),
            crossings=crossings,
            cross_relations=ties,
            discussion_url=family_discussion_url(p.github_web_url, repos, window),
        )
    p.stage("narrating")  # the model is given each PR under its family key (core/scope.py)
    every = [pr for i, week in enumerate(weeks) for pr in keyed_prs(week.prs, i)]
    narrated = _narrate(p, digest, every, [p.language, *languages])
    if not reused or narrated:
        p.store.save_digest(digest, inputs=key)
    for week in weeks:
        p.store.announce_moves(week.repo, window, week.moved_from)
    p.stage("done")
    return digest


def _family_previous(
    p: Pipeline,
    key: str,
    repos: Sequence[str],
    period: Period,
    parts: Sequence[Digest | None],
    earlier: Sequence[Mapping[str, Sequence[PullRequest]]],
) -> Digest | None:
    """The family's digest of the period before: the stored one, else one merged from each
    repository's stored digest of that period (a family digested for the first time after
    its repositories were digested one by one); None when one of them has none."""
    from service.core.family import merge_family

    stored = p.store.get_digest(key, period, p.language)
    if stored is not None or any(part is None for part in parts):
        return stored
    found = [part for part in parts if part is not None]
    prs = [list(week.get(period.label, [])) for week in earlier]
    return merge_family(key, repos, found, prs, now=p.clock())


def identified(p: Pipeline, asked: str, collected: CollectedPeriod) -> CollectedPeriod:
    """The collected week under the repository's name now: a repository GitHub knows by an
    id the store holds under an earlier name (or answered for `asked` under another name) has
    its history carried over to the new name, and the digest says it moved, once."""
    if collected.github_id is None:
        if collected.private is not None:
            p.store.save_repo_privacy(collected.repo, collected.private)
        return collected
    p.store.identify_repo(collected.github_id, collected.repo, collected.private, asked=asked)
    moved = p.store.moves_to_announce(collected.repo, collected.window)
    return collected.model_copy(update={"moved_from": moved}) if moved else collected


def _narrate(
    p: Pipeline, digest: Digest, prs: Sequence[PullRequest], languages: Sequence[str]
) -> bool:
    """Ask the model for the narrative in each of `languages` the digest lacks (the answer
    cache makes a repeat free; a failure leaves the deterministic text and is asked again on
    the next build); whether any was added."""
    if p.narrator is None:
        return False
    added = False
    for language in dict.fromkeys(languages):
        if digest.analysis_for(language) is not None:
            continue
        analysis = p.narrator.analyse(digest, prs, language)
        if analysis is None:
            continue
        if language == digest.language:
            digest.analysis = analysis
        else:
            digest.other_analyses.append(analysis)
        added = True
    return added


def card_languages(p: Pipeline, targets: Sequence[str | Target]) -> list[str]:
    """The languages the cards for `targets` are written in (a target without one: the
    digest's)."""
    return list(dict.fromkeys(t.language or p.language for t in as_targets(targets)))


class _Stopwatch:
    """Seconds spent per named phase, added up over laps: wall time as `<name>_s` and the
    process's CPU time as `<name>_cpu_s` (a busy machine stretches the one, not the other)."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = (time.monotonic(), time.process_time())

    def lap(self, name: str) -> None:
        now = (time.monotonic(), time.process_time())
        for key, spent in (("_s", now[0] - self._last[0]), ("_cpu_s", now[1] - self._last[1])):
            self.laps[name + key] = round(self.laps.get(name + key, 0.0) + spent, 3)
        self._last = now


def deliver_targets(
    p: Pipeline, digest: Digest, targets: Sequence[str | Target], *, force: bool
) -> list[Outcome]:
    """Each target gets the digest narrowed to its filter (one narrowing per filter)."""
    from service.commands.filters import FilterError, parse_filter
    from service.core.filters import narrow_digest

    groups: dict[str, list[Target]] = {}
    for target in as_targets(targets):
        groups.setdefault(target.filter, []).append(target)
    before = previous_period(_window_of(digest))
    previous = p.store.get_digest(digest.repo, before, p.language) if any(groups) else None
    outcomes: list[Outcome] = []
    for filter_text, group in groups.items():
        try:
            shown = narrow_digest(digest, parse_filter(filter_text), previous)
        except FilterError as exc:  # a stored filter the grammar no longer reads
            outcomes += [
                Outcome(t.destination, "failed", error=exc.message, filter=filter_text)
                for t in group
            ]
            continue
        outcomes += deliver(shown, group, p.senders, p.store.deliveries, force=force)
    return outcomes


def _window_of(digest: Digest) -> Period:
    return digest.window


def _summary(result: RunResult) -> dict[str, object]:
    digest = result.digest
    return {
        "prs": digest.stats.prs if digest else 0,
        "risks": len(digest.risks) if digest else 0,
        "complete": digest.completeness.complete if digest else None,
        "deliveries": {_label(o): o.action for o in result.outcomes},
        "error": result.error,
        "seconds": round(result.seconds, 3),
    }


def _label(outcome: Outcome) -> str:
    return Target(outcome.destination, outcome.filter).label()


def _outcome_of(digest: Digest, outcomes: list[Outcome]) -> str:
    attention = ("failed", "unknown")
    if any(o.action in attention for o in outcomes) or not digest.completeness.complete:
        return "partial"
    return "ok"


def run_week(
    p: Pipeline,
    repo: str,
    window: Period,
    *,
    trigger: str,
    post: bool = True,
    force: bool = False,
    destinations: Sequence[str | Target] | None = None,
    cadence: str = WEEKLY,
) -> RunResult:
    """Build and (optionally) deliver one period under the (scope, period) lock, to
    `destinations` when given, else to the routes of the scope's `cadence`."""
    started = time.monotonic()
    repo = p.store.canonical_repo(repo)  # an old name of a repository that moved: its new one
    result = RunResult(repo, window, "failed")
    lock = Subject(Scope.one(repo), window).lock
    with p.store.lock(lock, PROCESS_OWNER, p.lease) as held:
        if not held:
            result.outcome = "locked"
            result.error = f"{repo} {window.label} is being built by another run"
            return result
        run_id = p.store.start_run(repo, window, trigger, lease=p.lease)

        def renew() -> None:
            if not p.store.renew_lease(run_id, PROCESS_OWNER, p.lease, [lock]):
                logger.warning("week lock lost to another run", extra={"lock": lock})

        try:
            with Heartbeat(renew, p.lease, "run"):
                targets: Sequence[str | Target] = []
                if post:
                    targets = (
                        destinations
                        if destinations is not None
                        else p.destinations_for(repo, cadence)
                    )
                scope = p.scope_for(repo)
                result.digest = build_scope(p, scope, window, card_languages(p, targets))
                if post and destinations is None:  # subscriptions a move just carried over too
                    targets = p.destinations_for(result.digest.repo, cadence)
                if post:
                    result.outcomes = deliver_targets(p, result.digest, targets, force=force)
                result.outcome = _outcome_of(result.digest, result.outcomes)
        except ServiceError as exc:
            result.error = exc.message
            result.failure = exc
        except Exception as exc:  # a bug: recorded on the run row, raised to the job's boundary
            result.error = f"internal error ({type(exc).__name__})"
            raise
        finally:
            result.seconds = time.monotonic() - started
            p.store.finish_run(run_id, result.outcome, _summary(result))
    _observe(p.metrics, result, trigger, p.clock())
    logger.info("run finished", extra={"repo": repo, "week": window.label, **_summary(result)})
    return result


def _observe(metrics: Metrics, result: RunResult, trigger: str, now: datetime) -> None:
    metrics.run_finished(result.repo, trigger, result.outcome, result.seconds, now.timestamp())
    for outcome in result.outcomes:
        metrics.delivered(outcome.destination.partition(":")[0], outcome.action)


def regenerate(p: Pipeline, repo: str, window: Period, *, requested_by: str) -> RunResult:
    """Rebuild `window` (resolved by the command, checked against today there) and edit the
    cards already posted for it (nothing new is posted)."""
    repo = p.store.canonical_repo(repo)
    if repo not in {p.store.canonical_repo(r) for r in p.repos}:
        raise InputError(
            f"unknown repository {repo}: this service reports on {', '.join(p.repos)}",
            key="cmd.error.unknown_repo",
            params={"repo": repo, "repos": ", ".join(p.repos)},
        )
    routes = [*p.destinations_for(repo, WEEKLY), *p.destinations_for(repo, MONTHLY)]
    languages = {t.key: t.language for t in as_targets(routes)}
    posted = [
        Target(name, d.filter, languages.get((name, d.filter)))
        for d in p.store.list_deliveries(repo, window)
        if (name := current_name(d.destination))
    ]
    logger.info("regenerate", extra={"repo": repo, "week": window.label, "by": requested_by})
    return run_week(
        p, repo, window, trigger=f"regenerate:{requested_by}", force=True, destinations=posted
    )


# each cadence's period, as `parse_period` reads it: the last complete one
LAST_PERIOD = {WEEKLY: "last", MONTHLY: "last-month"}


def cadence_scopes(p: Pipeline, cadence: str) -> list[str]:
    """The scopes a cadence's job runs, each once by its current name: those with routes of
    that cadence (a family subscribed to by command, say), and DIGEST_REPOS every week (their
    weekly digests are read on the web and by command, routed or not)."""
    every = p.repos if cadence == WEEKLY else []
    found = [p.store.canonical_repo(s) for s in [*every, *p.routed_scopes(cadence)]]
    return list(dict.fromkeys(found))


def run_cadence(p: Pipeline, cadence: str, *, trigger: str = "schedule") -> list[RunResult]:
    """A cadence's job: every scope's last complete period, built and posted to the routes
    of that cadence once each (the weekly job then prunes the store)."""
    window = parse_period(LAST_PERIOD[cadence], p.timezone, p.clock())
    results = [
        run_week(p, scope, window, trigger=trigger, cadence=cadence)
        for scope in cadence_scopes(p, cadence)
    ]
    if cadence == WEEKLY:
        prune_store(p)
    return results


def run_scheduled(p: Pipeline, *, trigger: str = "schedule") -> list[RunResult]:
    """The weekly job: every scope's `last` week, built and posted everywhere once."""
    return run_cadence(p, WEEKLY, trigger=trigger)


def prune_store(p: Pipeline) -> None:
    """Drop handled event ids and cached GitHub answers older than their retention."""
    if p.retention is None:
        return
    now = p.clock()
    events, cached = p.store.prune(
        events_before=now - p.retention.events, cache_before=now - p.retention.http_cache
    )
    logger.info("store pruned", extra={"events": events, "http_cache": cached})
