"""The English an operator reads: what the command line prints, what `verl-week doctor` says and
the service's own log lines, in one module, apart from the user catalogs of templates/strings/
(chat users read those, in their language; operators read these). English only, one constant or
format function per line, grouped by subject (CLI, settings, logs, doctor); none carries a secret.
It imports nothing, so any layer may use it.
"""

# ruff: noqa: S105 - sentences that name the token settings, not tokens

from __future__ import annotations

# CLI

PROGRAM = "verl-week"
INTERRUPTED = f"{PROGRAM}: interrupted"


def error_line(message: str) -> str:
    """Every failure of a command: one line on stderr."""
    return f"{PROGRAM}: error: {message}"


def internal_error_line(incident: str) -> str:
    return f"{PROGRAM}: internal error (id {incident}); see the log"


def invalid_setting(name: str, reason: str) -> str:
    """A setting that stops a command (or `serve`) before it starts; `name` as in .env."""
    return f"invalid setting {name}: {reason}"


def invalid_settings(reason: str) -> str:
    """A rule across settings (its reason names them)."""
    return f"invalid settings: {reason}"


def unreadable_env_file(reason: object) -> str:
    return f"cannot read the .env file: {reason}"


def bad_repo(repo: str) -> str:
    return (
        f"bad --repo {repo!r}: expected owner/name such as volcengine/verl, "
        "or a family of DIGEST_GROUPS"
    )


def cannot_write(path: object, reason: str | None) -> str:
    return f"cannot write {path}: {reason}"


def bad_pr_number(value: object) -> str:
    return f"bad PR number {value!r}: expected a number such as 6091"


def bad_destination(item: str) -> str:
    return f"bad --to item {item!r}: expected slack:CHANNEL, feishu:CHAT_ID or webhook:feishu"


NO_DESTINATION_NAMED = "--to names no destination"


def sample_only(sample_repo: str, sample_period: str, repo: str, period: str) -> str:
    return (
        f"the bundled sample holds {sample_repo} {sample_period} only (asked for {repo} {period})"
    )


def progress_bar(done: int, total: int, width: int = 30) -> str:
    """The bar a terminal shows while PRs are collected (redrawn in place, `\\r` first)."""
    filled = width * done // max(total, 1)
    return f"\rcollecting [{'#' * filled}{'.' * (width - filled)}] {done}/{total}"


def post_outcome(where: str, action: str, detail: str) -> str:
    """`post`: one tab-separated line per target: where, what happened, message id or error."""
    return f"{where}\t{action}\t{detail}"


NO_DESTINATION_CONFIGURED = (
    "no destination configured: set SLACK_CHANNELS, FEISHU_CHAT_IDS or FEISHU_WEBHOOK_URL"
)


def dry_run_state(status: str | None) -> str:
    """`post --dry-run`: what a target already has (`status` None: nothing yet)."""
    return f"already {status}" if status is not None else "new"


def dry_run_card(fmt: str, lang: str, prs: int, size: int) -> str:
    return f"{fmt} card in {lang}, {prs} PRs, {size} bytes"


def dry_run_line(where: str, state: str, card: str) -> str:
    return f"{where}\t{state}\t{card}"


def schema_taken_back(before: str, after: str) -> str:
    return f"database schema taken back from {before} to {after}"


def schema_up_to_date(revision: str) -> str:
    return f"database schema at revision {revision}: up to date"


def schema_upgraded(before: str, revision: str) -> str:
    return f"database schema upgraded from {before} to revision {revision}"


NO_REVISION = "empty"  # a database with no schema yet


def backed_up(path: object, size: int) -> str:
    return f"database backed up to {path} ({size} bytes)"


def restored(path: object, tables: int) -> str:
    return f"database restored from {path} ({tables} tables)"


# logs

LOG_INTERNAL_ERROR = "internal error"  # with the incident id the CLI printed


def log_progress(done: int, total: int | None, stage: str) -> str:
    """A long build's heartbeat when no terminal shows a bar (service/observe/progress.py)."""
    shown = "?" if total is None else str(total)
    return f"PRs fetched {done} of {shown}, stage {stage}"


# logs: delivery

LOG_DELIVERY_UNKNOWN = "delivery outcome unknown: not resent"
LOG_DELIVERY_FAILED = "delivery failed"
LOG_LEASE_RENEWAL_FAILED = "lease renewal failed"

# logs: the language model (%s: the reason)

