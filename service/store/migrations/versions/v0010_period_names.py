"""One name for the period: the `week` columns of `digests`, `deliveries` and `runs`, which have
held any period's label since 0008 (`2026-W04`, `2026-01`, `2026-01-12..2026-01-25`), are
renamed `period`, and `repository_aliases.announced_week` is renamed `announced_period`. Every
row stays as it was; the unique keys (`uq_digest`, `uq_delivery_target`) keep their names and
take the renamed column. `pr_snapshots.week` keeps its name: it is the ISO week each PR was
merged in, whatever period is built.

The way back renames them again; nothing is refused (the labels stay as they are).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

PERIOD_CHARS = 40
RENAMED = (
    ("digests", "week", "period"),
    ("deliveries", "week", "period"),
    ("runs", "week", "period"),
    ("repository_aliases", "announced_week", "announced_period"),
)


def _rename(table: str, old: str, new: str) -> None:
    nullable = table == "repository_aliases"
    with op.batch_alter_table(table) as batch:
        batch.alter_column(
            old,
            new_column_name=new,
            existing_type=sa.String(PERIOD_CHARS),
            existing_nullable=nullable,
        )


def upgrade() -> None:
    for table, old, new in RENAMED:
        _rename(table, old, new)


def downgrade() -> None:
    for table, old, new in RENAMED:
        _rename(table, new, old)
