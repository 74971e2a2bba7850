"""The schema of verl-week 0.1, and the adoption of databases its `create_all` made.

A table that already exists is left alone (a database made before Alembic already has them);
the old one-row `schema_version` table is dropped, Alembic's `alembic_version` replaces it.
APScheduler's job table is made here too, so that two processes starting on a fresh database
never race to create it.

Revision ID: 0001
Revises:
Create Date: 2026-05-11
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def _pr_snapshots() -> None:
    op.create_table(
        "pr_snapshots",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("repo", sa.String(200), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("week", sa.String(10), nullable=False),
        sa.Column("merged_at", TZ, nullable=False),
        sa.Column("data", sa.JSON, nullable=False),
        sa.Column("fetched_at", TZ, nullable=False),
        sa.UniqueConstraint("repo", "number", name="uq_pr_snapshot"),
    )
    op.create_index("ix_pr_snapshots_week", "pr_snapshots", ["week"])


def _http_cache() -> None:
    op.create_table(
        "http_cache",
        sa.Column("key", sa.String(2000), primary_key=True),
        sa.Column("etag", sa.String(500), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("updated_at", TZ, nullable=False),
    )


def _digests() -> None:
    op.create_table(
        "digests",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("repo", sa.String(200), nullable=False),
        sa.Column("week", sa.String(10), nullable=False),
        sa.Column("language", sa.String(5), nullable=False),
        sa.Column("schema_version", sa.Integer, nullable=False),
        sa.Column("data", sa.JSON, nullable=False),
        sa.Column("generated_at", TZ, nullable=False),
        sa.Column("complete", sa.Boolean, nullable=False),
        sa.Column("missing", sa.JSON, nullable=False),
        sa.UniqueConstraint("repo", "week", "language", name="uq_digest"),
    )


def _deliveries() -> None:
    op.create_table(
        "deliveries",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("repo", sa.String(200), nullable=False),
        sa.Column("week", sa.String(10), nullable=False),
        sa.Column("destination", sa.String(300), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("message_id", sa.String(300)),
        sa.Column("idempotency_key", sa.String(100), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("error", sa.Text),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("updated_at", TZ, nullable=False),
        sa.UniqueConstraint("repo", "week", "destination", name="uq_delivery"),
    )


def _subscriptions() -> None:
    op.create_table(
        "subscriptions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("platform", sa.String(20), nullable=False),
        sa.Column("channel", sa.String(200), nullable=False),
        sa.Column("repo", sa.String(200), nullable=False),
        sa.Column("added_by", sa.String(200)),
        sa.Column("created_at", TZ, nullable=False),
        sa.UniqueConstraint("platform", "channel", "repo", name="uq_subscription"),
    )


def _locks() -> None:
    op.create_table(
        "locks",
        sa.Column("name", sa.String(300), primary_key=True),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("expires_at", TZ, nullable=False),
    )


def _runs() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("repo", sa.String(200), nullable=False),
        sa.Column("week", sa.String(10), nullable=False),
        sa.Column("trigger", sa.String(30), nullable=False),
        sa.Column("started_at", TZ, nullable=False),
        sa.Column("finished_at", TZ),
        sa.Column("outcome", sa.String(30), nullable=False),
        sa.Column("detail", sa.JSON, nullable=False),
    )


def _processed_events() -> None:
    op.create_table(
        "processed_events",
        sa.Column("event_id", sa.String(200), primary_key=True),
        sa.Column("platform", sa.String(20), nullable=False),
        sa.Column("received_at", TZ, nullable=False),
    )


def _apscheduler_jobs() -> None:
    # APScheduler 3's SQLAlchemyJobStore table, as it would create it itself
    op.create_table(
        "apscheduler_jobs",
        sa.Column("id", sa.Unicode(191), primary_key=True),
        sa.Column("next_run_time", sa.Float(25)),
        sa.Column("job_state", sa.LargeBinary, nullable=False),
    )
    op.create_index("ix_apscheduler_jobs_next_run_time", "apscheduler_jobs", ["next_run_time"])


TABLES: dict[str, Callable[[], None]] = {
    "pr_snapshots": _pr_snapshots,
    "http_cache": _http_cache,
    "digests": _digests,
    "deliveries": _deliveries,
    "subscriptions": _subscriptions,
    "locks": _locks,
    "runs": _runs,
    "processed_events": _processed_events,
    "apscheduler_jobs": _apscheduler_jobs,
}


def upgrade() -> None:
    present = set(sa.inspect(op.get_bind()).get_table_names())
    for name, create in TABLES.items():
        if name not in present:
            create()
    if "schema_version" in present:
        op.drop_table("schema_version")


def downgrade() -> None:
    for name in reversed(TABLES):
        op.drop_table(name)
