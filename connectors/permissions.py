"""Who may read Confluence pages: space view permissions, read restrictions and group
members, read through the REST API, as principals of `core.access`.

Cloud and Data Center answer in different shapes:
- a user is `{"accountId", "publicName", "email"?}` on Cloud (the e-mail only when the
  user's profile shows it) and `{"username", "userKey", "displayName"}` on Data Center; its
  principal is `user:<accountId>` on Cloud and `user:<username>` on Data Center (the name
  an admin knows, and the one restrictions and group members both carry);
- read restrictions, the same on both: `GET rest/api/content/{id}/restriction/byOperation/read`
  → `{"operation": "read", "restrictions": {"user": {"results": [...]}, "group":
  {"results": [{"name": ...}]}}}` (and the same object under `restrictions.read` of a
  content object expanded with `restrictions.read.restrictions.user,...group`);
- space permissions: Cloud `GET rest/api/space/{key}?expand=permissions` → `permissions`,
  each `{"operation": {"operation": "read", "targetType": "space"}, "anonymousAccess",
  "subjects": {"user": {"results"}, "group": {"results"}}}`; Data Center (9.1 and later)
  `GET rest/api/space/{key}/permissions` → a list of `{"operation": {"operationKey": "read",
  "targetType": "space"}, "subject": {"type": "user", "userKey"} | {"type": "group",
  "name"} | {"type": "anonymous"}}`, users by key only (`GET rest/api/user?key=` names
  them, once per key and run);
- group members: Cloud `GET rest/api/group/member?name=&start=&limit=`, Data Center
  `GET rest/api/group/{name}/member?start=&limit=`, paged by `start` until a short page.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from core.access import ANYONE, group, user

log = logging.getLogger(__name__)

UNREADABLE = "unreadable"
"""The principal of a restriction entry without an id: nobody has it, so a restriction
naming only such entries still shuts everyone out (fail closed)."""

MEMBERS_LIMIT = 200
"""Group members asked for per request (the servers' usual maximum)."""


def user_id(person: dict[str, Any]) -> str | None:
    """The account id of a user object: `accountId` (Cloud), else `username` (Data Center),
    else `userKey`; None for an anonymous or unreadable entry."""
    for key in ("accountId", "username", "userKey"):
        value = person.get(key)
        if value:
            return str(value)
    return None


def restriction_principals(restrictions: dict[str, Any]) -> frozenset[str]:
    """The principals a `restrictions` object (`{"user": ..., "group": ...}`) names; empty
    when it restricts nothing. An entry without an id counts as `UNREADABLE`."""
    found: set[str] = set()
    for person in (restrictions.get("user") or {}).get("results") or ():
        account = user_id(person)
        found.add(user(account) if account else UNREADABLE)
    for entry in (restrictions.get("group") or {}).get("results") or ():
        found.add(group(str(entry["name"])) if entry.get("name") else UNREADABLE)
    return frozenset(found)


def content_restriction(content: dict[str, Any]) -> frozenset[str]:
    """The read restriction of a content object expanded with `restrictions.read...`."""
    read = (content.get("restrictions") or {}).get("read") or {}
    return restriction_principals(read.get("restrictions") or {})


def cloud_space_readers(space: dict[str, Any]) -> frozenset[str]:
    """The principals with view permission of a Cloud space (`expand=permissions`)."""
    found: set[str] = set()
    for permission in space.get("permissions") or ():
        operation = permission.get("operation") or {}
        if (operation.get("operation"), operation.get("targetType")) != ("read", "space"):
            continue
        if permission.get("anonymousAccess"):
            found.add(ANYONE)
        found |= restriction_principals(permission.get("subjects") or {})
    return frozenset(found)


def dc_space_readers(permissions: list[dict[str, Any]], name_of) -> frozenset[str]:
    """The principals with view permission of a Data Center space (`/permissions`);
    `name_of(user_key)` gives the username of a key."""
    found: set[str] = set()
    for permission in permissions or ():
        operation = permission.get("operation") or {}
        if (operation.get("operationKey"), operation.get("targetType")) != ("read", "space"):
            continue
        subject = permission.get("subject") or {}
        kind = subject.get("type")
        if kind == "anonymous":
            found.add(ANYONE)
        elif kind == "group" and subject.get("name"):
            found.add(group(str(subject["name"])))
        elif kind == "user":
            account = subject.get("username") or (
                name_of(str(subject["userKey"])) if subject.get("userKey") else None
            )
            if account:
                found.add(user(str(account)))
    return frozenset(found)


def accounts_of(people: Iterable[dict[str, Any]]) -> dict[str, tuple[str | None, str]]:
    """account → (e-mail or None, display name) of user objects (for `AccessStore`)."""
    out: dict[str, tuple[str | None, str]] = {}
    for person in people:
        account = user_id(person)
        if account:
            name = person.get("displayName") or person.get("publicName") or ""
            out[account] = (person.get("email") or None, str(name))
    return out


class ConfluencePermissions:
    """Reads permissions through a `connectors.confluence.ConfluenceClient`."""

    def __init__(self, client):
        self.client = client
        self._names: dict[str, str | None] = {}
        self.people: dict[str, tuple[str | None, str]] = {}
        """Accounts seen so far (restrictions, group members), for the accounts table."""

    def restriction(self, page_id: str) -> frozenset[str]:
        """A page's own read restriction (principals; empty: none)."""
        data = self.client.get_json(
            f"rest/api/content/{page_id}/restriction/byOperation/read",
            {"expand": "restrictions.user,restrictions.group"},
        )
        restrictions = (data or {}).get("restrictions") or {}
        self.people.update(accounts_of((restrictions.get("user") or {}).get("results") or ()))
        return restriction_principals(restrictions)

    def space_readers(self, space: str) -> frozenset[str]:
        """The principals with view permission of a space."""
        key = quote(space, safe="")
        if self.client.cloud:
            data = self.client.get_json(f"rest/api/space/{key}", {"expand": "permissions"})
            if data is None:
                raise LookupError(f"space {space}: not found (or not readable by the sync user)")
            for permission in data.get("permissions") or ():
                users = ((permission.get("subjects") or {}).get("user") or {}).get("results")
                self.people.update(accounts_of(users or ()))
            return cloud_space_readers(data)
        data = self.client.get_json(f"rest/api/space/{key}/permissions")
        if data is None:
            raise LookupError(f"space {space}: no permissions endpoint (Data Center 9.1+ has it)")
        return dc_space_readers(data, self._username)

    def members(self, name: str) -> frozenset[str]:
        """The user principals in a group (every page of the member list)."""
        found: set[str] = set()
        start = 0
        while True:
            if self.client.cloud:
                path = "rest/api/group/member"
                params = {"name": name, "start": start, "limit": MEMBERS_LIMIT}
            else:
                path = f"rest/api/group/{quote(name, safe='')}/member"
                params = {"start": start, "limit": MEMBERS_LIMIT}
            data = self.client.get_json(path, params)
            results = (data or {}).get("results") or []
            people = accounts_of(results)
            self.people.update(people)
            found |= {user(a) for a in people}
            if len(results) < int((data or {}).get("limit") or MEMBERS_LIMIT) or not results:
                return frozenset(found)
            start += len(results)

    def _username(self, user_key: str) -> str | None:
        if user_key not in self._names:
            data = self.client.get_json("rest/api/user", {"key": user_key})
            self._names[user_key] = (data or {}).get("username")
            if data:
                self.people.update(accounts_of([data]))
        return self._names[user_key]
