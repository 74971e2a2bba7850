"""Composition root: Settings → store, GitHub client, pipeline, senders, web app, scheduler.
The only module (with cli.py) that sees both the settings and the adapters."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from service.core.models import CollectedWeek, Digest, PullRequest, WeekWindow
from service.core.profile import RepoProfile, load_profile
from service.delivery import Sender
from service.errors import ConfigError, InputError
from service.jobs import Pipeline, RunResult
from service.recorded import SAMPLE_REPO, load_sample
from service.settings import Settings
from service.store.repository import Store
from service.store.schema import SchemaUpgrade

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from service.commands.answer import EngineContext
    from service.github.http import GitHubHttp
    from service.scheduler import WeeklyScheduler
    from service.web import Endpoint

Progress = Callable[[int, int], None]


def utc_now() -> datetime:
    return datetime.now(UTC)


def secret(value: object) -> str | None:
    """The plain value of an optional SecretStr (only here, where clients are built)."""
    getter = getattr(value, "get_secret_value", None)
    return getter() if getter else None


def profile_loader(settings: Settings) -> Callable[[str], RepoProfile]:
    """Repo profiles: REPO_PROFILES_DIR's TOML files first, then the shipped ones."""
    extra = (Path(settings.repo_profiles_dir),) if settings.repo_profiles_dir else ()
    for folder in extra:
        if not folder.is_dir():
            raise ConfigError(f"invalid setting REPO_PROFILES_DIR: {folder} is not a folder")
    return lambda repo: load_profile(repo, extra)


def build_store(settings: Settings) -> Store:
    return Store.open(settings.database_url)


def migrate_database(settings: Settings) -> SchemaUpgrade:
    """`verl-week migrate`: the schema upgrade alone (every process also does it on start)."""
    return Store.open(settings.database_url, migrate=False).migrate()


def build_github(settings: Settings, store: Store) -> GitHubHttp:
    from service.github.http import GitHubHttp

    return GitHubHttp(
        api_url=settings.github_api_url,
        graphql_url=settings.graphql_url,
        token=secret(settings.github_token),
        cache=store,
        max_wait=float(settings.github_max_wait_seconds),
    )


def sample_collector(now: Callable[[], datetime]) -> Callable[[str, WeekWindow], CollectedWeek]:
    """A collector that serves the bundled sample week only (no network, no token)."""

    def collect(repo: str, window: WeekWindow) -> CollectedWeek:
        sample = load_sample(now())
        if repo != SAMPLE_REPO or window.label != sample.window.label:
            raise InputError(
                f"the bundled sample holds {SAMPLE_REPO} {sample.window.label} only "
                f"(asked for {repo} {window.label})"
            )
        return sample

    return collect


def github_collector(
    settings: Settings, store: Store, progress: Progress | None
) -> tuple[Callable[[str, WeekWindow], CollectedWeek], Callable[[str, int], PullRequest]]:
    from service.github.collect import collect_week, fetch_pr

    http = build_github(settings, store)

    def collect(repo: str, window: WeekWindow) -> CollectedWeek:
        return collect_week(
            http,
            repo,
            window,
            profile_loader(settings)(repo),
            patch_concurrency=settings.github_patch_concurrency,
            progress=progress,
        )

    def fetch(repo: str, number: int) -> PullRequest:
        return fetch_pr(http, repo, number)

    return collect, fetch


def build_senders(settings: Settings) -> dict[str, Sender]:
    """A sender per configured platform."""
    senders: dict[str, Sender] = {}
    if settings.slack_bot_token:
        from service.slack.sender import SlackSender, build_web_client

        client = build_web_client(secret(settings.slack_bot_token) or "", settings.slack_api_url)
        senders["slack"] = SlackSender(
            client, public_base_url=settings.public_base_url, language=settings.digest_language
        )
    if settings.feishu_app_id and settings.feishu_app_secret:
        from service.feishu.sender import FeishuSender

        senders["feishu"] = FeishuSender(
            base_url=settings.feishu_base_url,
            app_id=settings.feishu_app_id,
            app_secret=secret(settings.feishu_app_secret) or "",
            public_base_url=settings.public_base_url,
            language=settings.digest_language,
        )
    if settings.feishu_webhook_url:
        from service.feishu.webhook import WebhookSender

        senders["webhook"] = WebhookSender(
            url=settings.feishu_webhook_url,
            secret=secret(settings.feishu_webhook_secret),
            public_base_url=settings.public_base_url,
            language=settings.digest_language,
        )
    return senders


