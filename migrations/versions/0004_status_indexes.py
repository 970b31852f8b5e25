"""Indexes for operating confbot: `turns.created_at`, so the status page and the report of
unanswered questions (`confbot status`, `confbot gaps`) read a window of days without
scanning every turn; and two partial indexes of `sync_pages` by space, over the indexed
pages and over the failed ones, so a Prometheus scrape counts them per space from small
indexes (`bot.metrics.SyncStateCollector`).

Revision ID: 0004_status_indexes
Revises: 0003_slack_events
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_status_indexes"
down_revision = "0003_slack_events"
branch_labels = None
depends_on = None

INDEXED = sa.text("version IS NOT NULL")
FAILED = sa.text("error IS NOT NULL")


def upgrade() -> None:
    """Create `ix_turns_created_at`, `ix_sync_pages_indexed` and `ix_sync_pages_failed`."""
    op.create_index("ix_turns_created_at", "turns", ["created_at"])
    op.create_index(
        "ix_sync_pages_indexed",
        "sync_pages",
        ["space"],
        sqlite_where=INDEXED,
        postgresql_where=INDEXED,
    )
    op.create_index(
        "ix_sync_pages_failed",
        "sync_pages",
        ["space"],
        sqlite_where=FAILED,
        postgresql_where=FAILED,
    )


def downgrade() -> None:
    """Drop the three indexes."""
    op.drop_index("ix_sync_pages_failed", table_name="sync_pages")
    op.drop_index("ix_sync_pages_indexed", table_name="sync_pages")
    op.drop_index("ix_turns_created_at", table_name="turns")
