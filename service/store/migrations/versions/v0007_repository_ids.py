"""Repositories keyed by GitHub's id, so a transfer or rename keeps their history, with the old
names kept as aliases; and the keys the service makes for itself (the report-link key), shared
by every replica.

Every row already stored stays: `repositories` gains a nullable `github_id` (filled the next
time a week of the repository is collected).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("repositories") as batch:
        batch.add_column(sa.Column("github_id", sa.BigInteger))
        batch.create_unique_constraint("uq_repositories_github_id", ["github_id"])
    op.create_table(
        "repository_aliases",
        sa.Column("alias", sa.String(200), primary_key=True),
        sa.Column("github_id", sa.BigInteger, nullable=False),
        sa.Column("moved_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("announced_week", sa.String(10)),
    )
    op.create_index(
        "ix_repository_aliases_github_id", "repository_aliases", ["github_id"], unique=False
    )
    op.create_table(
        "service_keys",
        sa.Column("name", sa.String(100), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    # the aliases go: after a downgrade, history moved to a repository's new name stays there
    op.drop_table("service_keys")
    op.drop_index("ix_repository_aliases_github_id", table_name="repository_aliases")
    op.drop_table("repository_aliases")
    with op.batch_alter_table("repositories") as batch:
        batch.drop_constraint("uq_repositories_github_id", type_="unique")
        batch.drop_column("github_id")
