"""Cadences of subscriptions: a channel subscribes by command to a scope's weekly or monthly
digest (`/verl-week subscribe verl-project monthly`). `subscriptions.cadence` (`weekly`,
`monthly`) is added with the server default `weekly`, so every row already stored stays the
weekly subscription it was; the unique constraint takes the cadence in, so one channel can
have a scope's weekly and monthly cards. The `repo` column keeps its name and holds the scope:
a repository, or a family of DIGEST_GROUPS (as it already could).

The way back refuses while monthly subscriptions exist (0010's code would post them weekly):
`verl-week migrate --to 0010` names them; unsubscribe them or restore a backup first.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.errors import InputError

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

CADENCE_CHARS = 10
BEFORE = ["platform", "channel", "repo", "filter"]


def upgrade() -> None:
    with op.batch_alter_table("subscriptions") as batch:
        batch.add_column(
            sa.Column("cadence", sa.String(CADENCE_CHARS), nullable=False, server_default="weekly")
        )
        batch.drop_constraint("uq_subscription_filter", type_="unique")
        batch.create_unique_constraint("uq_subscription_cadence", [*BEFORE, "cadence"])


def _refuse_cadences() -> None:
    count = (
        op.get_bind()
        .execute(sa.text("SELECT count(*) FROM subscriptions WHERE cadence <> 'weekly'"))
        .scalar_one()
    )
    if count:
        raise InputError(
            "cannot go back below 0011: subscriptions of another cadence than weekly are "
            f"stored (subscriptions: {count}); unsubscribe them or restore a backup taken "
            "before 0011"
        )


def downgrade() -> None:
    _refuse_cadences()
    with op.batch_alter_table("subscriptions") as batch:
        batch.drop_constraint("uq_subscription_cadence", type_="unique")
        batch.create_unique_constraint("uq_subscription_filter", BEFORE)
        batch.drop_column("cadence")
