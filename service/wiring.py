"""Composition root: Settings → the week's pipeline (store, collector, links, senders, routes,
narrator), the command engine's context, the web app and the scheduler. The only module that
sees both the settings and the adapters; the command line (service/cli/) runs what it builds."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from service import operator_text
from service.core.models import CollectedPeriod, Period, PullRequest
from service.core.profile import RepoProfile, load_profile
from service.core.scope import scope_of_key
from service.delivery.outbox import Sender
from service.delivery.routing import Routes
from service.errors import ConfigError, InputError, ServiceError
from service.observe.metrics import Metrics
from service.pipeline.jobs import Pipeline, Retention, RunResult
from service.pipeline.recorded import SAMPLE_REPO, load_sample, within
from service.platforms.base import InboundDeps
from service.platforms.base import secret as secret
from service.settings import Settings
from service.store.repository import Store, create_store_engine

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from service.commands.answer import Caller, EngineContext
    from service.commands.flow import Regenerate
    from service.delivery.destination import Destination
    from service.github.credentials import Credentials
    from service.github.http import GitHubHttp
    from service.ops.doctor import Finding
    from service.pipeline.narrator import Narrator
    from service.pipeline.runs import RunWatch
    from service.pipeline.verifier import Verifier
    from service.render.links import ReportLinks
    from service.runtime.scheduler import Scheduler

Progress = Callable[[int, int], None]
# the service_keys row of the report-link key made on first start when REPORTS_SIGNING_KEY is unset
LINK_KEY_NAME = "report_links"
DEFAULT_GITHUB_RETRIES = 4
# doctor asks once more at most: a check should answer in seconds, not back off for minutes
DOCTOR_RETRIES = 1


def utc_now() -> datetime:
    return datetime.now(UTC)


# The week's pipeline: build_pipeline, then each piece in the order it takes them.


def build_pipeline(
    settings: Settings,
    *,
    sample: bool = False,
    progress: Progress | None = None,
    store: Store | None = None,
    with_senders: bool = True,
    metrics: Metrics | None = None,
    llm: bool = True,
) -> Pipeline:
    """The pipeline for the CLI, the scheduler and the chat adapters (`llm=False`: the
    deterministic narrative only, whatever the LLM_* settings say)."""
    store = store or build_store(settings)
    metrics = metrics or Metrics(repo_label=metrics_repo_label(settings, store))
    fetch: Callable[[str, int], PullRequest] | None = None
    if sample:
        collect = sample_collector(utc_now)
    else:
        collect, fetch = github_collector(settings, store, progress, metrics)
    profile_for = profile_loader(settings)
    # made here for the senders' cards, else on first use (pipeline_links)
    links = report_links(settings, store) if with_senders else None
    # checked now when set: a destination no platform takes stops the start, not the 1st
    if settings.digest_monthly_destinations:
        chat_routes(settings, store)

    def routes() -> Routes:  # when asked: the platform registry loads every renderer (~0.2 s
        return chat_routes(settings, store)  # a digest that posts nothing would pay)

    return Pipeline(
        store=store,
        collect=collect,
        profile_for=profile_for,
        repos=list(settings.digest_repos),
        language=settings.digest_language,
        timezone=settings.digest_timezone,
        public_base_url=settings.public_base_url,
        clock=utc_now,
        senders=build_senders(settings, links) if links is not None else {},
        destinations_for=lambda scope, cadence: routes().destinations_for(scope, cadence),
        routed_scopes=lambda cadence: routes().scopes(cadence, settings.digest_repos),
        fetch_pr=fetch,
        metrics=metrics,
        narrator=build_narrator(settings, store, metrics) if llm else None,
        # the sample's PR links name their own host (github.com); a configured one would be wrong
        github_web_url="" if sample else settings.github_web_url or "",
        retention=Retention(
            events=timedelta(days=settings.events_retention_days),
            http_cache=timedelta(days=settings.http_cache_retention_days),
        ),
        lease=timedelta(seconds=settings.run_lease_seconds),
        links=links,
        scope_for=lambda name: scope_of_key(name, settings.digest_groups),
    )


def build_store(settings: Settings) -> Store:
    return Store.open(settings.database_url)


def metrics_repo_label(settings: Settings, store: Store) -> Callable[[str], str]:
    """/metrics names a private repository by an opaque id unless METRICS_REPO_NAMES=true
    (a repository whose privacy can't be read counts as private)."""
    from service.observe.metrics import opaque_repo

    def label(repo: str) -> str:
        if settings.metrics_repo_names:
            return repo
        try:
            private = store.repo_privacy(repo) is not False
        except ServiceError:
            private = True
        return opaque_repo(repo) if private else repo

    return label


def sample_collector(now: Callable[[], datetime]) -> Callable[[str, Period], CollectedPeriod]:
    """A collector that serves the bundled sample week only (no network, no token)."""

    def collect(repo: str, window: Period) -> CollectedPeriod:
        sample = load_sample(now())
        if repo == SAMPLE_REPO and window.kind != "week":  # a month, a range: its days of it
            return within(sample, window)
        if repo != SAMPLE_REPO or window.label != sample.window.label:
            raise InputError(
                operator_text.sample_only(SAMPLE_REPO, sample.window.label, repo, window.label)
            )
        return sample

    return collect


def github_collector(
    settings: Settings, store: Store, progress: Progress | None, metrics: Metrics | None = None
) -> tuple[Callable[[str, Period], CollectedPeriod], Callable[[str, int], PullRequest]]:
    from service.github.collect import collect_week, fetch_pr

    http = build_github(settings, store, metrics)

    def collect(repo: str, window: Period) -> CollectedPeriod:
        return collect_week(
            http,
            repo,
            window,
            profile_loader(settings)(repo),
            patch_concurrency=settings.github_patch_concurrency,
            progress=progress,
            stored=store.pulls,
        )

    def fetch(repo: str, number: int) -> PullRequest:
        return fetch_pr(http, repo, number)

    return collect, fetch


def build_github(
    settings: Settings,
    store: Store | None,
    metrics: Metrics | None = None,
    *,
    max_retries: int = DEFAULT_GITHUB_RETRIES,
) -> GitHubHttp:
    from service.github.http import GitHubHttp

    return GitHubHttp(
        api_url=settings.github_api_url,
        graphql_url=settings.graphql_url,
        credentials=github_credentials(settings),
        cache=store.http_cache if store is not None else None,
        max_retries=max_retries,
        max_wait=float(settings.github_max_wait_seconds),
        observe=metrics.github_response if metrics is not None else None,
    )


def github_credentials(settings: Settings) -> Credentials | None:
    """The GitHub App's installation tokens when GITHUB_APP_ID is set (it wins over
    GITHUB_TOKEN), else GITHUB_TOKEN as given, else None (anonymous REST)."""
    from service.github.app_auth import AppInstallationAuth, load_private_key
    from service.github.credentials import StaticToken

    if not settings.github_app_id:
        token = secret(settings.github_token)
        return StaticToken(token) if token else None
    setting, pem = "GITHUB_APP_PRIVATE_KEY", secret(settings.github_app_private_key)
    if pem is None:
        setting, path = "GITHUB_APP_PRIVATE_KEY_FILE", settings.github_app_private_key_file or ""
        try:
            pem = Path(path).expanduser().read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or type(exc).__name__
            why = f"cannot read {path} ({reason})"
            raise ConfigError(operator_text.invalid_setting(setting, why)) from None
    return AppInstallationAuth(
        api_url=settings.github_api_url,
        app_id=settings.github_app_id,
        private_key=load_private_key(pem, setting),
        installation_id=settings.github_app_installation_id,
        repo=settings.repositories[0],
    )


def profile_loader(settings: Settings) -> Callable[[str], RepoProfile]:
    """Repo profiles: REPO_PROFILES_DIR's TOML files first, then the shipped ones."""
    extra = (Path(settings.repo_profiles_dir),) if settings.repo_profiles_dir else ()
    for folder in extra:
        if not folder.is_dir():
            why = f"{folder} is not a folder"
            raise ConfigError(operator_text.invalid_setting("REPO_PROFILES_DIR", why))
    return lambda repo: load_profile(repo, extra)


def report_links(settings: Settings, store: Store) -> ReportLinks:
    """REPORTS_ACCESS: which report pages need a signed link, and the links cards carry."""
    from service.render.links import ReportLinks, ReportsAccess, signing_key

    access = ReportsAccess(settings.reports_access) if settings.reports_access else None
    configured, token = secret(settings.reports_signing_key), secret(settings.github_token)
    key_source = configured or store.service_key(LINK_KEY_NAME, lambda: secrets.token_urlsafe(32))
    # links signed before the key had a home of its own (with a key derived from GITHUB_TOKEN)
    # stay valid until they expire, while that token is still set
    old_keys = (signing_key(token),) if token and not configured else ()
    return ReportLinks(
        base_url=settings.public_base_url,
        clock=utc_now,
        access=access,
        key=signing_key(key_source),
        old_keys=old_keys,
        ttl=timedelta(days=settings.report_link_days),
        privacy=store.repo_privacy,
    )


def pipeline_links(settings: Settings, pipeline: Pipeline) -> ReportLinks:
    """The one ReportLinks of a pipeline, that cards, answers, pages and the CLI all use: the
    one build_pipeline made, or (a pipeline assembled by hand) one made now and kept."""
    if pipeline.links is None:
        pipeline.links = report_links(settings, pipeline.store)
    return pipeline.links


def build_senders(settings: Settings, links: ReportLinks | None = None) -> dict[str, Sender]:
    """A sender per configured platform; their cards link to `links` (signed as needed)."""
    from service.platforms import registry

    senders: dict[str, Sender] = {}
    for platform in registry.platforms():
        sender = platform.sender(settings, links)
        if sender is not None:
            senders[platform.name] = sender
    return senders


def parse_destinations(text: str) -> list[str]:
    """`slack:C01,feishu:oc_x,feishu-webhook:default` → validated destination strings."""
    from service.platforms import registry

    items = [item for item in map(str.strip, text.split(",")) if item]
    found = [registry.parse_destination(item).name for item in items]
    if not found:
        raise InputError("--to names no destination")
    return found


def chat_routes(settings: Settings, store: Store) -> Routes:
    """Where cards go, at which cadence and in which language: SLACK_CHANNELS, FEISHU_CHAT_IDS,
    the webhook and DIGEST_MONTHLY_DESTINATIONS, then the store's subscriptions."""
    from service.platforms import registry

    return Routes(store, registry.configured_destinations(settings), settings.digest_repos)


def build_narrator(
    settings: Settings, store: Store, metrics: Metrics | None = None
) -> Narrator | None:
    """The language model's narrator when LLM_BASE_URL and LLM_MODEL are set, else None; its
    calls are counted in `metrics`."""
    if not settings.llm_enabled:
        return None
    from service.llm.client import ModelClient
    from service.pipeline.narrator import Narrator

    client = ModelClient(
        base_url=settings.llm_base_url or "",
        api_key=secret(settings.llm_api_key),
        model=settings.llm_model or "",
        timeout_seconds=float(settings.llm_timeout_seconds),
    )
    observe = metrics.model_call if metrics is not None else None
    verifier = build_verifier(settings, store) if settings.llm_verify else None
    return Narrator(client=client, cache=store.model_answers, observe=observe, verifier=verifier)


def build_verifier(settings: Settings, store: Store) -> Verifier:
    """The verification pass's model: the LLM_VERIFY_* settings, each defaulting to LLM_*'s."""
    from service.llm.client import ModelClient
    from service.pipeline.verifier import Verifier

    client = ModelClient(
        base_url=settings.llm_verify_base_url or settings.llm_base_url or "",
        api_key=secret(settings.llm_verify_api_key or settings.llm_api_key),
        model=settings.llm_verify_model or settings.llm_model or "",
        timeout_seconds=float(settings.llm_verify_timeout_seconds),
        max_tokens=settings.llm_verify_max_tokens,
        setting="LLM_VERIFY_TIMEOUT_SECONDS",
    )
    return Verifier(
        client=client,
        cache=store.model_answers,
        timeout_seconds=float(settings.llm_verify_timeout_seconds),
        max_tokens=settings.llm_verify_max_tokens,
    )


# The command engine, the web app and the scheduler.


def private_repo_readers(settings: Settings, store: Store) -> Callable[[Caller, str], bool]:
    """Who may read a private repository's digests by command: the chats its digest goes to
    (SLACK_CHANNELS, FEISHU_CHAT_IDS, the chats subscribed to it) and the command line;
    admins always may (EngineContext.can_read). A public repository: everyone."""
    routes = chat_routes(settings, store)

    def may_read(caller: Caller, repo: str) -> bool:
        if caller.platform == "cli" or store.repo_privacy(repo) is not True:
            return True
        if routes.is_configured(caller.platform, caller.channel):
            return True
        return (caller.platform, caller.channel) in store.subscriptions(repo)

    return may_read


def engine_context(settings: Settings, pipeline: Pipeline) -> EngineContext:
    """The command engine's context: the store as reader and subscriptions, admins, live PRs."""
    from service.commands.answer import EngineContext
    from service.commands.context import LiveLookups

    return EngineContext(
        reader=pipeline.store,
        repos=list(pipeline.repos),
        language=pipeline.language,
        timezone=pipeline.timezone,
        clock=pipeline.clock,
        admins=frozenset(settings.admin_users),
        fetch_pr=pipeline.fetch_pr,
        subscriptions=pipeline.store.subscribers,
        report_url=pipeline_links(settings, pipeline).url,
        profile_for=pipeline.profile_for,
        channel_language=chat_routes(settings, pipeline.store).channel_language,
        lookups=LiveLookups(
            limit=settings.pr_lookups_per_hour, timeout=settings.pr_lookup_timeout_seconds
        ),
        may_read=private_repo_readers(settings, pipeline.store),
        current_name=pipeline.store.canonical_repo,
        scope_for=pipeline.scope_for,
    )


def regenerate_callable(pipeline: Pipeline) -> Regenerate:
    from service.pipeline.jobs import regenerate

    def run(repo: str, period: Period, /, *, requested_by: str) -> RunResult:
        return regenerate(pipeline, repo, period, requested_by=requested_by)

    return run


def build_weekly_scheduler(settings: Settings, pipeline: Pipeline) -> Scheduler:
    """The scheduler of every cadence (runtime/cadences.py's table)."""
    from service.runtime.cadences import build_cadence_scheduler

    return build_cadence_scheduler(settings, pipeline)


def run_watch(settings: Settings, pipeline: Pipeline) -> RunWatch:
    """Weeks owed and failed runs for /healthz and /metrics (any process: read from the
    database), the gauges of /metrics refreshed from it before each scrape."""
    from service.pipeline.runs import RunWatch, observe_runs
    from service.runtime.scheduler import cron_trigger

    watch = RunWatch(
        pipeline.store,
        repos=settings.digest_repos,
        timezone=settings.digest_timezone,
        trigger=cron_trigger(settings.digest_schedule, settings.digest_timezone),
        clock=pipeline.clock,
    )
    pipeline.metrics.before_scrape.append(lambda: observe_runs(pipeline.metrics, watch))
    return watch


def build_app(
    settings: Settings, pipeline: Pipeline, *, scheduler: Scheduler | None = None
) -> Starlette:
    """The web app of `serve`: reports, healthz, and every platform's receivers (its routes, and
    the connections it opens now and closes at shutdown)."""
    from service.commands.answer import CachedReader
    from service.platforms.inbound import in_turn, start_inbound
    from service.runtime.long_lived import keep_out_of_collections
    from service.runtime.web import build_web_app

    ctx = engine_context(settings, pipeline)
    ctx.reader = CachedReader(
        pipeline.store,
        clock=pipeline.clock,
        kept=keep_out_of_collections,
        timezone=settings.digest_timezone,
    )
    inbound = start_inbound(
        settings,
        InboundDeps(
            engine=ctx,
            store=pipeline.store,
            regenerate=regenerate_callable(pipeline),
            observe=pipeline.metrics.command_answered,
            language=settings.digest_language,
        ),
    )
    stops = [scheduler.shutdown, *inbound.closes] if scheduler else inbound.closes
    pipeline.metrics.before_scrape.append(
        lambda: pipeline.metrics.connections_read(inbound.health())
    )
    return build_web_app(
        store=pipeline.store,
        endpoints=inbound.endpoints,
        scheduler_alive=scheduler.alive if scheduler else None,
        on_shutdown=in_turn(stops) if stops else None,
        language=settings.digest_language,
        timezone=settings.digest_timezone,
        metrics=pipeline.metrics,
        report_links=pipeline_links(settings, pipeline),
        run_watch=run_watch(settings, pipeline),
        connections=inbound.health,
        connection_down_seconds=settings.connection_down_seconds,
    )


def build_ops_app(settings: Settings, pipeline: Pipeline, weekly: Scheduler) -> Starlette:
    """The web app of `scheduler`: /healthz, /livez and /metrics only (the image's healthcheck
    and Prometheus see it as they see `serve`)."""
    from service.runtime.web import build_ops_app as ops_app

    return ops_app(
        store=pipeline.store,
        scheduler_alive=weekly.alive,
        metrics=pipeline.metrics,
        on_shutdown=weekly.shutdown,
        run_watch=run_watch(settings, pipeline),
    )


def progress_logged(settings: Settings) -> Pipeline:
    """The pipeline of a long-running process: its builds log progress lines (no terminal)."""
    from service.observe.progress import ProgressLog

    log = ProgressLog(settings.progress_log_seconds)
    pipeline = build_pipeline(settings, progress=log)
    pipeline.stage = log.stage
    return pipeline


def run_doctor(settings: Settings) -> list[Finding]:
    """`verl-week doctor`: every configured piece checked against the real service."""
    from service.ops.doctor import (
        check_database,
        check_github,
        check_helpers,
        check_public_url,
        check_repositories,
        guarded,
        warning,
    )
    from service.platforms import registry

    configured = registry.configured_destinations(settings)  # one no platform takes: exit 2
    found = guarded("database", lambda: check_database(settings.database_url))
    database_ok = all(f.ok for f in found)
    subscribed = _subscribed_channels(settings, configured) if database_ok else {}
    github = build_github(settings, None, max_retries=DOCTOR_RETRIES)
    checked = guarded("github", lambda: check_github(github))
    found += checked
    if all(f.ok for f in checked) or not github.has_token:  # a refused token: said once
        found += check_repositories(github, settings.repositories)
    for platform in registry.platforms():
        found += platform.doctor(settings, subscribed.get(platform.name, []))
    # nothing configured, subscribed by command or monthly: a warning (commands still work)
    nowhere = not configured and not any(subscribed.values())
    if database_ok and nowhere:
        found.append(warning("cards", operator_text.NO_DESTINATION_DOCTOR))
    if settings.llm_enabled:
        found += guarded("model", lambda: _doctor_model(settings))
    chat = bool(registry.configured(settings))
    found += check_public_url(settings.public_base_url, chat=chat)
    return found + check_helpers()


def _subscribed_channels(settings: Settings, configured: list[Destination]) -> dict[str, list[str]]:
    """Channels subscribed by command, and those of the monthly cadence, per platform (the
    store is only read)."""
    from service.delivery.destination import WEEKLY

    store = Store(create_store_engine(settings.database_url))
    try:
        found: dict[str, list[str]] = {}
        monthly = [d for d in configured if d.cadence != WEEKLY]
        for route in Routes(store, monthly).destinations():
            found.setdefault(route.platform, []).append(route.target)
        return found
    finally:
        store.engine.dispose()


def _doctor_model(settings: Settings) -> list[Finding]:
    from urllib.parse import urlsplit

    from service.llm.probe import check_key, served_models
    from service.ops.doctor import check_model

    base_url = settings.llm_base_url or ""
    key, model = secret(settings.llm_api_key), settings.llm_model or ""
    return check_model(
        lambda: served_models(base_url, key),
        model,
        urlsplit(base_url).netloc,
        lambda: check_key(base_url, key, model),
    )
