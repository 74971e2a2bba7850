"""A revision token on every stored digest, new on each save, so a process that keeps parsed
digests (the command engine's cache) can ask whether the one it holds is still the stored one
with a one-column read instead of reading and parsing the digest again.

Every row already stored gets no token (NULL: unknown, read again as before) until it is next
saved.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("digests") as batch:
        batch.add_column(sa.Column("revision", sa.String(32)))


def downgrade() -> None:
    with op.batch_alter_table("digests") as batch:
        batch.drop_column("revision")
