"""digests.inputs: the key of what a digest was built from, so that a rebuild with nothing new
serves the stored digest instead of analysing the week again (jobs.build_week). Digests stored
before have none and are built again on their next rebuild.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("digests") as batch:
        batch.add_column(sa.Column("inputs", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("digests") as batch:
        batch.drop_column("inputs")
