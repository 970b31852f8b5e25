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


class DeniedPages(Collection[str]):
    """The restricted pages an audience may not read, as a set without building one: a
    page is in it when it has a restriction (`of`: page id → restriction index) that is not
    among the `readable` ones. A lookup costs two hash probes however many pages are denied
    (9,380 of 100,000 for a typical user in `benchmarks/permission_filter.py`)."""

    def __init__(self, of: Mapping[str, int], readable: frozenset[int], size: int):
        self._of = of
        self._readable = readable
        self._size = size

    def __contains__(self, page_id: object) -> bool:
        found = self._of.get(page_id)  # type: ignore[call-overload]
        return found is not None and found not in self._readable

    def __iter__(self):
        return (p for p, n in self._of.items() if n not in self._readable)

    def __len__(self) -> int:
        return self._size

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Collection):
            return len(other) == self._size and all(p in self for p in other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"DeniedPages({sorted(self)!r})"


@dataclass(frozen=True)
class Scope:
    """What a question may not search: `spaces` whose view permission the audience lacks,
    `pages` whose restrictions shut someone of it out (a set, or `DeniedPages`)."""

    spaces: frozenset[str] = frozenset()
    pages: Collection[str] = frozenset()

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
        grouped: dict[PageAccess, list[str]] = {}
        for page_id, access in self.pages.items():
            if access.restrictions:
                grouped.setdefault(access, []).append(page_id)
        self._classes = list(grouped.items())
        """The distinct restrictions, each with its pages."""
        self._class_of = {p: n for n, (_, ids) in enumerate(self._classes) for p in ids}
        self._naming: dict[str, set[int]] = {}
        """principal → the restrictions that name it."""
        for n, (access, _) in enumerate(self._classes):
            for principal in {p for r in access.restrictions for p in r}:
                self._naming.setdefault(principal, set()).add(n)
        self._groups: dict[str, set[str]] = {}
        for name, people in self.members.items():
            for person in people:
                self._groups.setdefault(person, set()).add(name)
        self._allowances: dict[frozenset[str], tuple[frozenset[str], frozenset[int]]] = {}
        self._scopes: dict[tuple[frozenset[str], frozenset[int]], Scope] = {}

    def principals(self, reader: Reader) -> frozenset[str]:
        """The principals a reader has: `ANYONE`, and when known its account and groups."""
        if reader.account is None:
            return frozenset({ANYONE})
        me = user(reader.account)
        return frozenset({ANYONE, me, *self._groups.get(me, ())})

    def scope(self, readers: Sequence[Reader]) -> Scope:
        """What an audience may not search: the union of each reader's denials (a page
        reaches an answer for a channel only when every member may read it). An empty
        audience is one anonymous reader. Each reader's readable restrictions are worked out
        from the few that name one of its principals and kept per set of principals; an
        audience reads the restrictions all of its readers read (an intersection of small
        sets, so a channel of 50 costs little more than one asker)."""
        spaces: set[str] = set()
        readable: frozenset[int] | None = None
        for reader in readers or (Reader.anonymous(),):
            denied_spaces, mine = self._allowed(self.principals(reader))
            spaces |= denied_spaces
            readable = mine if readable is None else readable & mine
        key = (frozenset(spaces), readable or frozenset())
        found = self._scopes.get(key)
        if found is None:
            size = len(self._class_of) - sum(len(self._classes[c][1]) for c in key[1])
            found = Scope(key[0], DeniedPages(self._class_of, key[1], size))
            _bounded(self._scopes)[key] = found
        return found

    def _allowed(self, principals: frozenset[str]) -> tuple[frozenset[str], frozenset[int]]:
        """The spaces that shut these principals out, and the restrictions (indices) that
        let them in: only those naming one of the principals can."""
        found = self._allowances.get(principals)
        if found is None:
            spaces = frozenset(
                s for s, readers in self.spaces.items() if readers.isdisjoint(principals)
            )
            named = {n for p in principals for n in self._naming.get(p, ())}
            readable = frozenset(n for n in named if self._classes[n][0].readable_by(principals))
            found = (spaces, readable)
            _bounded(self._allowances)[principals] = found
        return found

    def readable(self, reader: Reader, page_id: str, space: str) -> bool:
        """Whether one reader may read one page."""
        return self.scope([reader]).allows(page_id, space)


def _bounded(cache: dict) -> dict:
    """A cache emptied when it grows past 4,096 entries (askers come and go)."""
    if len(cache) > 4096:
        cache.clear()
    return cache


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
