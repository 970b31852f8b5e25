"""An index on `turns.created_at`, so the status page and the report of unanswered
questions (`confbot status`, `confbot gaps`) read a window of days without scanning every
turn.

Revision ID: 0005_turns_created_at
Revises: 0003_slack_events
"""

from alembic import op

revision = "0005_turns_created_at"
down_revision = "0003_slack_events"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create `ix_turns_created_at`."""
    op.create_index("ix_turns_created_at", "turns", ["created_at"])


def downgrade() -> None:
    """Drop `ix_turns_created_at`."""
    op.drop_index("ix_turns_created_at", table_name="turns")
