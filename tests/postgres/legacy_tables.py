"""The tables of verl-week 0.1 exactly as its `metadata.create_all` made them, before Alembic:
service/store/tables.py at commit 5eba4b1, frozen here to prove that such a database is adopted.
Test data, not code: never edit it to follow tables.py."""

# ruff: noqa
from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

SCHEMA_VERSION = 1

# version → statements that upgrade (version - 1) to version; empty while at version 1.
MIGRATIONS: dict[int, tuple[str, ...]] = {}

metadata = MetaData()

schema_version = Table(
    "schema_version",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("version", Integer, nullable=False),
)

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
    Column("week", String(10), nullable=False),
    Column("language", String(5), nullable=False),
    Column("schema_version", Integer, nullable=False),
    Column("data", JSON, nullable=False),
    Column("generated_at", DateTime(timezone=True), nullable=False),
    Column("complete", Boolean, nullable=False),
    Column("missing", JSON, nullable=False),
    UniqueConstraint("repo", "week", "language", name="uq_digest"),
)

deliveries = Table(
    "deliveries",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("repo", String(200), nullable=False),
    Column("week", String(10), nullable=False),
    Column("destination", String(300), nullable=False),
    Column("status", String(20), nullable=False),
    Column("message_id", String(300)),
    Column("idempotency_key", String(100), nullable=False),
    Column("attempts", Integer, nullable=False, default=0),
    Column("error", Text),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("repo", "week", "destination", name="uq_delivery"),
)

subscriptions = Table(
    "subscriptions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("platform", String(20), nullable=False),
    Column("channel", String(200), nullable=False),
    Column("repo", String(200), nullable=False),
    Column("added_by", String(200)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("platform", "channel", "repo", name="uq_subscription"),
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
    Column("week", String(10), nullable=False),
    Column("trigger", String(30), nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True)),
    Column("outcome", String(30), nullable=False),
    Column("detail", JSON, nullable=False),
)

processed_events = Table(
    "processed_events",
    metadata,
    Column("event_id", String(200), primary_key=True),
    Column("platform", String(20), nullable=False),
    Column("received_at", DateTime(timezone=True), nullable=False),
)
