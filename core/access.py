"""Who may read what: the read permissions of pages, the people who ask, and what a question
may search.

Confluence decides whether a person may view a page in two steps (Atlassian, "Page
restrictions" and "Space permissions"): the person needs the space's *view* permission
(granted to users, groups or anonymous access), and then must be named, alone or through a
group, by the page's own view restriction and by the view restriction of every ancestor,
since view restrictions are inherited. An empty restriction restricts nothing.

That is the model here, as principals (strings):
- `ANYONE`: anonymous access, which every asker has, known or not;
- `user:<id>`: a Confluence account (the `accountId` on Cloud, the `userKey` on Data Center);
- `group:<name>`: a Confluence group.

A page's access is its space's readers (`SpaceReaders`) and its restrictions
(`PageAccess.restrictions`, one principal set per restricted page of its chain). A reader
(`Reader`) has its own principals and its groups'. The filter of a question
(`Scope`) is the spaces and pages the asker may not read; it is computed once per distinct
access (pages with the same restrictions share it), so its cost grows with the number of
distinct restrictions, not of pages.

Fail closed: an asker nobody could resolve is `Reader.anonymous()`, whose only principal is
`ANYONE`: it reads what anonymous access reads and nothing else. Pages and spaces without a
recorded access (the files source, whose pages carry no permissions, and pages indexed
before permissions were recorded, which then were all unrestricted: the sync skipped
restricted pages) are readable by anyone; the sync records a page's access before its
evidences are indexed, so no restricted page is ever indexed without one.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

ANYONE = "*"
"""The principal of anonymous access: every asker has it."""


def user(account: str) -> str:
    """The principal of a Confluence account."""
    return f"user:{account}"


def group(name: str) -> str:
    """The principal of a Confluence group (group names are case-insensitive in Confluence)."""
    return f"group:{name.lower()}"


@dataclass(frozen=True)
class PageAccess:
    """The read restrictions that apply to a page, its own and its ancestors': one principal
    set per restricted page of the chain, each of which must name the reader. Empty: the
    page is as readable as its space."""

    restrictions: tuple[frozenset[str], ...] = ()

    @classmethod
    def of(cls, chain: Iterable[Collection[str]]) -> PageAccess:
        """The access of a page from the principal sets of its chain (empty ones dropped,
        duplicates merged, in a canonical order so equal accesses compare equal)."""
        sets = {frozenset(s) for s in chain if s}
        return cls(tuple(sorted(sets, key=sorted)))

    def readable_by(self, principals: Collection[str]) -> bool:
        """Whether a reader with these principals passes every restriction."""
        return all(not r.isdisjoint(principals) for r in self.restrictions)

    def to_json(self) -> list[list[str]]:
        return [sorted(r) for r in self.restrictions]

    @classmethod
    def from_json(cls, value: Sequence[Sequence[str]]) -> PageAccess:
        return cls.of(value)


@dataclass(frozen=True)
class Reader:
    """Someone who asks: a Confluence account when resolved (`account`), with a `label`
    for the trace (an e-mail, a Slack user id), or nobody known (`anonymous()`)."""

    account: str | None = None
    label: str = ""

    @classmethod
    def anonymous(cls, label: str = "") -> Reader:
        """An asker who could not be resolved to an account: reads public pages only."""
        return cls(None, label)

    @property
    def known(self) -> bool:
        return self.account is not None

    def to_json(self) -> dict:
        return {"account": self.account, "label": self.label}

    @classmethod
    def from_json(cls, value: Mapping) -> Reader:
        account = value.get("account")
        return cls(str(account) if account else None, str(value.get("label") or ""))


@dataclass(frozen=True)
class Scope:
    """What a question may not search: `spaces` whose view permission the audience lacks,
    `pages` whose restrictions shut someone of it out."""

    spaces: frozenset[str] = frozenset()
    pages: frozenset[str] = frozenset()

    def allows(self, page_id: str, space: str) -> bool:
        return space not in self.spaces and page_id not in self.pages

    def searchable(self, spaces: Collection[str] | None, known: Collection[str]) -> set | None:
        """The spaces to search: those asked (`None`: every space, `known`) less the denied
        ones; `None` when nothing is denied and every space was asked."""
        if spaces is None and not self.spaces:
            return None
        return set(known if spaces is None else spaces) - self.spaces


@dataclass
class AccessTable:
    """A snapshot of recorded permissions, and the scopes computed from it.

    `spaces`: space key → the principals with view permission; `pages`: page id → its
    `PageAccess` (only pages with restrictions need be present); `members`: group principal
    → the user principals in it; `recorded`: every page with a recorded access."""

    spaces: dict[str, frozenset[str]] = field(default_factory=dict)
    pages: dict[str, PageAccess] = field(default_factory=dict)
    members: dict[str, frozenset[str]] = field(default_factory=dict)
    recorded: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self._classes: dict[PageAccess, list[str]] = {}
        for page_id, access in self.pages.items():
            if access.restrictions:
                self._classes.setdefault(access, []).append(page_id)
        self._groups: dict[str, set[str]] = {}
        for name, people in self.members.items():
            for person in people:
                self._groups.setdefault(person, set()).add(name)
        self._scopes: dict[frozenset[str], Scope] = {}

    def principals(self, reader: Reader) -> frozenset[str]:
        """The principals a reader has: `ANYONE`, and when known its account and groups."""
        if reader.account is None:
            return frozenset({ANYONE})
        me = user(reader.account)
        return frozenset({ANYONE, me, *self._groups.get(me, ())})

    def scope(self, readers: Sequence[Reader]) -> Scope:
        """What an audience may not search: the union of each reader's denials (a page
        reaches an answer for a channel only when every member may read it). An empty
        audience is one anonymous reader."""
        spaces: set[str] = set()
        pages: set[str] = set()
        for reader in readers or (Reader.anonymous(),):
            one = self._scope_of(self.principals(reader))
            spaces |= one.spaces
            pages |= one.pages
        return Scope(frozenset(spaces), frozenset(pages))

    def _scope_of(self, principals: frozenset[str]) -> Scope:
        found = self._scopes.get(principals)
        if found is None:
            spaces = frozenset(
                s for s, readers in self.spaces.items() if readers.isdisjoint(principals)
            )
            pages = frozenset(
                page_id
                for access, ids in self._classes.items()
                if not access.readable_by(principals)
                for page_id in ids
            )
            found = Scope(spaces, pages)
            if len(self._scopes) > 1024:  # askers come and go; keep the memory bounded
                self._scopes.clear()
            self._scopes[principals] = found
        return found

    def readable(self, reader: Reader, page_id: str, space: str) -> bool:
        """Whether one reader may read one page."""
        return self.scope([reader]).allows(page_id, space)


def readable_items(
    items: Iterable[Mapping], scope: Scope, space_of: Callable[[str], str | None]
) -> list[Mapping]:
    """The stored evidence entries (dicts with a `page_id`) of pages `scope` allows, for
    what shows stored traces to another audience than the asker (the gaps report, /admin);
    a page no longer indexed (`space_of` gives None) is left out."""
    out = []
    for item in items:
        page_id = str(item.get("page_id", ""))
        space = space_of(page_id)
        if space is not None and scope.allows(page_id, space):
            out.append(item)
    return out
