"""Sync state: a cursor per space, the indexed version per page, the scheduler's jobs.

`apscheduler_jobs` has the schema of APScheduler 3's `SQLAlchemyJobStore` (which would
otherwise create it on first start).

Revision ID: 0002_sync_state
Revises: 0001_conversations
"""

import sqlalchemy as sa
from alembic import op

revision = "0002_sync_state"
down_revision = "0001_conversations"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create `sync_spaces`, `sync_pages` and `apscheduler_jobs`."""
    op.create_table(
        "sync_spaces",
        sa.Column("space", sa.String(255), primary_key=True),
        sa.Column("cursor", sa.String(64), nullable=True),
        sa.Column("listed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_run_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_report", sa.Text(), nullable=True),
    )
    op.create_table(
        "sync_pages",
        sa.Column("page_id", sa.String(255), primary_key=True),
        sa.Column("space", sa.String(255), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=True),
        sa.Column("digest", sa.String(64), nullable=True),
        sa.Column("ancestors", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.String(64), nullable=False),
        sa.Column("restricted", sa.Boolean(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("synced_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_sync_pages_space", "sync_pages", ["space"])
    op.create_table(
        "apscheduler_jobs",
        sa.Column("id", sa.Unicode(191), primary_key=True),
        sa.Column("next_run_time", sa.Float(25), nullable=True),
        sa.Column("job_state", sa.LargeBinary(), nullable=False),
    )
    op.create_index("ix_apscheduler_jobs_next_run_time", "apscheduler_jobs", ["next_run_time"])


def downgrade() -> None:
    """Drop the sync tables."""
    op.drop_index("ix_apscheduler_jobs_next_run_time", table_name="apscheduler_jobs")
    op.drop_table("apscheduler_jobs")
    op.drop_index("ix_sync_pages_space", table_name="sync_pages")
    op.drop_table("sync_pages")
    op.drop_table("sync_spaces")
