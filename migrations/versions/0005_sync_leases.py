"""Sync leases (connectors.lease): which worker syncs which space, until when.

Revision ID: 0005_sync_leases
Revises: 0004_status_indexes
"""

import sqlalchemy as sa
from alembic import op

revision = "0005_sync_leases"
down_revision = "0004_status_indexes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create `sync_leases`."""
    op.create_table(
        "sync_leases",
        sa.Column("space", sa.String(255), primary_key=True),
        sa.Column("holder", sa.String(255), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    """Drop `sync_leases`."""
    op.drop_table("sync_leases")
