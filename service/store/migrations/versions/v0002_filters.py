"""Each channel its own digest: a subscription carries a filter and a language, and deliveries
are kept per (repo, week, destination, filter), so one channel can get several cards a week.

Rows already there keep working: their filter is "" (the whole week) and their language NULL
(the channel's or the default). SQLite changes the unique constraints by copying the table
(batch mode); PostgreSQL alters them in place.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

FILTER_CHARS = 500


def _filter_column() -> sa.Column[str]:
    return sa.Column("filter", sa.String(FILTER_CHARS), nullable=False, server_default="")


def upgrade() -> None:
    with op.batch_alter_table("deliveries") as batch:
        batch.add_column(_filter_column())
        batch.drop_constraint("uq_delivery", type_="unique")
        batch.create_unique_constraint(
            "uq_delivery_target", ["repo", "week", "destination", "filter"]
        )
    with op.batch_alter_table("subscriptions") as batch:
        batch.add_column(_filter_column())
        batch.add_column(sa.Column("language", sa.String(5)))
        batch.drop_constraint("uq_subscription", type_="unique")
        batch.create_unique_constraint(
            "uq_subscription_filter", ["platform", "channel", "repo", "filter"]
        )


def downgrade() -> None:
    # the filtered rows have no place in the old schema (one per channel and repo)
    op.execute(sa.text("DELETE FROM deliveries WHERE filter <> ''"))
    op.execute(sa.text("DELETE FROM subscriptions WHERE filter <> ''"))
    with op.batch_alter_table("subscriptions") as batch:
        batch.drop_constraint("uq_subscription_filter", type_="unique")
        batch.create_unique_constraint("uq_subscription", ["platform", "channel", "repo"])
        batch.drop_column("language")
        batch.drop_column("filter")
    with op.batch_alter_table("deliveries") as batch:
        batch.drop_constraint("uq_delivery_target", type_="unique")
        batch.create_unique_constraint("uq_delivery", ["repo", "week", "destination"])
        batch.drop_column("filter")
