"""Recorded permissions in the SQL database, and who is who.

Tables (migration `0008_permissions`):
- `access_spaces`: each synced space's view permission (principals, `core.access`);
- `access_pages`: each synced page's restrictions (its own and its ancestors');
- `access_members`: the members of every group a permission names, as last synced;
- `access_accounts`: Confluence accounts the sync saw, with their e-mail when Confluence
  shows it (Cloud shows it unless the user hides it; Data Center's REST API does not);
- `access_mappings`: an admin's table, identity (an e-mail address or a Slack user id) →
  Confluence account, consulted before the accounts (`confbot access map`);
- `access_state`: one row whose `generation` grows with every write, so a process knows
  when its snapshot (`AccessStore.table`) is out of date with one cheap read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime

from sqlalchemy import DateTime, Integer, String, Text, delete, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from core.access import AccessTable, PageAccess
from core.db import Base, session_factory
from core.refresh import Refreshed


def _now() -> datetime:
    return datetime.now(UTC)


class AccessSpace(Base):
    """A space's view permission: the principals granted it (JSON list)."""

    __tablename__ = "access_spaces"

    space: Mapped[str] = mapped_column(String(255), primary_key=True)
    readers: Mapped[str] = mapped_column(Text, default="[]")
    synced_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)


class AccessPage(Base):
    """A page's read restrictions, its own and inherited (JSON list of principal lists)."""

    __tablename__ = "access_pages"

    page_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    space: Mapped[str] = mapped_column(String(255), index=True)
    restrictions: Mapped[str] = mapped_column(Text, default="[]")
    synced_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)


class AccessMember(Base):
    """One member (a user principal) of one group (a group principal)."""

    __tablename__ = "access_members"

    group_name: Mapped[str] = mapped_column(String(255), primary_key=True)
    member: Mapped[str] = mapped_column(String(255), primary_key=True)


class AccessAccount(Base):
    """A Confluence account the sync saw, with its e-mail (lower-cased) when shown."""

    __tablename__ = "access_accounts"

    account: Mapped[str] = mapped_column(String(255), primary_key=True)
    email: Mapped[str | None] = mapped_column(String(320), index=True, default=None)
    name: Mapped[str] = mapped_column(Text, default="")


class AccessMapping(Base):
    """An admin's mapping: an identity (e-mail or Slack user id) → a Confluence account."""

    __tablename__ = "access_mappings"

    identity: Mapped[str] = mapped_column(String(320), primary_key=True)
    account: Mapped[str] = mapped_column(String(255))
    updated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)


class AccessState(Base):
    """The one row counting writes to the tables above."""

    __tablename__ = "access_state"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    generation: Mapped[int] = mapped_column(Integer, default=0)


def identity_key(identity: str) -> str:
    """How an identity is stored: e-mail addresses lower-cased, Slack ids as they are."""
    identity = identity.strip()
    return identity.lower() if "@" in identity else identity


