"""Table definitions: the schema the code reads and writes.

The database gets there through the Alembic revisions in `migrations/versions` (schema.py runs
them); a change here needs a new revision there, and `alembic revision --autogenerate` compares
the two (see migrations/alembic.ini).
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    Unicode,
    UniqueConstraint,
)

SCHEDULER_JOBS_TABLE = "apscheduler_jobs"
# a subscription's or delivery's filter, as the grammar writes it back ("" for every PR)
FILTER_CHARS = 500
# a period label: `2026-W04`, `2026-01`, `2026-01-12..2026-01-25`, … (core/periods/); the
# columns are named `period` (revision 0010; `week` before it)
PERIOD_CHARS = 40

metadata = MetaData()

pr_snapshots = Table(
    "pr_snapshots",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("repo", String(200), nullable=False),
    Column("number", Integer, nullable=False),
    Column("week", String(10), nullable=False, index=True),
    Column("merged_at", DateTime(timezone=True), nullable=False),
    Column("data", JSON, nullable=False),
    Column("fetched_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("repo", "number", name="uq_pr_snapshot"),
)

http_cache = Table(
    "http_cache",
    metadata,
    Column("key", String(2000), primary_key=True),
    Column("etag", String(500), nullable=False),
    Column("body", Text, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

digests = Table(
    "digests",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("repo", String(200), nullable=False),
    Column("period", String(PERIOD_CHARS), nullable=False),
    Column("period_kind", String(10), nullable=False, server_default="week"),
    Column("language", String(5), nullable=False),
    Column("schema_version", Integer, nullable=False),
    Column("data", JSON, nullable=False),
    Column("generated_at", DateTime(timezone=True), nullable=False),
    Column("complete", Boolean, nullable=False),
    Column("missing", JSON, nullable=False),
    # sha256 of everything the digest was built from (jobs.inputs_key); None: unknown
    Column("inputs", String(64)),
    # a token new on every save (uuid4 hex): "is the digest I hold still the stored one?"
    # asked without reading `data`; None: saved before revision 0009, unknown
    Column("revision", String(32)),
    UniqueConstraint("repo", "period", "language", name="uq_digest"),
)

deliveries = Table(
    "deliveries",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("repo", String(200), nullable=False),
    Column("period", String(PERIOD_CHARS), nullable=False),
    Column("period_kind", String(10), nullable=False, server_default="week"),
    Column("destination", String(300), nullable=False),
    Column("filter", String(FILTER_CHARS), nullable=False, server_default=""),
    Column("status", String(20), nullable=False),
    Column("message_id", String(300)),
    Column("idempotency_key", String(100), nullable=False),
    Column("attempts", Integer, nullable=False, default=0),
    Column("error", Text),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("repo", "period", "destination", "filter", name="uq_delivery_target"),
)

subscriptions = Table(
    "subscriptions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("platform", String(20), nullable=False),
    Column("channel", String(200), nullable=False),
    Column("repo", String(200), nullable=False),
    Column("filter", String(FILTER_CHARS), nullable=False, server_default=""),
    Column("language", String(5)),
    Column("added_by", String(200)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # `weekly` or `monthly` (service/delivery/destination.py's CADENCES); `repo` is the scope
    Column("cadence", String(10), nullable=False, server_default="weekly"),
    UniqueConstraint(
        "platform", "channel", "repo", "filter", "cadence", name="uq_subscription_cadence"
    ),
)

locks = Table(
    "locks",
    metadata,
    Column("name", String(300), primary_key=True),
    Column("owner", String(200), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
)

runs = Table(
    "runs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("repo", String(200), nullable=False),
    Column("period", String(PERIOD_CHARS), nullable=False),
    Column("period_kind", String(10), nullable=False, server_default="week"),
    Column("trigger", String(30), nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True)),
    Column("outcome", String(30), nullable=False),
    Column("detail", JSON, nullable=False),
    # who runs it and until when it is known alive (renewed while running): a `running` row
    # past its lease was abandoned by a dead process
    Column("owner", String(200)),
    Column("lease_expires_at", DateTime(timezone=True)),
)

processed_events = Table(
    "processed_events",
    metadata,
    Column("event_id", String(200), primary_key=True),
    Column("platform", String(20), nullable=False),
    Column("received_at", DateTime(timezone=True), nullable=False),
)

repositories = Table(
    "repositories",
    metadata,
    Column("repo", String(200), primary_key=True),  # its name now (every table's `repo`)
    Column("private", Boolean, nullable=False),
    Column("checked_at", DateTime(timezone=True), nullable=False),
    # GitHub's id: the same through transfers and renames (None: known only from before 0007)
    Column("github_id", BigInteger),
    UniqueConstraint("github_id", name="uq_repositories_github_id"),
)

# names a repository had before a transfer or rename: commands and old report links that use
# them reach the repository by its id; `announced_period` is the period whose digest said so
repository_aliases = Table(
    "repository_aliases",
    metadata,
    Column("alias", String(200), primary_key=True),
    Column("github_id", BigInteger, nullable=False, index=True),
    Column("moved_at", DateTime(timezone=True), nullable=False),
    Column("announced_period", String(PERIOD_CHARS)),
)

# keys the service makes for itself, shared by every replica (the report-link key)
service_keys = Table(
    "service_keys",
    metadata,
    Column("name", String(100), primary_key=True),
    Column("value", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

# APScheduler 3's SQLAlchemyJobStore table: created by our revisions (under the schema lock)
# so that APScheduler's own unlocked CREATE finds it and does nothing.
scheduler_jobs = Table(
    SCHEDULER_JOBS_TABLE,
    metadata,
    Column("id", Unicode(191), primary_key=True),
    Column("next_run_time", Float(25), index=True),
    Column("job_state", LargeBinary, nullable=False),
)

# answers of the optional language model, by what was asked: the prompt's data (hashed), the
# model, the prompt version and the language; the checker runs on them again at every build
model_answers = Table(
    "model_answers",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("content_hash", String(64), nullable=False),
    Column("model", String(200), nullable=False),
    Column("prompt_version", String(40), nullable=False),
    Column("language", String(5), nullable=False),
    Column("answer", Text, nullable=False),
    Column("prompt_tokens", Integer, nullable=False),
    Column("completion_tokens", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("content_hash", "model", "prompt_version", "language", name="uq_model_answer"),
)
