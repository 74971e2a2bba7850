"""The English an operator reads: what the command line prints and the service's own log lines.

Chat users read the catalogs of templates/strings/ (in their language); this module is for the
person running `verl-week`, so it is English only, one constant or format function per line,
grouped by subject. It imports nothing, so any layer may use it.
"""

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
    return f"bad --repo {repo!r}: expected owner/name such as volcengine/verl"


def cannot_write(path: object, reason: str | None) -> str:
    return f"cannot write {path}: {reason}"


def bad_pr_number(value: object) -> str:
    return f"bad PR number {value!r}: expected a number such as 6091"


def bad_destination(item: str) -> str:
    return f"bad --to item {item!r}: expected slack:CHANNEL, feishu:CHAT_ID or webhook:feishu"


NO_DESTINATION_NAMED = "--to names no destination"


def sample_only(sample_repo: str, sample_week: str, repo: str, week: str) -> str:
    return f"the bundled sample holds {sample_repo} {sample_week} only (asked for {repo} {week})"


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
    """A long build's heartbeat when no terminal shows a bar (service/progress.py)."""
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

# logs: GitHub

LOG_GITHUB_RETRY = "github retry"
LOG_GITHUB_TOKEN_REFUSED = "github app token refused; minting a new one"  # noqa: S105 - no secret
LOG_GITHUB_TOKEN_MINTED = "github app token minted"  # noqa: S105 - a log line, no secret
LOG_GITHUB_INSTALLATION_FOUND = "github app installation found"

# logs: the database and /metrics

LOG_OUTAGE_BEGAN = "database outage began: %s (logged once, until it answers again)"
LOG_OUTAGE_ENDED = "database outage ended: the database answers again"
LOG_SCHEMA_DOWNGRADE = "downgrading the database schema"
LOG_METRICS_REFRESH_FAILED = "metrics refresh failed"
