"""Settings: the only reader of the environment and `.env` (names fixed by design.md)."""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from service import operator_text
from service.core.languages import Language
from service.core.scope import FAMILY_NAME_RE, Scope, check_groups, parse_groups, resolve_scope
from service.delivery.destination import check_entry, split_entry, split_language
from service.errors import ConfigError

REPO_RE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
CommaList = Annotated[list[str], NoDecode]
CRON_HORIZON_DAYS = 32  # a weekly or monthly schedule fires at least this often
# any registered platform's name (the registry parses the target when the service is composed)
PLATFORM_RE = re.compile(r"^[a-z][a-z0-9-]*$")
DESTINATION_EXAMPLE = "slack:C0123"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def _split_commas(value: Any) -> Any:
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    return value


def _check_destinations(items: list[str], what: str, example: str) -> list[str]:
    for item in items:
        check_entry(*split_language(item), what, example)
    return items


def _check_url(value: str | None) -> str | None:
    if value is None or value == "":
        return None
    if not re.match(r"^https?://[^\s/?#]+[^\s]*$", value):
        raise ValueError("expected an http(s) URL such as https://example.com/path")
    return value


class Settings(BaseSettings):
    """Every setting of the service; environment variables are the field names in upper case."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", env_ignore_empty=True)

    github_token: SecretStr | None = Field(None, description="GitHub token; without it REST only")
    github_app_id: str | None = Field(None, description="GitHub App id: App login, not a token")
    github_app_private_key: SecretStr | None = Field(None, description="the App's PEM key text")
    github_app_private_key_file: str | None = Field(None, description="file of the App's PEM key")
    github_app_installation_id: int | None = Field(
        None, ge=1, description="the App's installation; found from the first repo when unset"
    )
    github_api_url: str = Field("https://api.github.com", description="GitHub REST base URL")
    github_graphql_url: str | None = Field(None, description="GraphQL URL; derived if unset")
    github_web_url: str | None = Field(None, description="GitHub web host; derived if unset")
    digest_groups: Annotated[dict[str, list[str]], NoDecode] = Field(
        {}, description="families: name=o/a|o/b;other=c/d|e/f, or a JSON object of lists"
    )
    digest_repos: CommaList = Field(
        ["volcengine/verl"], description="owner/name list (or names of DIGEST_GROUPS' families)"
    )
    digest_timezone: str = Field("Asia/Shanghai", description="timezone of the week windows")
    digest_language: Language = Field("zh", description="language of the digest")
    digest_schedule: str = Field("0 10 * * MON", description="cron of the weekly run")
    # per-destination cadence (service/delivery/cadence.py)
    digest_monthly_destinations: CommaList = Field(
        [], description="destinations that get the monthly digest: slack:C0123,feishu:oc_a:en"
    )
    digest_monthly_schedule: str | None = Field(
        None, description="cron of the monthly run; unset: DIGEST_SCHEDULE's time on the 1st"
    )
    database_url: str = Field("sqlite:///./data/verl-week.db", description="SQLAlchemy URL")
    public_base_url: str = Field("http://localhost:8080", description="base URL of report pages")
    slack_bot_token: SecretStr | None = Field(None, description="Slack bot token xoxb-…")
    slack_signing_secret: SecretStr | None = Field(None, description="Slack signing secret")
    slack_app_token: SecretStr | None = Field(None, description="Slack app token, Socket Mode")
    slack_api_url: str = Field("https://slack.com/api/", description="Slack Web API base URL")
    slack_channels: CommaList = Field(
        [], description="channels that get the weekly post, each with an optional :zh or :en"
    )
    slack_command: str = Field("/verl-week", description="slash command name")
    feishu_app_id: str | None = Field(None, description="Feishu app id cli_…")
    feishu_app_secret: SecretStr | None = Field(None, description="Feishu app secret")
    feishu_verification_token: SecretStr | None = Field(None, description="event token")
    feishu_encrypt_key: SecretStr | None = Field(None, description="event encrypt key")
    feishu_event_mode: Literal["http", "websocket"] = Field(
        "http", description="events by HTTP callback, or over Feishu's long connection"
    )
    feishu_base_url: str = Field("https://open.feishu.cn", description="Feishu or Lark base URL")
    feishu_chat_ids: CommaList = Field(
        [], description="group chats that get the weekly post, each with an optional :zh or :en"
    )
    feishu_webhook_url: str | None = Field(None, description="custom group bot webhook URL")
    feishu_webhook_secret: SecretStr | None = Field(None, description="custom bot sign secret")
    feishu_webhook_language: Language | None = Field(
        None, description="language of the webhook's card; DIGEST_LANGUAGE when unset"
    )
    admin_users: CommaList = Field([], description="Slack user ids / Feishu open_ids of admins")
    github_max_wait_seconds: int = Field(300, ge=0, description="longest rate-limit wait")
    github_patch_concurrency: int = Field(4, ge=1, le=32, description="parallel patch fetches")
    log_format: Literal["text", "json"] = Field("text", description="log line format")
    log_level: str = Field("INFO", description="log level")
    progress_log_seconds: float = Field(
        5.0, gt=0, le=3600, description="without a terminal, a progress log line this often"
    )
    repo_profiles_dir: str | None = Field(None, description="folder of extra repo profiles")
    events_retention_days: int = Field(7, ge=1, description="days a handled event id is kept")
    http_cache_retention_days: int = Field(30, ge=1, description="days a GitHub ETag is kept")
    pr_lookups_per_hour: int = Field(20, ge=0, description="live `pr N` lookups per chat user")
    pr_lookup_timeout_seconds: float = Field(
        20, gt=0, le=600, description="a live `pr N` lookup is answered 'GitHub is slow' after"
    )
    metrics_repo_names: bool = Field(
        False, description="/metrics labels private repositories by name (else an opaque id)"
    )
    reports_access: Literal["public", "signed"] | None = Field(
        None, description="report pages: public, or signed links; unset: signed if private"
    )
    reports_signing_key: SecretStr | None = Field(None, description="key of signed report links")
    report_link_days: int = Field(
        30, ge=1, le=366, description="days a signed report link is valid (at most)"
    )
    llm_base_url: str | None = Field(None, description="OpenAI-compatible endpoint …/v1")
    llm_api_key: SecretStr | None = Field(None, description="key of the model endpoint")
    llm_model: str | None = Field(None, description="model name the endpoint serves")
    llm_timeout_seconds: int = Field(120, ge=1, le=3600, description="model budget per week")
    llm_verify_enabled: bool = Field(
        True, description="a model judges each kept sentence (when a model is configured)"
    )
    llm_verify_base_url: str | None = Field(None, description="verifier endpoint; LLM_BASE_URL")
    llm_verify_api_key: SecretStr | None = Field(None, description="verifier key; LLM_API_KEY")
    llm_verify_model: str | None = Field(None, description="verifier model; LLM_MODEL")
    llm_verify_timeout_seconds: int = Field(
        60, ge=1, le=3600, description="verification budget per week and language"
    )
    llm_verify_max_tokens: int = Field(
        2000, ge=100, le=32768, description="most tokens of one verifier answer"
    )
    connection_down_seconds: float = Field(
        300, ge=1, le=86400, description="a chat connection down longer: /healthz not ready"
    )
    run_retry_first_seconds: float = Field(
        30, gt=0, le=60, description="first retry of a failed weekly run"
    )
    run_retry_max_seconds: float = Field(
        3600, gt=0, le=3600, description="longest wait between retries of a failed run"
    )
    run_lease_seconds: float = Field(
        300, gt=0, description="a run not heard from for this long was abandoned"
    )

    @field_validator(
        "digest_repos",
        "slack_channels",
        "feishu_chat_ids",
        "admin_users",
        "digest_monthly_destinations",
        mode="before",
    )
    @classmethod
    def _lists(cls, value: Any) -> Any:
        return _split_commas(value)

    @field_validator("slack_channels")
    @classmethod
    def _slack_channels(cls, value: list[str]) -> list[str]:
        return _check_destinations(value, "a channel id", "C0123")

    @field_validator("feishu_chat_ids")
    @classmethod
    def _feishu_chats(cls, value: list[str]) -> list[str]:
        return _check_destinations(value, "a chat id", "oc_abc")

    @field_validator("digest_monthly_destinations")
    @classmethod
    def _monthly_destinations(cls, value: list[str]) -> list[str]:
        for item in value:
            platform, target, lang = split_entry(item)
            if not PLATFORM_RE.match(platform):
                target = ""  # refused below, naming the whole entry
            check_entry(target, lang, "destinations", DESTINATION_EXAMPLE)
        return value

    @field_validator("digest_repos")
    @classmethod
    def _repos(cls, value: list[str], info: ValidationInfo) -> list[str]:
        if not value:
            raise ValueError("expected at least one owner/name")
        families = info.data.get("digest_groups") or {}
        for repo in value:
            if REPO_RE.match(repo) or repo in families:
                continue
            if FAMILY_NAME_RE.match(repo):
                raise ValueError(f"expected owner/name or a family of DIGEST_GROUPS, got {repo!r}")
            raise ValueError(f"expected owner/name, got {repo!r}")
        return value

    @field_validator("digest_groups", mode="before")
    @classmethod
    def _groups(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip()
            try:
                value = json.loads(text) if text.startswith("{") else parse_groups(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"expected a JSON object of lists ({exc.msg})") from None
        if isinstance(value, dict):
            return check_groups(value)
        return value

    @field_validator("digest_timezone")
    @classmethod
    def _timezone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            expected = "expected an IANA timezone such as Asia/Shanghai"
            raise ValueError(f"{expected}, got {value!r}") from exc
        return value

    @field_validator("digest_schedule", "digest_monthly_schedule")
    @classmethod
    def _cron(cls, value: str | None) -> str | None:
        if value is None:
            return None
        from apscheduler.triggers.cron import CronTrigger

        try:
            trigger = CronTrigger.from_crontab(value, timezone="UTC")
        except ValueError as exc:
            expected = "expected a 5-field cron such as '0 10 * * MON'"
            raise ValueError(f"{expected}, got {value!r}") from exc
        now = datetime.now(UTC)
        fires = trigger.get_next_fire_time(None, now)
        if fires is None or fires - now > timedelta(days=CRON_HORIZON_DAYS):
            raise ValueError(
                f"{value!r} does not fire within {CRON_HORIZON_DAYS} days (a date that never "
                "comes, such as 30 February?): a weekly or monthly digest would never be sent"
            )
        return value

    @field_validator(
        "github_api_url",
        "github_graphql_url",
        "github_web_url",
        "public_base_url",
        "slack_api_url",
        "feishu_base_url",
        "feishu_webhook_url",
        "llm_base_url",
        "llm_verify_base_url",
    )
    @classmethod
    def _urls(cls, value: str | None) -> str | None:
        return _check_url(value)

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str) -> str:
        # a placeholder left in a deploy's Secret (deploy/k8s/secret.yaml) stops here, loudly
        if not re.match(r"^[a-z][a-z0-9+]*://", value):
            raise ValueError(
                "expected a SQLAlchemy URL such as "
                "postgresql+psycopg://verl:PASSWORD@HOST:5432/verl_week or sqlite:///./data/verl-week.db"
            )
        return value

    @field_validator("log_level")
    @classmethod
    def _log_level(cls, value: str) -> str:
        level = value.strip().upper()
        if level not in LOG_LEVELS:
            raise ValueError(f"expected one of {', '.join(LOG_LEVELS)}, got {value!r}")
        return level

    @field_validator("database_url")
    @classmethod
    def _database(cls, value: str) -> str:
        if "://" not in value:
            raise ValueError("expected a SQLAlchemy URL such as sqlite:///./data/verl-week.db")
        return value

    @model_validator(mode="after")
    def _derive_graphql(self) -> Settings:
        if not self.github_graphql_url:
            self.github_graphql_url = derive_graphql_url(self.github_api_url)
        if not self.github_web_url:
            self.github_web_url = derive_web_url(self.github_api_url)
        return self

    @model_validator(mode="after")
    def _llm_pair(self) -> Settings:
        if self.llm_base_url and not self.llm_model:
            raise ValueError("LLM_MODEL is required with LLM_BASE_URL (the model to ask)")
        if self.llm_model and not self.llm_base_url:
            raise ValueError("LLM_BASE_URL is required with LLM_MODEL (e.g. http://host:8000/v1)")
        return self

    @model_validator(mode="after")
    def _github_app(self) -> Settings:
        keys = (self.github_app_private_key, self.github_app_private_key_file)
        if self.github_app_id and not any(keys):
            raise ValueError(
                "GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_FILE is required with "
                "GITHUB_APP_ID (the .pem file GitHub generated for the App)"
            )
        if all(keys):
            raise ValueError("set GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_FILE, not both")
        if any(keys) and not self.github_app_id:
            raise ValueError("GITHUB_APP_ID is required with the App's private key")
        return self

    @property
    def llm_enabled(self) -> bool:
        """Whether a language model writes the narrative (both LLM_BASE_URL and LLM_MODEL)."""
        return bool(self.llm_base_url and self.llm_model)

    @property
    def llm_verify(self) -> bool:
        """Whether a model verifies the kept sentences: LLM_VERIFY_ENABLED with a model set."""
        return self.llm_enabled and self.llm_verify_enabled

    @property
    def monthly_schedule(self) -> str:
        """DIGEST_MONTHLY_SCHEDULE, else DIGEST_SCHEDULE's minute and hour on the 1st."""
        from service.delivery.cadence import monthly_cron

        return self.digest_monthly_schedule or monthly_cron(self.digest_schedule)

    def scope(self, names: list[str]) -> Scope:
        """The scope repositories and family names stand for (DIGEST_GROUPS names families)."""
        return resolve_scope(names, self.digest_groups)

    @property
    def repositories(self) -> list[str]:
        """Every repository DIGEST_REPOS names, its families' members in order, once each."""
        found = [r for name in self.digest_repos for r in self.scope([name]).repos]
        return list(dict.fromkeys(found))

    @property
    def graphql_url(self) -> str:
        """The GraphQL endpoint, explicit or derived from the REST base."""
        return self.github_graphql_url or derive_graphql_url(self.github_api_url)