LOG_MODEL_NARRATIVE = "model narrative"
LOG_MODEL_SKIPPED = "model narrative skipped, the deterministic text goes out: %s"
LOG_MODEL_CACHE_UNREADABLE = "model answer cache unreadable: %s"
LOG_MODEL_NOT_CACHED = "model answer not cached: %s"
LOG_MODEL_VERIFICATION = "model verification"
LOG_MODEL_VERIFY_FAILED = "model verification incomplete, %d sentences kept without a verdict: %s"

# logs: GitHub

LOG_GITHUB_RETRY = "github retry"
LOG_GITHUB_TOKEN_REFUSED = "github app token refused; minting a new one"
LOG_GITHUB_TOKEN_MINTED = "github app token minted"
LOG_GITHUB_INSTALLATION_FOUND = "github app installation found"
LOG_GITHUB_CLOCK_SKEW = "github clock differs from this host's; signing again with github's time"


def github_app_clock_off(skew_seconds: int | None) -> str:
    """GitHub refused the App's JWT for its times: the host clock is off (skew = GitHub - host,
    from its Date header; None when there was none, 0 when the Date received agrees with us)."""
    if skew_seconds is None:
        by = "off (GitHub's answer had no Date header to correct it by)"
    elif skew_seconds == 0:
        by = "off (the Date header received agrees with it: a proxy's clock?)"
    else:
        way = "behind" if skew_seconds > 0 else "ahead of"
        by = f"{abs(skew_seconds)} s {way} GitHub's"
    return (
        "GitHub refused the App's signed request (401) as issued at the wrong time: this host's "
        f"clock is {by}; set it right (NTP, e.g. `timedatectl set-ntp true`)"
    )


# logs: the database and /metrics

LOG_OUTAGE_BEGAN = "database outage began: %s (logged once, until it answers again)"
LOG_OUTAGE_ENDED = "database outage ended: the database answers again"
LOG_SCHEMA_DOWNGRADE = "downgrading the database schema"
LOG_METRICS_REFRESH_FAILED = "metrics refresh failed"


# doctor

# a destination typed the old way (`--to webhook:feishu`): logged when used, noted by doctor
DEPRECATED_DESTINATION = "{old} is deprecated: name this destination {new}"
DESTINATION_RENAMED = "destination {new} (the old name {old} still works, deprecated)"

# GitHub and the repositories
GITHUB_LEFT = "{remaining} of {limit} requests left until {reset:%H:%M} UTC"
GITHUB_NO_TOKEN = (
    "no GITHUB_TOKEN: {left}, too few for a week of a busy repository; create a fine-grained "
    "token with read access to Pull requests and Contents"
)
GITHUB_SPENT = "token ok, but the rate limit is spent: {left}"
GITHUB_OK = "token accepted; {left}"
REPO_FAILED = "{repo}: {error}"
REPO_NOT_FOUND = (
    "{repo}: not found, or the credentials can't see it (a private repository needs the token "
    "or app installed on it)"
)
REPO_PULLS_UNREADABLE = (
    "{repo}: its pull requests can't be read ({error}): give the credentials read access to "
    "Pull requests"
)
REPO_MOVED = "{repo} is now {named} (GitHub redirects the old name): set DIGEST_REPOS to {named}"
REPO_OK = "{repo}: {kind}, pull requests readable"

# Slack
SLACK_TOKEN_OK = "token accepted: {identity}"
SLACK_SOCKET_OK = "app token accepted: commands arrive over Socket Mode"
SLACK_NO_RECEIVER = (
    "neither SLACK_APP_TOKEN (Socket Mode, no public URL) nor SLACK_SIGNING_SECRET (requests to "
    "/slack/events) is set: /verl-week commands can't reach the service"
)
SOCKET_MODE_WITHOUT_BOT = (
    "SLACK_APP_TOKEN is set without SLACK_BOT_TOKEN: Socket Mode needs the bot token to answer"
)
SLACK_CHANNEL = "channel {channel}: {what}"
SLACK_MEMBER = "the bot is a member"
SLACK_JOINABLE = "public; the bot joins it on the first post (channels:join)"
SLACK_CHANNEL_NOT_FOUND = (
    "not found: check the id, or for a private channel invite the bot: /invite @verl-week"
)
SLACK_MISSING_SCOPE = (
    "the app lacks channels:history / groups:history: reinstall it from the manifest"
)

