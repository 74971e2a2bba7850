"""The cache of the optional language model's answers (issue 11): one row per prompt data hash,
model, prompt version and language.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "model_answers",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("prompt_version", sa.String(40), nullable=False),
        sa.Column("language", sa.String(5), nullable=False),
        sa.Column("answer", sa.Text, nullable=False),
        sa.Column("prompt_tokens", sa.Integer, nullable=False),
        sa.Column("completion_tokens", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint(
            "content_hash", "model", "prompt_version", "language", name="uq_model_answer"
        ),
    )


def downgrade() -> None:
    op.drop_table("model_answers")
