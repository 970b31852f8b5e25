"""Slack state (bot.slack_state): event claims for exactly-once answers, and the answer
messages posted, mapped to their turns.

Revision ID: 0003_slack_events
Revises: 0002_sync_state
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_slack_events"
down_revision = "0002_sync_state"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create `slack_events` and `slack_answers`."""
    op.create_table(
        "slack_events",
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_slack_events_created_at", "slack_events", ["created_at"])
    op.create_table(
        "slack_answers",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("workspace", sa.String(255), nullable=False),
        sa.Column("channel", sa.String(255), nullable=False),
        sa.Column("message_ts", sa.String(64), nullable=False),
        sa.Column("thread_ts", sa.String(64), nullable=False),
        sa.Column(
            "turn_id",
            sa.Integer(),
            sa.ForeignKey("turns.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("workspace", "channel", "message_ts", name="uq_slack_answers_message"),
    )
    op.create_index("ix_slack_answers_turn_id", "slack_answers", ["turn_id"])


def downgrade() -> None:
    """Drop the Slack tables."""
    op.drop_index("ix_slack_answers_turn_id", table_name="slack_answers")
    op.drop_table("slack_answers")
    op.drop_index("ix_slack_events_created_at", table_name="slack_events")
    op.drop_table("slack_events")