# Feishu: the app bot and its events
FEISHU_TOKEN_OK = "app {app_id} got a tenant_access_token"
FEISHU_CHAT_FAILED = "chat {chat}: {error}"
FEISHU_CHAT_MEMBER = "chat {chat}: the bot is a member"
FEISHU_CHAT_NOT_MEMBER = "chat {chat}: the bot is not in it: add it to the group"
FEISHU_WEBSOCKET_NEEDS_APP = "FEISHU_EVENT_MODE=websocket needs FEISHU_APP_ID and FEISHU_APP_SECRET"
FEISHU_WEBSOCKET_OK = "events arrive over the long connection (no public URL needed)"
FEISHU_HTTP_NEEDS_TOKEN = (
    "FEISHU_EVENT_MODE=http needs FEISHU_VERIFICATION_TOKEN or FEISHU_ENCRYPT_KEY from the "
    "console (Events & Callbacks → Encryption strategy); with no public URL, use "
    "FEISHU_EVENT_MODE=websocket"
)
FEISHU_NO_ENCRYPT_KEY = (
    "no FEISHU_ENCRYPT_KEY: events are checked by their token only (a key adds a signature and "
    "encryption)"
)
FEISHU_CALLBACK_UNREACHABLE = (
    "FEISHU_EVENT_MODE=http: Feishu can't reach {callback}; set PUBLIC_BASE_URL to the public "
    "address, or use FEISHU_EVENT_MODE=websocket"
)
FEISHU_EVENTS_OK = "{callback} answers Feishu's URL check (from this machine)"
FEISHU_CALLBACK_UNCHECKED = (
    "{callback} did not answer the URL check from this machine ({why}): Feishu must reach it; "
    "check PUBLIC_BASE_URL, DNS and the proxy in front of verl-week (or use "
    "FEISHU_EVENT_MODE=websocket)"
)

# Feishu: the custom-bot webhook
WEBHOOK_UNKNOWN_HOOK = "{host} does not know this hook: copy FEISHU_WEBHOOK_URL again"
WEBHOOK_SECRET_MISMATCH = "FEISHU_WEBHOOK_SECRET does not match the bot's secret"
WEBHOOK_WANTS_SIGNATURE = "the bot wants signed messages: set FEISHU_WEBHOOK_SECRET"
WEBHOOK_SIGNATURE_REFUSED = "signature refused: {fix}"
WEBHOOK_UNEXPECTED = "unexpected answer from {host} (code {code})"
WEBHOOK_SIGNED_OK = "{host} accepts our signature"
WEBHOOK_UNSIGNED = (
    "{host} takes unsigned messages: anyone with the URL can post; consider ticking signature "
    "verification and setting FEISHU_WEBHOOK_SECRET"
)

# the optional native helpers (service/observe/optional_helpers.py)
HELPER_GLOBS = "path globs"
HELPER_SHELL = "shell-variable rule"
HELPER_READER = "the built-in shell reader"
HELPER_SHELLCHECK_AT = "shellcheck {path}"
HELPER_NATIVE = "{purpose}: {in_use}"
HELPER_FALLBACK = (
    "{purpose}: {in_use} (the `{extra}` extra is not installed; install it where it has a wheel "
    "for the native helper)"
)
LOG_HELPER_FALLBACK = "optional helper missing, using the fallback: %s"

# where the cards go
NO_DESTINATION_DOCTOR = (
    "no destination configured: the weekly cards go nowhere; set SLACK_CHANNELS, "
    "FEISHU_CHAT_IDS or FEISHU_WEBHOOK_URL, or subscribe a channel (/verl-week subscribe)"
)

# the model endpoint
MODEL_UNLISTED = "{error}: LLM_MODEL {model} can't be checked before the first run"
MODEL_OK = "{host} answers and serves {model}"
MODEL_NOT_SERVED = "{host} does not serve LLM_MODEL {model}; it serves: {listed}"

# the database and PUBLIC_BASE_URL
DATABASE_EMPTY = (
    "{where} has no verl-week schema yet: `verl-week migrate` creates it (so does any command "
    "that opens the database, serve included)"
)
DATABASE_NEWER = "{where} is at revision {at}, newer than this release ({heads}): upgrade verl-week"
DATABASE_BEHIND = (
    "{where} is at revision {at}, this release needs {heads}: run `verl-week migrate` (serve and "
    "the scheduler also migrate on start)"
)
DATABASE_OK = "{where} reachable, schema at revision {at} (current)"
URL_LOCAL_WITH_CHAT = (
    "PUBLIC_BASE_URL is {url}: the cards' report links only work on this machine; set it to the "
    "address people reach the service at"
)
URL_LOCAL = "PUBLIC_BASE_URL is {url}: report links work on this machine only"
URL_QUERY = "PUBLIC_BASE_URL {url} has a query or fragment: drop it"
URL_PLAIN_HTTP = "PUBLIC_BASE_URL {url} is plain http: prefer https behind a proxy"
URL_OK = "PUBLIC_BASE_URL {url}"
