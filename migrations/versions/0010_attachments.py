"""Attachment sync state (connectors.attachments): one row per attachment of a synced page;
which page includes which (connectors.includes); pages queued by webhooks
(connectors.webhooks).

Revision ID: 0010_attachments
Revises: 0009_audit_retention
"""

import sqlalchemy as sa
from alembic import op

revision = "0010_attachments"
down_revision = "0009_audit_retention"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create `sync_attachments`, `sync_includes` and `sync_requests`."""
    op.create_table(
        "sync_attachments",
        sa.Column("attachment_id", sa.String(255), primary_key=True),
        sa.Column("page_id", sa.String(255), nullable=False),
        sa.Column("space", sa.String(255), nullable=False),
        sa.Column("title", sa.Text, nullable=False, server_default=""),
        sa.Column("page_title", sa.Text, nullable=False, server_default=""),
        sa.Column("version", sa.String(64), nullable=True),
        sa.Column("size", sa.Integer, nullable=False, server_default="0"),
        sa.Column("status", sa.String(16), nullable=False, server_default="indexed"),
        sa.Column("note", sa.Text, nullable=True),
        sa.Column("parts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("synced_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_sync_attachments_page_id", "sync_attachments", ["page_id"])
    op.create_index("ix_sync_attachments_space", "sync_attachments", ["space"])
    op.create_table(
        "sync_includes",
        sa.Column("page_id", sa.String(255), primary_key=True),
        sa.Column("included_id", sa.String(255), primary_key=True),
    )
    op.create_index("ix_sync_includes_included_id", "sync_includes", ["included_id"])
    op.create_table(
        "sync_requests",
        sa.Column("page_id", sa.String(255), primary_key=True),
        sa.Column("space", sa.String(255), nullable=False, server_default=""),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("serial", sa.Integer, nullable=False, server_default="0"),
    )


def downgrade() -> None:
    """Drop `sync_requests`, `sync_includes` and `sync_attachments`."""
    op.drop_table("sync_requests")
    op.drop_index("ix_sync_includes_included_id", "sync_includes")
    op.drop_table("sync_includes")
    op.drop_index("ix_sync_attachments_space", "sync_attachments")
    op.drop_index("ix_sync_attachments_page_id", "sync_attachments")
    op.drop_table("sync_attachments")
