"""Who may read what (`core.access_store`): space view permissions, page restrictions, group
members, the accounts the sync saw, an admin's identity → account mappings, and a write
counter.

Revision ID: 0008_permissions
Revises: 0007_write_ownership
"""

import sqlalchemy as sa
from alembic import op

revision = "0008_permissions"
down_revision = "0007_write_ownership"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the `access_*` tables (empty: the next sync of each space fills them)."""
    op.create_table(
        "access_spaces",
        sa.Column("space", sa.String(255), primary_key=True),
        sa.Column("readers", sa.Text(), nullable=False),
        sa.Column("synced_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "access_pages",
        sa.Column("page_id", sa.String(255), primary_key=True),
        sa.Column("space", sa.String(255), nullable=False),
        sa.Column("restrictions", sa.Text(), nullable=False),
        sa.Column("synced_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_access_pages_space", "access_pages", ["space"])
    op.create_table(
        "access_members",
        sa.Column("group_name", sa.String(255), primary_key=True),
        sa.Column("member", sa.String(255), primary_key=True),
    )
    op.create_table(
        "access_accounts",
        sa.Column("account", sa.String(255), primary_key=True),
        sa.Column("email", sa.String(320), nullable=True),
        sa.Column("name", sa.Text(), nullable=False),
    )
    op.create_index("ix_access_accounts_email", "access_accounts", ["email"])
    op.create_table(
        "access_mappings",
        sa.Column("identity", sa.String(320), primary_key=True),
        sa.Column("account", sa.String(255), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "access_state",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("generation", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    """Drop the `access_*` tables."""
    op.drop_table("access_state")
    op.drop_table("access_mappings")
    op.drop_index("ix_access_accounts_email", "access_accounts")
    op.drop_table("access_accounts")
    op.drop_table("access_members")
    op.drop_index("ix_access_pages_space", "access_pages")
    op.drop_table("access_pages")
    op.drop_table("access_spaces")