class AccessStore:
    """Reads and writes the permission tables; `table()` is a snapshot kept per process and
    read again only after a write (anywhere: the generation is in the database)."""

    def __init__(self, url: str):
        self.sessions = session_factory(url)
        self._snapshot: Refreshed[int, AccessTable] = Refreshed(lambda old, new: old == new)

    # ------------------------------------------------------------------ writing
    def _bump(self, db: Session) -> None:
        state = db.get(AccessState, 1)
        if state is None:
            db.add(AccessState(id=1, generation=1))
        else:
            state.generation += 1

    def save_space(self, space: str, readers: Iterable[str]) -> bool:
        """Record a space's view permission; whether it changed."""
        value = json.dumps(sorted(set(readers)))
        with self.sessions() as db:
            row = db.get(AccessSpace, space)
            if row is not None and row.readers == value:
                row.synced_at = _now()
                db.commit()
                return False
            if row is None:
                db.add(AccessSpace(space=space, readers=value, synced_at=_now()))
            else:
                row.readers, row.synced_at = value, _now()
            self._bump(db)
            db.commit()
            return True

    def save_pages(self, space: str, accesses: Mapping[str, PageAccess]) -> int:
        """Record the access of pages of a space; how many changed."""
        if not accesses:
            return 0
        changed = 0
        with self.sessions() as db:
            ids = list(accesses)
            rows: dict[str, AccessPage] = {}
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                rows.update(
                    (r.page_id, r)
                    for r in db.scalars(select(AccessPage).where(AccessPage.page_id.in_(chunk)))
                )
            for page_id, access in accesses.items():
                value = json.dumps(access.to_json())
                row = rows.get(page_id)
                if row is None:
                    db.add(
                        AccessPage(
                            page_id=page_id, space=space, restrictions=value, synced_at=_now()
                        )
                    )
                elif row.restrictions != value or row.space != space:
                    row.restrictions, row.space, row.synced_at = value, space, _now()
                else:
                    continue
                changed += 1
            if changed:
                self._bump(db)
            db.commit()
        return changed

    def forget_pages(self, page_ids: Iterable[str]) -> None:
        """Drop the access of pages that are gone."""
        ids = list(page_ids)
        if not ids:
            return
        with self.sessions() as db:
            for start in range(0, len(ids), 500):
                db.execute(
                    delete(AccessPage).where(AccessPage.page_id.in_(ids[start : start + 500]))
                )
            self._bump(db)
            db.commit()

    def page_ids(self, space: str) -> set[str]:
        """The pages of a space with a recorded access."""
        with self.sessions() as db:
            return set(db.scalars(select(AccessPage.page_id).where(AccessPage.space == space)))

    def save_members(self, group_name: str, members: Iterable[str]) -> bool:
        """Replace a group's members; whether they changed."""
        wanted = set(members)
        with self.sessions() as db:
            rows = list(
                db.scalars(select(AccessMember).where(AccessMember.group_name == group_name))
            )
            have = {r.member for r in rows}
            if have == wanted:
                return False
            for row in rows:
                if row.member not in wanted:
                    db.delete(row)
            for member in wanted - have:
                db.add(AccessMember(group_name=group_name, member=member))
            self._bump(db)
            db.commit()
            return True

    def save_accounts(self, accounts: Mapping[str, tuple[str | None, str]]) -> None:
        """Record accounts seen: account → (e-mail or None, display name). An e-mail once
        seen is kept when a later answer hides it."""
        if not accounts:
            return
        with self.sessions() as db:
            for account, (email, name) in accounts.items():
                row = db.get(AccessAccount, account)
                email = email.lower() if email else None
                if row is None:
                    db.add(AccessAccount(account=account, email=email, name=name))
                else:
                    row.email = email or row.email
                    row.name = name or row.name
            db.commit()

    def map(self, identity: str, account: str) -> None:
        """Map an identity (e-mail or Slack user id) to a Confluence account (admin)."""
        key = identity_key(identity)
        if not key or not account.strip():
            raise ValueError("both an identity (e-mail or Slack user id) and an account are needed")
        with self.sessions() as db:
            row = db.get(AccessMapping, key)
            if row is None:
                db.add(AccessMapping(identity=key, account=account.strip(), updated_at=_now()))
            else:
                row.account, row.updated_at = account.strip(), _now()
            db.commit()

    def unmap(self, identity: str) -> bool:
        """Remove an admin mapping; whether there was one."""
        with self.sessions() as db:
            row = db.get(AccessMapping, identity_key(identity))
            if row is None:
                return False
            db.delete(row)
            db.commit()
            return True

    def mappings(self) -> dict[str, str]:
        """The admin mappings, identity → account."""
        with self.sessions() as db:
            return {r.identity: r.account for r in db.scalars(select(AccessMapping))}

    # ------------------------------------------------------------------ reading
    def account_for(self, *identities: str) -> str | None:
        """The Confluence account of the first identity that resolves: an admin mapping of
        it, else (for an e-mail) the account the sync saw with that e-mail."""
        keys = [identity_key(i) for i in identities if i and i.strip()]
        with self.sessions() as db:
            for key in keys:
                row = db.get(AccessMapping, key)
                if row is not None:
                    return row.account
            for key in keys:
                if "@" in key:
                    found = db.scalars(
                        select(AccessAccount.account).where(AccessAccount.email == key).limit(2)
                    ).all()
                    if len(found) == 1:  # an e-mail two accounts share identifies neither
                        return found[0]
        return None

    def generation(self) -> int:
        with self.sessions() as db:
            state = db.get(AccessState, 1)
            return state.generation if state is not None else 0

    def table(self) -> AccessTable:
        """The recorded permissions as an `AccessTable`, read again when they changed, by
        one thread: the others go on with the previous snapshot meanwhile (a load takes
        about a second at 100,000 pages: docs/permissions.md)."""
        return self._snapshot.get(self.generation(), lambda _previous: self._load())

    def _load(self) -> AccessTable:
        with self.sessions() as db:
            spaces = {
                r.space: frozenset(json.loads(r.readers)) for r in db.scalars(select(AccessSpace))
            }
            pages, recorded = {}, set()
            for page_id, value in db.execute(select(AccessPage.page_id, AccessPage.restrictions)):
                recorded.add(page_id)
                if value != "[]":
                    pages[page_id] = PageAccess.from_json(json.loads(value))
            members: dict[str, set[str]] = {}
            for name, member in db.execute(select(AccessMember.group_name, AccessMember.member)):
                members.setdefault(name, set()).add(member)
        members_of = {k: frozenset(v) for k, v in members.items()}
        return AccessTable(spaces, pages, members_of, frozenset(recorded))
