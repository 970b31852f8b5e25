"""Where a question was asked, and what admins did.

- `conversations.channel_type`: the kind of Slack channel a conversation is in (Slack's own
  words: `channel` public, `group` private, `im` direct message, `mpim` group DM), so that
  reports never quote a private question outside the admin views. Existing conversations
  have none, which counts as private (fail closed).
- `uq_feedback_rating`: a user's rating of a turn is stored once however often it is
  delivered (a button clicked twice, a retried request); duplicates already stored are
  dropped first, the oldest kept.
- `audit_log`: one row per admin action (who, what, when, details), kept apart from the
  conversation tables so the retention of questions never deletes it.

Revision ID: 0009_audit_retention
Revises: 0008_permissions
"""

import sqlalchemy as sa
from alembic import op

revision = "0009_audit_retention"
down_revision = "0008_permissions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add `conversations.channel_type`, make ratings unique and create `audit_log`."""
    with op.batch_alter_table("conversations") as batch:
        batch.add_column(sa.Column("channel_type", sa.String(16), nullable=True))
    feedback = sa.table(
        "feedback", sa.column("id"), sa.column("turn_id"), sa.column("user"), sa.column("value")
    )
    first = (
        sa.select(sa.func.min(feedback.c.id))
        .group_by(feedback.c.turn_id, feedback.c.user, feedback.c.value)
        .scalar_subquery()
    )
    op.execute(feedback.delete().where(feedback.c.id.not_in(first)))
    with op.batch_alter_table("feedback") as batch:
        batch.create_unique_constraint("uq_feedback_rating", ["turn_id", "user", "value"])
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.String(255), nullable=False),
        sa.Column("action", sa.String(64), nullable=False),
        sa.Column("detail", sa.Text, nullable=False, server_default=""),
    )
    op.create_index("ix_audit_log_at", "audit_log", ["at"])


def downgrade() -> None:
    """Drop `audit_log`, the ratings' unique constraint and `conversations.channel_type`."""
    op.drop_index("ix_audit_log_at", table_name="audit_log")
    op.drop_table("audit_log")
    with op.batch_alter_table("feedback") as batch:
        batch.drop_constraint("uq_feedback_rating", type_="unique")
    with op.batch_alter_table("conversations") as batch:
        batch.drop_column("channel_type")