def destinations_for(settings: Settings, store: Store) -> Callable[[str], list[str]]:
    """Every configured destination of a repo: channels, subscriptions, chats, webhook."""

    def resolve(repo: str) -> list[str]:
        found = [f"slack:{c}" for c in settings.slack_channels]
        found += [f"{platform}:{channel}" for platform, channel in store.subscriptions(repo)]
        found += [f"feishu:{c}" for c in settings.feishu_chat_ids]
        if settings.feishu_webhook_url:
            found.append("webhook:feishu")
        return list(dict.fromkeys(found))

    return resolve


def build_pipeline(
    settings: Settings,
    *,
    sample: bool = False,
    progress: Progress | None = None,
    store: Store | None = None,
    with_senders: bool = True,
) -> Pipeline:
    """The pipeline for the CLI, the scheduler and the chat adapters."""
    store = store or build_store(settings)
    fetch: Callable[[str, int], PullRequest] | None = None
    if sample:
        collect = sample_collector(utc_now)
    else:
        collect, fetch = github_collector(settings, store, progress)
    profile_for = profile_loader(settings)
    return Pipeline(
        store=store,
        collect=collect,
        profile_for=profile_for,
        repos=list(settings.digest_repos),
        language=settings.digest_language,
        timezone=settings.digest_timezone,
        public_base_url=settings.public_base_url,
        clock=utc_now,
        senders=build_senders(settings) if with_senders else {},
        destinations_for=destinations_for(settings, store),
        fetch_pr=fetch,
    )


def report_link(settings: Settings, repo: str, week: str) -> str:
    from service.render.links import report_url

    return report_url(settings.public_base_url, repo, week)


def parse_destinations(text: str) -> list[str]:
    """`slack:C01,feishu:oc_x,webhook:feishu` → validated destination strings."""
    found = []
    for item in (part.strip() for part in text.split(",")):
        platform, sep, target = item.partition(":")
        if not item:
            continue
        if not sep or not target or platform not in ("slack", "feishu", "webhook"):
            raise InputError(
                f"bad --to item {item!r}: expected slack:CHANNEL, feishu:CHAT_ID or webhook:feishu"
            )
        found.append(f"{platform}:{target.lstrip('#') if platform == 'slack' else target}")
    if not found:
        raise InputError("--to names no destination")
    return found


def configure_logging(settings: Settings) -> None:
    from service.logs import setup_logging

    setup_logging(settings.log_format, settings.log_level)


def engine_context(settings: Settings, pipeline: Pipeline) -> EngineContext:
    """The command engine's context: the store as reader and subscriptions, admins, live PRs."""
    from service.commands.answer import EngineContext
    from service.render.links import report_url

    return EngineContext(
        reader=pipeline.store,
        repos=list(pipeline.repos),
        language=pipeline.language,
        timezone=pipeline.timezone,
        clock=pipeline.clock,
        admins=frozenset(settings.admin_users),
        fetch_pr=pipeline.fetch_pr,
        subscriptions=pipeline.store,
        report_url=lambda repo, week: report_url(settings.public_base_url, repo, week),
    )


def regenerate_callable(pipeline: Pipeline) -> Callable[[str, str, str], RunResult]:
    from service.jobs import regenerate

    def run(repo: str, week: str, requested_by: str) -> RunResult:
        return regenerate(pipeline, repo, week, requested_by=requested_by)

    return run


def dry_run_lines(
    settings: Settings, pipeline: Pipeline, digest: Digest, targets: list[str] | None
) -> list[str]:
    """What `post --dry-run` shows: each destination, what it already has, the card size."""
    from service.render.formats import render_format

    destinations = targets if targets is not None else pipeline.destinations_for(digest.repo)
    if not destinations:
        return [
            "no destination configured: set SLACK_CHANNELS, FEISHU_CHAT_IDS or FEISHU_WEBHOOK_URL"
        ]
    url = report_link(settings, digest.repo, digest.week)
    lines = []
    for destination in destinations:
        platform = destination.partition(":")[0]
        fmt = "slack" if platform == "slack" else "feishu"
        size = len(render_format(digest, fmt, digest.language, report_url=url).encode())
        record = pipeline.store.get_delivery(digest.repo, digest.week, destination)
        state = f"already {record.status}" if record else "new"
        lines.append(f"{destination}\t{state}\t{fmt} card {size} bytes")
    return lines


