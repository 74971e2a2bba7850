"""Composition root: Settings → store, GitHub client, pipeline, senders, web app, scheduler.
The only module (with cli.py) that sees both the settings and the adapters."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from service.core.models import CollectedWeek, PullRequest, WeekWindow
from service.core.profile import RepoProfile, load_profile
from service.delivery import Sender
from service.errors import InputError
from service.jobs import Pipeline
from service.recorded import SAMPLE_REPO, load_sample
from service.settings import Settings
from service.store.repository import Store

if TYPE_CHECKING:
    from service.github.http import GitHubHttp

Progress = Callable[[int, int], None]


def utc_now() -> datetime:
    return datetime.now(UTC)


def secret(value: object) -> str | None:
    """The plain value of an optional SecretStr (only here, where clients are built)."""
    getter = getattr(value, "get_secret_value", None)
    return getter() if getter else None


def build_store(settings: Settings) -> Store:
    return Store.open(settings.database_url)


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
            load_profile(repo),
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
    profile_for: Callable[[str], RepoProfile] = load_profile
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
    from service.jobs import report_url

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
