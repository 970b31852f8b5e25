"""The index fingerprint of each synced space (`connectors.state.SyncSpace.fingerprint`):
a space indexed with another index format, embedder or context options is re-indexed whole.

Revision ID: 0006_index_fingerprint
Revises: 0005_sync_leases
"""

import sqlalchemy as sa
from alembic import op

revision = "0006_index_fingerprint"
down_revision = "0005_sync_leases"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add `sync_spaces.fingerprint`; existing spaces have none, so their next run is full."""
    with op.batch_alter_table("sync_spaces") as batch:
        batch.add_column(sa.Column("fingerprint", sa.String(64), nullable=True))


def downgrade() -> None:
    """Drop `sync_spaces.fingerprint`."""
    with op.batch_alter_table("sync_spaces") as batch:
        batch.drop_column("fingerprint")
