"""Periods instead of weeks: a digest, a delivery and a run are keyed by a period label
(`2026-W04`, `2026-01`, `2026-01-12..2026-01-25`) and say which kind of period it is.

The `week` columns keep their name and hold the period label, widened from 10 to 40
characters (a range label has 22); `period_kind` (`week`, `month`, `range`) is added to
`digests`, `deliveries` and `runs` with the server default `week`, so that every row already
stored becomes a week as it was. Start and end are not stored apart: the label and the
digest's timezone name them exactly (core/periods.py), and the digest's JSON carries them.
PR snapshots stay keyed by the ISO week each PR was merged in, whatever period is built.

The way back refuses while month or range rows exist (0007's code would read their labels as
weeks): `verl-week migrate --to 0007` names them; delete them or restore a backup first.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.errors import InputError

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

PERIOD_CHARS = 40
WEEK_CHARS = 10
KINDS = ("digests", "deliveries", "runs")


def upgrade() -> None:
    for name in KINDS:
        with op.batch_alter_table(name) as batch:
            batch.alter_column(
                "week", type_=sa.String(PERIOD_CHARS), existing_type=sa.String(WEEK_CHARS)
            )
            batch.add_column(
                sa.Column("period_kind", sa.String(10), nullable=False, server_default="week")
            )
    with op.batch_alter_table("repository_aliases") as batch:
        batch.alter_column(
            "announced_week", type_=sa.String(PERIOD_CHARS), existing_type=sa.String(WEEK_CHARS)
        )


def _refuse_periods() -> None:
    conn = op.get_bind()
    held = []
    for name in KINDS:
        count = conn.execute(
            sa.text(f"SELECT count(*) FROM {name} WHERE period_kind <> 'week'")  # noqa: S608 - fixed names
        ).scalar_one()
        if count:
            held.append(f"{name}: {count}")
    if held:
        raise InputError(
            "cannot go back below 0008: rows of months or date ranges are stored "
            f"({', '.join(held)}); delete them or restore a backup taken before 0008"
        )


def downgrade() -> None:
    _refuse_periods()
    with op.batch_alter_table("repository_aliases") as batch:
        batch.alter_column(
            "announced_week", type_=sa.String(WEEK_CHARS), existing_type=sa.String(PERIOD_CHARS)
        )
    for name in KINDS:
        with op.batch_alter_table(name) as batch:
            batch.drop_column("period_kind")
            batch.alter_column(
                "week", type_=sa.String(WEEK_CHARS), existing_type=sa.String(PERIOD_CHARS)
            )