def answer_text(
    args: argparse.Namespace,
    settings: Settings,
    pipeline: Pipeline,
    repo: str,
    window: WeekWindow,
    lang: str,
) -> str:
    """`verl-week risks|pr`: the chat command's answer for the week, built first if not stored."""
    from service.commands.answer import Caller, answer
    from service.commands.parse import Command, Verb
    from service.core.models import Severity
    from service.jobs import build_week
    from service.render.text import render_answer_text

    digest = pipeline.store.get_digest(repo, window.label, lang)
    if args.sample or digest is None:
        digest = build_week(pipeline, repo, window)
    if args.command == "pr":
        number = str(args.number).lstrip("#")
        if not number.isdigit():
            raise InputError(f"bad PR number {args.number!r}: expected a number such as 6091")
        command = Command(verb=Verb.PR, number=int(number), week=window.label, repo=repo)
    else:
        severity = Severity(args.severity) if args.severity else None
        command = Command(verb=Verb.RISKS, week=window.label, severity=severity, repo=repo)
    ctx = engine_context(settings, pipeline)
    ctx.repos = list(dict.fromkeys([*ctx.repos, repo]))
    result = answer(command, Caller(user_id="cli", platform="cli"), ctx)
    return render_answer_text(result, lang, digest)


def _slack_endpoint(settings: Settings, pipeline: Pipeline, ctx: EngineContext) -> Endpoint | None:
    if not (settings.slack_bot_token and settings.slack_signing_secret):
        return None
    from service.slack.app import build_slack_app, build_slack_endpoint, start_socket_mode
    from service.slack.sender import build_web_client

    app = build_slack_app(
        client=build_web_client(secret(settings.slack_bot_token) or "", settings.slack_api_url),
        signing_secret=secret(settings.slack_signing_secret) or "",
        engine=ctx,
        regenerate=regenerate_callable(pipeline),
        command=settings.slack_command,
        language=settings.digest_language,
    )
    if settings.slack_app_token:
        start_socket_mode(app, secret(settings.slack_app_token) or "")
    return build_slack_endpoint(app)


def _feishu_endpoint(settings: Settings, pipeline: Pipeline, ctx: EngineContext) -> Endpoint | None:
    if not (settings.feishu_app_id and settings.feishu_app_secret):
        return None
    from service.feishu.api import FeishuApi
    from service.feishu.auth import TenantTokenCache
    from service.feishu.events import build_feishu_endpoint

    tokens = TenantTokenCache(
        base_url=settings.feishu_base_url,
        app_id=settings.feishu_app_id,
        app_secret=secret(settings.feishu_app_secret) or "",
    )
    return build_feishu_endpoint(
        events=pipeline.store,
        api=FeishuApi(tokens),
        engine=ctx,
        verification_token=secret(settings.feishu_verification_token),
        encrypt_key=secret(settings.feishu_encrypt_key),
        regenerate=regenerate_callable(pipeline),
    )


def build_weekly_scheduler(settings: Settings, pipeline: Pipeline) -> WeeklyScheduler:
    from service.jobs import run_scheduled
    from service.scheduler import build_scheduler

    return build_scheduler(
        run_job=lambda: run_scheduled(pipeline),
        catch_up_job=lambda: run_scheduled(pipeline, trigger="catch-up"),
        database_url=settings.database_url,
        schedule=settings.digest_schedule,
        timezone=settings.digest_timezone,
        store=pipeline.store,
        repos=settings.digest_repos,
    )


def build_app(
    settings: Settings, pipeline: Pipeline, *, scheduler: WeeklyScheduler | None = None
) -> Starlette:
    """The web app of `serve`: reports, healthz, and the Slack and Feishu endpoints."""
    from service.commands.answer import CachedReader
    from service.web import build_web_app

    ctx = engine_context(settings, pipeline)
    ctx.reader = CachedReader(pipeline.store, clock=pipeline.clock)
    return build_web_app(
        store=pipeline.store,
        slack_endpoint=_slack_endpoint(settings, pipeline, ctx),
        feishu_endpoint=_feishu_endpoint(settings, pipeline, ctx),
        scheduler_alive=scheduler.alive if scheduler else None,
        on_shutdown=scheduler.shutdown if scheduler else None,
        language=settings.digest_language,
    )


def serve(settings: Settings, *, host: str, port: int, scheduler: bool = True) -> None:
    """`verl-week serve`: the web app, with the weekly scheduler in the same process."""
    import uvicorn

    pipeline = build_pipeline(settings)
    weekly = build_weekly_scheduler(settings, pipeline) if scheduler else None
    app = build_app(settings, pipeline, scheduler=weekly)
    if weekly:
        weekly.start()
    uvicorn.run(app, host=host, port=port, access_log=False, log_config=None)


def run_scheduler_forever(settings: Settings) -> None:
    """`verl-week scheduler`: the weekly job alone, until SIGTERM or Ctrl-C."""
    build_weekly_scheduler(settings, build_pipeline(settings)).run_until_stopped()
