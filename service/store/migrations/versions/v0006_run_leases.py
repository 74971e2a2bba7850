"""Run leases (issue 19): a run row names the process running it and holds a lease that the
process renews while it works; a row still `running` past its lease was abandoned (kill -9,
power loss), so the week stays owed and is retried instead of looking busy forever.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("owner", sa.String(200), nullable=True))
        batch.add_column(sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("lease_expires_at")
        batch.drop_column("owner")
