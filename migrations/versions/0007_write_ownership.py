"""Lease generations (connectors.lease): every acquisition of a space's lease gets a larger
number, the fencing token that index writes and their pending marks carry.

Revision ID: 0007_write_ownership
Revises: 0006_index_fingerprint
"""

import sqlalchemy as sa
from alembic import op

revision = "0007_write_ownership"
down_revision = "0006_index_fingerprint"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add `sync_leases.generation` (0 for the leases held now)."""
    with op.batch_alter_table("sync_leases") as batch:
        batch.add_column(
            sa.Column("generation", sa.BigInteger(), nullable=False, server_default="0")
        )


def downgrade() -> None:
    """Drop `sync_leases.generation`."""
    with op.batch_alter_table("sync_leases") as batch:
        batch.drop_column("generation")