def derive_graphql_url(api_url: str) -> str:
    """`https://api.github.com` → `…/graphql`; Enterprise `https://H/api/v3` → `https://H/api/graphql`."""
    base = api_url.rstrip("/")
    if base.endswith("/api/v3"):
        return base[: -len("/v3")] + "/graphql"
    return base + "/graphql"


def derive_web_url(api_url: str) -> str:
    """Where people open the repositories: `https://api.HOST` → `https://HOST` (github.com),
    Enterprise `https://HOST/api/v3` → `https://HOST`; any other API URL → its origin."""
    parts = urlsplit(api_url.strip())
    path = parts.path.rstrip("/")
    if path.endswith("/api/v3"):
        return f"{parts.scheme}://{parts.netloc}{path.removesuffix('/api/v3')}"
    host = parts.netloc.removeprefix("api.")
    return f"{parts.scheme}://{host}"


def load_settings(**overrides: Any) -> Settings:
    """Build Settings, turning a validation failure into one ConfigError line naming the setting."""
    secrets_dir = os.environ.get("SECRETS_DIR") or None
    if secrets_dir is not None and not os.path.isdir(secrets_dir):
        why = f"{secrets_dir} is not a directory"
        raise ConfigError(operator_text.invalid_setting("SECRETS_DIR", why))
    try:
        # SECRETS_DIR: one file per setting, named like it (GITHUB_TOKEN), as Kubernetes and
        # Docker mount secrets; the environment and .env still win over a file
        return Settings(_secrets_dir=secrets_dir, **overrides)
    except (UnicodeDecodeError, OSError) as exc:  # a .env file that is not UTF-8 text
        raise ConfigError(operator_text.unreadable_env_file(exc)) from None
    except ValidationError as exc:
        first = exc.errors()[0]
        reason = str(first["msg"]).removeprefix("Value error, ")
        if not first["loc"]:  # a rule across settings names them in its reason
            raise ConfigError(operator_text.invalid_settings(reason)) from None
        name = str(first["loc"][0]).upper()
        raise ConfigError(operator_text.invalid_setting(name, reason)) from None
