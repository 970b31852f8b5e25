"""A fake Confluence: a real HTTP server on 127.0.0.1 (port 0) speaking the REST subset
confbot's connector uses, for tests and benchmarks.

- `GET {context}/rest/api/content/search?cql=...&expand=...&limit=...`: CQL with
  `space = "X"`, `type = page`, `lastmodified >= "yyyy-MM-dd HH:mm"` (read in the API
  user's time zone, `user_tz`) and `order by lastmodified|created asc|desc`. Cloud pages
  with an opaque `cursor` behind `_links.next`; Server with `start`/`limit` (no next link,
  like older Server versions). `limit` is capped like the real servers (fewer with bodies).
- `GET {context}/rest/api/search?cql=...&limit=...`: the same CQL as search hits with
  `totalSize` (the count `confbot sync` asks for its progress total).
- `GET {context}/rest/api/content/{id}?expand=...`: one page, only the asked expansions.
- `GET {context}/rest/api/content/{id}/restriction/byOperation/read`.
- Permissions: Cloud `GET {context}/rest/api/space/{key}?expand=permissions` and
  `GET {context}/rest/api/group/member?name=`; Data Center
  `GET {context}/rest/api/space/{key}/permissions`, `GET {context}/rest/api/group/{name}/member`
  and `GET {context}/rest/api/user?key=`. People (`add_person`) are Cloud accounts
  (`accountId` `acc-<name>`, `email` unless hidden) or Data Center users (`username` the
  name, `userKey` `key-<name>`, no e-mail), as the real servers show them; a space without
  `set_space_readers` grants anonymous access.
- `GET {context}/rest/api/user/current` (the signed-in user) and
  `GET {context}/rest/api/space/{key}` (404 for a space the user cannot read).
- Attachments: `GET {context}/rest/api/content/{id}/child/attachment?expand=version`
  (v1, paged by `start`/`limit`), Cloud's `GET {context}/api/v2/pages/{id}/attachments`
  (cursor in `_links.next`), CQL `type = attachment` with `expand=container`, and the file at
  `GET {context}/download/attachments/{page id}/{file name}` (the `download` link).
- Comments: `GET {context}/rest/api/content/{id}/child/comment?depth=all` (v1, with
  `extensions.location`, `inlineProperties`, `resolution`, `ancestors`), Cloud's
  `GET {context}/api/v2/{pages|blogposts}/{id}/footer-comments`, `.../inline-comments` and
  `GET {context}/api/v2/footer-comments/{id}/children`, and CQL `type = comment`.
- CQL `title = "T"` (include lookups), `label = "x"`, `label in (...)`, `label not in
  (...)`, `id`/`ancestor` `= N` or `in (...)`, and parenthesized `or` groups (scopes).
- Archived pages (`FakePage(status="archived")`) are returned by searches and reads with
  their status, the worst case a client must handle.
- Blog posts (`FakePage(kind="blogpost")`): CQL `type in (page, blogpost)`, and on Cloud
  `GET {context}/api/v2/blogposts/{id}` (`api/v2/pages/{id}` answers 404 for them).
- Cloud only, REST v2: `GET {context}/api/v2/pages/{id}?body-format=storage` (with
  `include-labels=true`), `GET {context}/api/v2/pages/{id}/ancestors` (root first),
  `GET {context}/api/v2/spaces/{id}` and `GET {context}/api/v2/spaces?keys=KEY`. Data Center
  answers 404 to every v2 path, as a real Data Center does.

Auth as configured (Cloud: basic email + API token; Server: bearer token), 401 otherwise;
`hidden_spaces` are spaces the user may not read (absent from every answer).
Pages come from a folder of ConfQuestions documents (`pages_from_folder`) or are generated
(`generated_pages`); tests edit, move, delete and restrict them while it runs, and inject
429s with Retry-After, 500s and slow responses. Every request is recorded.
"""

from __future__ import annotations

import base64
import json
import random
import re
import threading
import time
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

from tests.fakes.local_server import LocalServer

BODY_LIMIT = 50
"""Most results per search response when bodies are expanded (Cloud's cap)."""
LIMIT = 200
"""Most results per search response otherwise."""


@dataclass
class FakeAttachment:
    """A file attached to a page; a new upload of the same name is a new version."""

    id: str
    page_id: str
    space: str
    title: str
    data: bytes
    media_type: str = "application/octet-stream"
    version: int = 1
    created: datetime = datetime(2024, 1, 1, tzinfo=UTC)
    modified: datetime = datetime(2024, 1, 1, tzinfo=UTC)
    kind: str = "attachment"


@dataclass
class FakeComment:
    """A footer or inline comment on a page; `parent` is the comment it answers."""

    id: str
    page_id: str
    space: str
    body: str
    author: str = "Ada Example"
    inline: bool = False
    selection: str = ""
    resolved: bool = False
    parent: str = ""
    created: datetime = datetime(2024, 1, 1, tzinfo=UTC)
    modified: datetime = datetime(2024, 1, 1, tzinfo=UTC)
    kind: str = "comment"


@dataclass
class FakePage:
    """A page as the fake server holds it."""

    id: str
    space: str
    title: str
    body: str
    version: int = 1
    created: datetime = datetime(2024, 1, 1, tzinfo=UTC)
    modified: datetime = datetime(2024, 1, 1, tzinfo=UTC)
    author: str = "Ada Example"
    ancestors: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    read_users: list[str] = field(default_factory=list)
    read_groups: list[str] = field(default_factory=list)
    attachments: list[FakeAttachment] = field(default_factory=list)
    comments: list[FakeComment] = field(default_factory=list)
    kind: str = "page"
    """page or blogpost."""
    status: str = "current"
    """current or archived (archived pages still answer searches and reads, marked so)."""


@dataclass
class FakePerson:
    """A user: their name, e-mail (None: hidden), and groups."""

    name: str
    email: str | None = None
    groups: set[str] = field(default_factory=set)


@dataclass
class FakeSpaceReaders:
    """Who has a space's view permission."""

    users: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    anonymous: bool = False


@dataclass(frozen=True)
class Recorded:
    """One request the server saw."""

    method: str
    path: str
    params: dict[str, str]
    headers: dict[str, str]
    status: int


def pages_from_folder(folder: Path) -> list[FakePage]:
    """Pages from ConfQuestions documents (`documents/*.json` or the folder itself): id from
    the url's `/pages/<id>/`, modified one hour apart in file-name order."""
    documents = folder / "documents" if (folder / "documents").is_dir() else folder
    pages = []
    start = datetime(2023, 1, 1, tzinfo=UTC)
    for i, path in enumerate(sorted(documents.glob("*.json"))):
        record = json.loads(path.read_text(encoding="utf-8"))
        match = re.search(r"/pages/(\d+)", record.get("url", ""))
        when = start + timedelta(hours=i)
        pages.append(
            FakePage(
                id=match.group(1) if match else record["id"],
                space=record["space"],
                title=record["title"],
                body=record["content"],
                created=when,
                modified=when,
            )
        )
    return pages


_WORDS = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november"
    " oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu build"
    " deploy kernel driver network storage cluster backup restore policy review release"
    " sprint ticket budget invoice vendor contract meeting agenda summary incident"
).split()


def generated_page(number: int, space: str, rng: random.Random) -> FakePage:
    """One generated page, modified an hour after the one before: a heading, a paragraph
    and a list (two evidences)."""
    code = f"GEN-{number:05d}"

    def sentence(words: int) -> str:
        return " ".join(rng.choice(_WORDS) for _ in range(words)).capitalize() + "."

    items = "".join(f"<li>{sentence(4)}</li>" for _ in range(3))
    body = f"<h2>Overview of {code}</h2><p>{code} {sentence(10)} {sentence(8)}</p><ul>{items}</ul>"
    when = datetime(2023, 1, 1, tzinfo=UTC) + timedelta(hours=number)
    return FakePage(
        id=str(100000 + number),
        space=space,
        title=f"Page {code} {rng.choice(_WORDS)} {rng.choice(_WORDS)}",
        body=body,
        created=when,
        modified=when,
        labels=[rng.choice(_WORDS)],
    )


def generated_pages(count: int, space: str = "GEN", seed: int = 7) -> list[FakePage]:
    """`count` generated pages in a tree: every tenth page is the parent of the next nine."""
    rng = random.Random(seed)
    pages = [generated_page(n, space, rng) for n in range(count)]
    for n, page in enumerate(pages):
        if n % 10:
            page.ancestors = [pages[n - n % 10].id]
    return pages


_SPACE = re.compile(r'^space\s*=\s*"?([^"]+?)"?$', re.I)
_TYPE = re.compile(r'^type\s*=\s*"?(\w+)"?$', re.I)
_TITLE = re.compile(r'^title\s*=\s*"((?:[^"\\]|\\.)*)"$', re.I)
_TYPES = re.compile(r"^type\s+in\s*\(([\w\s,\"]+)\)$", re.I)
_MODIFIED = re.compile(r'^lastmodified\s*(>=|>)\s*"(\d{4}-\d{2}-\d{2} \d{2}:\d{2})"$', re.I)
_ORDER = re.compile(r"^(.*?)\s+order\s+by\s+(lastmodified|created)(?:\s+(asc|desc))?$", re.I)


_LABELS = re.compile(r"^label\s+(not\s+in|in)\s*\(([^)]*)\)$", re.I)
_LABEL = re.compile(r'^label\s*=\s*"([^"]*)"$', re.I)
_IDS = re.compile(r"^(id|ancestor)\s+in\s*\(([\d\s,]*)\)$", re.I)
_ID = re.compile(r"^(id|ancestor)\s*=\s*(\d+)$", re.I)


def _split_outside(text: str, word: str) -> list[str]:
    """`text` split at ` word ` (and/or) outside parentheses and quotes."""
    parts, depth, quoted, start = [], 0, False, 0
    pattern = re.compile(rf"\s+{word}\s+", re.I)
    i = 0
    while i < len(text):
        char = text[i]
        if char == '"' and (i == 0 or text[i - 1] != "\\"):
            quoted = not quoted
        elif not quoted and char == "(":
            depth += 1
        elif not quoted and char == ")":
            depth -= 1
        elif not quoted and depth == 0 and (m := pattern.match(text, i)):
            parts.append(text[start:i])
            start = i = m.end()
            continue
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def _names(text: str) -> set[str]:
    return {n.strip().strip('"') for n in text.split(",") if n.strip()}


def _clause_test(clause: str, user_tz: tzinfo):
    """A test of one CQL clause (a parenthesized group of `or`/`and` clauses included)."""
    if clause.startswith("(") and clause.endswith(")"):
        alternatives = [
            [_clause_test(c, user_tz) for c in _split_outside(alt, "and")]
            for alt in _split_outside(clause[1:-1].strip(), "or")
        ]
        return lambda p: any(all(t(p) for t in alt) for alt in alternatives)
    if m := _SPACE.match(clause):
        return lambda p, key=m.group(1): p.space == key
    if m := _TYPE.match(clause):
        return lambda p, kind=m.group(1): kind.lower() == p.kind
    if m := _TITLE.match(clause):
        title = re.sub(r"\\(.)", r"\1", m.group(1))
        return lambda p, title=title: getattr(p, "title", None) == title
    if m := _TYPES.match(clause):
        kinds = {k.strip(' "').lower() for k in m.group(1).split(",")}
        return lambda p, kinds=kinds: p.kind in kinds
    if m := _LABEL.match(clause):
        return lambda p, name=m.group(1): name in getattr(p, "labels", ())
    if m := _LABELS.match(clause):
        names, negate = _names(m.group(2)), m.group(1).lower() != "in"
        return lambda p: negate != bool(names & set(getattr(p, "labels", ())))
    if (m := _IDS.match(clause)) or (m := _ID.match(clause)):
        ids = _names(m.group(2))
        if m.group(1).lower() == "id":
            return lambda p: p.id in ids
        return lambda p: bool(ids & set(getattr(p, "ancestors", ())))
    if m := _MODIFIED.match(clause):
        local = datetime.strptime(m.group(2), "%Y-%m-%d %H:%M").replace(tzinfo=user_tz)
        if m.group(1) == ">=":
            return lambda p, t=local: p.modified >= t
        return lambda p, t=local: p.modified > t
    raise ValueError(f"unsupported CQL clause: {clause!r}")


def parse_cql(cql: str, user_tz: tzinfo):
    """(filter, sort key, descending) for the CQL subset; ValueError for anything else."""
    match = _ORDER.match(cql.strip())
    where, order, direction = match.groups() if match else (cql, "lastmodified", "asc")
    tests = [_clause_test(c, user_tz) for c in _split_outside(where.strip(), "and")]
    attribute = "modified" if order.lower() == "lastmodified" else "created"
    return (
        lambda p: all(t(p) for t in tests),
        lambda p: (getattr(p, attribute), p.id),
        (direction or "asc").lower() == "desc",
    )


def space_id(key: str) -> str:
    """The numeric v2 id of a space key (stable across runs)."""
    return str(zlib.crc32(key.encode("utf-8")))


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class FakeConfluence(LocalServer):
    """The fake server. Use as a context manager; `url` is what the client is pointed at."""

    def __init__(
        self,
        pages: Iterable[FakePage] = (),
        cloud: bool = True,
        user: str = "bot@example.com",
        token: str = "fake-token",
        user_tz: tzinfo = UTC,
        context: str | None = None,
    ):
        self.cloud = cloud
        self.user = user
        self.token = token
        self.user_tz = user_tz
        self.context = ("/wiki" if cloud else "/confluence") if context is None else context
        self.pages: dict[str, FakePage] = {p.id: p for p in pages}
        self.hidden_spaces: set[str] = set()
        self.people: dict[str, FakePerson] = {}
        self.space_readers: dict[str, FakeSpaceReaders] = {}
        self.requests: list[Recorded] = []
        self.delay = 0.0
        self.lock = threading.RLock()
        self._faults: list[tuple[int, str | None]] = []
        self._fault_rate = 0.0
        self._fault_rng = random.Random(0)
        self._fault_choices: Sequence[tuple[int, str | None]] = ()

    # ------------------------------------------------------------------ lifecycle
    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        """The request handler, bound to this fake."""
        return _handler(self)

    @property
    def url(self) -> str:
        """Base URL of the fake site (what `CONFBOT_CONFLUENCE_URL` is set to)."""
        return f"http://127.0.0.1:{self.port}{self.context}"

    def settings_environ(self) -> dict[str, str]:
        """The `CONFBOT_CONFLUENCE_*` variables that point the connector here."""
        environ = {
            "CONFBOT_CONFLUENCE_URL": self.url,
            "CONFBOT_CONFLUENCE_TOKEN": self.token,
            "CONFBOT_CONFLUENCE_CLOUD": "true" if self.cloud else "false",
        }
        if self.cloud:
            environ["CONFBOT_CONFLUENCE_USER"] = self.user
        return environ

    # ------------------------------------------------------------------ changing the wiki
    def edit(self, page_id: str, body: str | None = None, title: str | None = None) -> FakePage:
        """A new version of a page, modified now."""
        with self.lock:
            page = self.pages[page_id]
            page.body = page.body if body is None else body
            page.title = page.title if title is None else title
            page.version += 1
            page.modified = max(datetime.now(UTC), page.modified + timedelta(seconds=1))
            return page

    def move(self, page_id: str, parent_id: str) -> FakePage:
        """Move a page (and its descendants) under another page: new ancestors, same version
        and `lastmodified` (as in Confluence)."""
        with self.lock:
            page = self.pages[page_id]
            old = [*page.ancestors, page_id]
            new = [*self.pages[parent_id].ancestors, parent_id, page_id]
            for other in self.pages.values():
                if other.ancestors[: len(old)] == old:
                    other.ancestors = new + other.ancestors[len(old) :]
            page.ancestors = new[:-1]
            return page

    def delete(self, page_id: str) -> None:
        """Remove a page (as trashing it does for the REST API)."""
        with self.lock:
            del self.pages[page_id]

    def attach(
        self, page_id: str, title: str, data: bytes, media_type: str = "application/octet-stream"
    ) -> FakeAttachment:
        """Upload a file to a page (a new version when one of that name is there); the page
        itself keeps its version and `lastmodified`, as in Confluence."""
        with self.lock:
            page = self.pages[page_id]
            now = datetime.now(UTC)
            for attachment in page.attachments:
                if attachment.title == title:
                    attachment.data, attachment.media_type = data, media_type
                    attachment.version += 1
                    attachment.modified = max(now, attachment.modified + timedelta(seconds=1))
                    return attachment
            number = sum(len(p.attachments) for p in self.pages.values()) + 1
            attachment = FakeAttachment(
                id=f"att{900000 + number}",
                page_id=page_id,
                space=page.space,
                title=title,
                data=data,
                media_type=media_type,
                created=now,
                modified=now,
            )
            page.attachments.append(attachment)
            return attachment

    def comment(
        self,
        page_id: str,
        body: str,
        author: str = "Ada Example",
        inline: bool = False,
        selection: str = "",
        parent: str = "",
        resolved: bool = False,
    ) -> FakeComment:
        """Add a comment to a page, made now (the page keeps its version)."""
        with self.lock:
            page = self.pages[page_id]
            number = sum(len(p.comments) for p in self.pages.values()) + 1
            now = datetime.now(UTC)
            comment = FakeComment(
                id=str(800000 + number),
                page_id=page_id,
                space=page.space,
                body=body,
                author=author,
                inline=inline,
                selection=selection,
                resolved=resolved,
                parent=parent,
                created=now,
                modified=now,
            )
            page.comments.append(comment)
            return comment

    def detach(self, page_id: str, title: str) -> None:
        """Delete a page's attachment (the page keeps its version)."""
        with self.lock:
            page = self.pages[page_id]
            page.attachments = [a for a in page.attachments if a.title != title]

    def restrict(
        self, page_id: str, users: Sequence[str] = ("someone",), groups: Sequence[str] = ()
    ) -> None:
        """Put read restrictions on a page (inherited by its descendants in Confluence)."""
        with self.lock:
            self.pages[page_id].read_users = list(users)
            self.pages[page_id].read_groups = list(groups)

    def add_person(self, name: str, email: str | None = None, groups: Sequence[str] = ()) -> None:
        """A user (with the groups they belong to)."""
        with self.lock:
            self.people[name] = FakePerson(name, email, set(groups))

    def set_groups(self, name: str, groups: Sequence[str]) -> None:
        """Change the groups of a user."""
        with self.lock:
            self.people[name].groups = set(groups)

    def set_space_readers(
        self, space: str, users: Sequence[str] = (), groups: Sequence[str] = (), anonymous=False
    ) -> None:
        """Who may view a space (replacing anonymous access, the default)."""
        with self.lock:
            self.space_readers[space] = FakeSpaceReaders(list(users), list(groups), anonymous)

    def person_json(self, name: str) -> dict:
        """A user object as the server shows it."""
        person = self.people.get(name) or FakePerson(name)
        if self.cloud:
            out = {
                "type": "known",
                "accountId": f"acc-{name}",
                "accountType": "atlassian",
                "publicName": name,
                "displayName": name,
            }
            if person.email:
                out["email"] = person.email
            return out
        return {"type": "known", "username": name, "userKey": f"key-{name}", "displayName": name}

    def _space_permissions(self, key: str) -> dict | list:
        readers = self.space_readers.get(key, FakeSpaceReaders(anonymous=True))
        if self.cloud:
            operation = {"operation": "read", "targetType": "space"}
            out = []
            for name in readers.users:
                user = self.person_json(name)
                subjects = {"user": {"results": [user], "size": 1}}
                out.append({"operation": operation, "subjects": subjects})
            for name in readers.groups:
                group = {"type": "group", "name": name, "id": f"gid-{name}"}
                out.append({"operation": operation, "subjects": {"group": {"results": [group]}}})
            if readers.anonymous:
                out.append({"operation": operation, "anonymousAccess": True, "subjects": {}})
            for entry in out:
                entry.setdefault("anonymousAccess", False)
                entry["unlicensedAccess"] = False
            # an operation other than read, which grants no view
            out.append(
                {
                    "operation": {"operation": "administer", "targetType": "space"},
                    "anonymousAccess": True,
                    "subjects": {},
                }
            )
            return {"key": key, "name": f"Space {key}", "type": "global", "permissions": out}
        operation = {"targetType": "space", "operationKey": "read"}
        found: list[dict] = [
            {"operation": operation, "subject": {"type": "user", "userKey": f"key-{n}"}}
            for n in readers.users
        ]
        found += [
            {"operation": operation, "subject": {"type": "group", "name": n}}
            for n in readers.groups
        ]
        if readers.anonymous:
            found.append({"operation": operation, "subject": {"type": "anonymous"}})
        found.append(
            {
                "operation": {"targetType": "space", "operationKey": "administer"},
                "subject": {"type": "anonymous"},
            }
        )
        for entry in found:
            entry.update(spaceKey=key, spaceId=int(space_id(key)))
        return found

    def _members(self, name: str, params: dict[str, str]) -> dict:
        start, limit = int(params.get("start", 0)), min(int(params.get("limit", 200)), 200)
        names = sorted(p.name for p in self.people.values() if name in p.groups)
        page = [self.person_json(n) for n in names[start : start + limit]]
        return {"results": page, "start": start, "limit": limit, "size": len(page)}

    # ------------------------------------------------------------------ faults
    def fail_next(self, count: int, status: int = 500, retry_after: str | None = None) -> None:
        """Answer the next `count` API requests with `status` (and a Retry-After header)."""
        with self.lock:
            self._faults.extend([(status, retry_after)] * count)

    def fail_randomly(
        self,
        rate: float,
        seed: int = 0,
        choices: Sequence[tuple[int, str | None]] = ((429, "0"), (500, None)),
    ) -> None:
        """Answer a fraction `rate` of API requests with one of `choices` (status, Retry-After)."""
        with self.lock:
            self._fault_rate = rate
            self._fault_rng = random.Random(seed)
            self._fault_choices = choices

    def _fault(self) -> tuple[int, str | None] | None:
        with self.lock:
            if self._faults:
                return self._faults.pop(0)
            if self._fault_rate and self._fault_rng.random() < self._fault_rate:
                return self._fault_rng.choice(list(self._fault_choices))
        return None

    # ------------------------------------------------------------------ answering
    def searches(self) -> list[Recorded]:
        """The recorded content searches."""
        return [r for r in self.requests if r.path.endswith("/rest/api/content/search")]

    def authorized(self, header: str) -> bool:
        """Whether an Authorization header carries the configured credentials."""
        if header.startswith("Bearer "):
            return not self.cloud and header[7:] == self.token
        if header.startswith("Basic "):
            expected = base64.b64encode(f"{self.user}:{self.token}".encode()).decode()
            return header[6:] == expected
        return False

    def handle(self, path: str, params: dict[str, str]) -> tuple[int, dict]:
        """(status, JSON body) for an authorized GET below the context path."""
        if path.startswith("/api/v2/"):
            return self._v2(path[len("/api/v2") :], params)
        if path == "/rest/api/content/search":
            return self._search(params)
        if path == "/rest/api/search":
            return self._search_hits(params)
        if path == "/rest/api/user/current":
            if self.cloud:
                return 200, {"type": "known", "accountId": "5b10ac8d", "displayName": "Bot"}
            return 200, {"type": "known", "username": "bot", "displayName": "Bot"}
        if m := re.fullmatch(r"/rest/api/space/([^/]+)(/permissions)?", path):
            if not self._readable_space(m.group(1)):
                return 404, {"statusCode": 404, "message": f"No space with key : {m.group(1)}"}
            if m.group(2) and not self.cloud:
                return 200, self._space_permissions(m.group(1))
            if m.group(2):
                return 404, {"message": f"no such resource {path}"}
            if self.cloud and "permissions" in params.get("expand", ""):
                return 200, self._space_permissions(m.group(1))
            return 200, {"key": m.group(1), "name": f"Space {m.group(1)}", "type": "global"}
        if path == "/rest/api/group/member" and self.cloud:
            return 200, self._members(params.get("name", ""), params)
        if (m := re.fullmatch(r"/rest/api/group/([^/]+)/member", path)) and not self.cloud:
            return 200, self._members(m.group(1), params)
        if path == "/rest/api/user" and not self.cloud:
            key = params.get("key", "")
            name = key[len("key-") :] if key.startswith("key-") else ""
            if name not in self.people:
                return 404, {"message": "user not found"}
            return 200, self.person_json(name)
        if m := re.fullmatch(r"/rest/api/content/([\w-]+)/restriction/byOperation/read", path):
            page = self.pages.get(m.group(1))
            if page is None:
                return 404, {"message": "No content found"}
            return 200, {"operation": "read", "restrictions": self._restrictions(page)}
        if m := re.fullmatch(r"/rest/api/content/([\w-]+)/child/comment", path):
            page = self._page(m.group(1))
            if page is None:
                return 404, {"statusCode": 404, "message": "No content found with id"}
            start = int(params.get("start", 0))
            limit = min(int(params.get("limit", 25)), LIMIT)
            every = (
                page.comments
                if params.get("depth") == "all"
                else [c for c in page.comments if not c.parent]
            )
            window = every[start : start + limit]
            return 200, {
                "results": [self.comment_v1(c, {"container"}) for c in window],
                "start": start,
                "limit": limit,
                "size": len(window),
                "_links": {"base": self.url, "context": self.context},
            }
        if m := re.fullmatch(r"/rest/api/content/([\w-]+)/child/attachment", path):
            page = self._page(m.group(1))
            if page is None:
                return 404, {"statusCode": 404, "message": "No content found with id"}
            start = int(params.get("start", 0))
            limit = min(int(params.get("limit", 25)), LIMIT)
            window = page.attachments[start : start + limit]
            return 200, {
                "results": [self.attachment_v1(a, set()) for a in window],
                "start": start,
                "limit": limit,
                "size": len(window),
                "_links": {"base": self.url, "context": self.context},
            }
        if m := re.fullmatch(r"/rest/api/content/([\w-]+)", path):
            page = self._page(m.group(1))
            if page is None:
                return 404, {"statusCode": 404, "message": "No content found with id"}
            expand = set(filter(None, params.get("expand", "").split(",")))
            return 200, {**self.content(page, expand), "_links": self._page_links(page, True)}
        return 404, {"message": f"no such resource {path}"}

    def _readable_space(self, key: str) -> bool:
        return key not in self.hidden_spaces and any(p.space == key for p in self.pages.values())

    def _page(self, page_id: str) -> FakePage | None:
        """A page the user may read."""
        page = self.pages.get(page_id)
        return page if page is not None and page.space not in self.hidden_spaces else None

    def _v2(self, path: str, params: dict[str, str]) -> tuple[int, dict]:
        """REST v2 (Cloud only): pages, their ancestors, spaces."""
        if not self.cloud:
            return 404, {"message": "null for uri: /api/v2" + path}
        if m := re.fullmatch(r"/(pages|blogposts)/([\w-]+)/(footer|inline)-comments", path):
            page = self._page(m.group(2))
            if page is None or page.kind != m.group(1)[:-1]:
                return 404, {"errors": [{"status": 404, "code": "NOT_FOUND"}]}
            inline = m.group(3) == "inline"
            found = [c for c in page.comments if c.inline == inline and not c.parent]
            return 200, self._v2_list(found, params, path)
        if m := re.fullmatch(r"/footer-comments/([\w-]+)/children", path):
            every = [c for p in self.pages.values() for c in p.comments]
            if not any(c.id == m.group(1) for c in every):
                return 404, {"errors": [{"status": 404, "code": "NOT_FOUND"}]}
            return 200, self._v2_list([c for c in every if c.parent == m.group(1)], params, path)
        if m := re.fullmatch(r"/blogposts/([\w-]+)", path):
            page = self._page(m.group(1))
            if page is None or page.kind != "blogpost":
                return 404, {"errors": [{"status": 404, "code": "NOT_FOUND"}]}
            return 200, self.page_v2(page, params)
        if m := re.fullmatch(r"/(pages|blogposts)/([\w-]+)/attachments", path):
            page = self._page(m.group(2))
            if page is None or page.kind != m.group(1)[:-1]:
                return 404, {"errors": [{"status": 404, "code": "NOT_FOUND"}]}
            start = int(base64.urlsafe_b64decode(params["cursor"])) if "cursor" in params else 0
            limit = min(int(params.get("limit", 25)), 250)
            window = page.attachments[start : start + limit]
            links = {"base": self.url}
            if start + limit < len(page.attachments):
                cursor = base64.urlsafe_b64encode(str(start + limit).encode()).decode()
                links["next"] = f"{self.context}/api/v2{path}?" + urlencode(
                    {"cursor": cursor, "limit": limit}
                )
            return 200, {"results": [self.attachment_v2(a) for a in window], "_links": links}
        if m := re.fullmatch(r"/pages/([\w-]+)(/ancestors)?", path):
            page = self._page(m.group(1))
            if page is None or page.kind != "page":
                return 404, {"errors": [{"status": 404, "code": "NOT_FOUND"}]}
            if m.group(2):
                return 200, {"results": [{"id": a, "type": "page"} for a in page.ancestors]}
            return 200, self.page_v2(page, params)
        if m := re.fullmatch(r"/spaces/(\d+)", path):
            keys = {space_id(p.space): p.space for p in self.pages.values()}
            key = keys.get(m.group(1))
            if key is None or not self._readable_space(key):
                return 404, {"errors": [{"status": 404, "code": "NOT_FOUND"}]}
            return 200, {"id": m.group(1), "key": key, "name": f"Space {key}", "type": "global"}
        if path == "/spaces":
            wanted = [k for k in params.get("keys", "").split(",") if self._readable_space(k)]
            return 200, {"results": [{"id": space_id(k), "key": k} for k in wanted]}
        return 404, {"errors": [{"status": 404, "code": "NOT_FOUND"}]}

    def page_v2(self, page: FakePage, params: dict[str, str]) -> dict:
        """The REST v2 JSON of a page (`body-format`, `include-labels` as asked)."""
        out: dict = {
            "id": page.id,
            "status": page.status,
            "title": page.title,
            "spaceId": space_id(page.space),
            "parentId": page.ancestors[-1] if page.ancestors else None,
            "authorId": "5b10ac8d82e05b22cc7d4ef5",
            "createdAt": _iso(page.created),
            "version": {
                "number": page.version,
                "createdAt": _iso(page.modified),
                "message": "",
                "minorEdit": False,
                "authorId": "5b10ac8d82e05b22cc7d4ef5",
            },
            "_links": {**self._page_links(page, True), "editui": "/pages/resumedraft.action"},
        }
        if params.get("body-format") == "storage":
            out["body"] = {"storage": {"value": page.body, "representation": "storage"}}
        if params.get("include-labels") == "true":
            labels = [
                {"id": str(i), "name": n, "prefix": "global"} for i, n in enumerate(page.labels)
            ]
            out["labels"] = {"results": labels, "meta": {"hasMore": False}}
        return out

    def _search(self, params: dict[str, str]) -> tuple[int, dict]:
        cql = params.get("cql", "")
        expand = set(filter(None, params.get("expand", "").split(",")))
        try:
            matches, key, descending = parse_cql(cql, self.user_tz)
        except ValueError as exc:
            return 400, {"statusCode": 400, "message": str(exc)}
        cap = BODY_LIMIT if "body.storage" in expand else LIMIT
        limit = min(int(params.get("limit", 25)), cap)
        if self.cloud and params.get("cursor"):
            start = int(base64.urlsafe_b64decode(params["cursor"]).decode())
        elif self.cloud and int(params.get("start", 0)):
            return 400, {"statusCode": 400, "message": "use the cursor in _links.next"}
        else:
            start = int(params.get("start", 0))
        readable = [p for p in self.pages.values() if p.space not in self.hidden_spaces]
        readable += [a for p in readable for a in (*p.attachments, *p.comments)]
        found = sorted((p for p in readable if matches(p)), key=key, reverse=descending)
        window = found[start : start + limit]
        links = {
            "base": self.url,
            "context": self.context,
            "self": self.url + "/rest/api/content/search",
        }
        if self.cloud and start + limit < len(found):
            cursor = base64.urlsafe_b64encode(str(start + limit).encode()).decode()
            query = urlencode(
                {
                    "next": "true",
                    "cursor": cursor,
                    "expand": params.get("expand", ""),
                    "limit": limit,
                    "start": start + limit,
                    "cql": cql,
                },
                quote_via=quote,
            )
            links["next"] = f"/rest/api/content/search?{query}"
        return 200, {
            "results": [
                self.attachment_v1(p, expand)
                if p.kind == "attachment"
                else self.comment_v1(p, expand)
                if p.kind == "comment"
                else {**self.content(p, expand), "_links": self._page_links(p, False)}
                for p in window
            ],
            "start": start,
            "limit": limit,
            "size": len(window),
            "totalSize": len(found),
            "cqlQuery": cql,
            "_links": links,
        }

    def _search_hits(self, params: dict[str, str]) -> tuple[int, dict]:
        """`GET rest/api/search`: the same CQL, each result in a search hit's envelope
        (`content`, `title`, `entityType`), with `totalSize` as both servers send it."""
        status, data = self._search({**params, "expand": ""})
        if status == 200:
            data["results"] = [
                {"content": item, "title": item.get("title", ""), "entityType": "content"}
                for item in data["results"]
            ]
        return status, data

    def content(self, page: FakePage, expand: set[str]) -> dict:
        """The JSON of a page with the asked expansions."""
        out: dict = {"id": page.id, "type": page.kind, "status": page.status, "title": page.title}
        if "space" in expand:
            out["space"] = {"key": page.space, "name": f"Space {page.space}", "type": "global"}
        if "version" in expand:
            if self.cloud:
                by = {
                    "type": "known",
                    "accountId": "5b10ac8d82e05b22cc7d4ef5",
                    "displayName": page.author,
                    "publicName": page.author,
                }
            else:
                by = {
                    "type": "known",
                    "username": page.author.split()[0].lower(),
                    "displayName": page.author,
                }
            out["version"] = {
                "number": page.version,
                "when": _iso(page.modified),
                "by": by,
                "minorEdit": False,
            }
        if "ancestors" in expand:
            out["ancestors"] = [
                {
                    "id": a,
                    "type": "page",
                    "status": "current",
                    "title": self.pages[a].title if a in self.pages else "",
                }
                for a in page.ancestors
            ]
        if "metadata.labels" in expand:
            labels = [
                {"prefix": "global", "name": n, "id": str(i)} for i, n in enumerate(page.labels)
            ]
            out["metadata"] = {"labels": {"results": labels, "size": len(labels)}}
        if "body.storage" in expand:
            out["body"] = {"storage": {"value": page.body, "representation": "storage"}}
        if "restrictions.read.restrictions.user" in expand:
            out["restrictions"] = {
                "read": {"operation": "read", "restrictions": self._restrictions(page)}
            }
        return out

    def _v2_list(self, comments: list[FakeComment], params: dict[str, str], path: str) -> dict:
        """A v2 list of comments, `limit` at a time behind a `_links.next` cursor."""
        start = int(base64.urlsafe_b64decode(params["cursor"])) if "cursor" in params else 0
        limit = min(int(params.get("limit", 25)), 250)
        window = comments[start : start + limit]
        links = {"base": self.url}
        if start + limit < len(comments):
            cursor = base64.urlsafe_b64encode(str(start + limit).encode()).decode()
            query = urlencode({"cursor": cursor, "limit": limit, "body-format": "storage"})
            links["next"] = f"{self.context}/api/v2{path}?{query}"
        return {"results": [self.comment_v2(c) for c in window], "_links": links}

    def comment_v2(self, comment: FakeComment) -> dict:
        """The REST v2 JSON of a footer or inline comment (storage body)."""
        out: dict = {
            "id": comment.id,
            "status": "current",
            "title": "Re: comment",
            "version": {
                "number": 1,
                "createdAt": _iso(comment.modified),
                "authorId": comment.author.replace(" ", "-").lower(),
            },
            "body": {"storage": {"value": comment.body, "representation": "storage"}},
        }
        page = self.pages[comment.page_id]
        out["blogPostId" if page.kind == "blogpost" else "pageId"] = comment.page_id
        if comment.parent:
            out["parentCommentId"] = comment.parent
        if comment.inline:
            out["resolutionStatus"] = "resolved" if comment.resolved else "open"
            out["properties"] = {
                "inlineMarkerRef": f"marker-{comment.id}",
                "inlineOriginalSelection": comment.selection,
            }
        return out

    def comment_v1(self, comment: FakeComment, expand: set[str]) -> dict:
        """The REST v1 content JSON of a comment (body, version, extensions, ancestors
        always; `container` as asked)."""
        extensions: dict = {"location": "inline" if comment.inline else "footer"}
        if comment.inline:
            extensions["inlineProperties"] = {
                "markerRef": f"marker-{comment.id}",
                "originalSelection": comment.selection,
            }
            extensions["resolution"] = {"status": "resolved" if comment.resolved else "open"}
        out: dict = {
            "id": comment.id,
            "type": "comment",
            "status": "current",
            "title": "Re: comment",
            "body": {"storage": {"value": comment.body, "representation": "storage"}},
            "version": {
                "number": 1,
                "when": _iso(comment.modified),
                "by": {"type": "known", "displayName": comment.author, "username": "ada"},
            },
            "extensions": extensions,
            "ancestors": [{"id": comment.parent, "type": "comment"}] if comment.parent else [],
        }
        if "container" in expand:
            page = self.pages[comment.page_id]
            out["container"] = {"id": page.id, "type": page.kind, "title": page.title}
        return out

    def download_link(self, attachment: FakeAttachment) -> str:
        """The `download` link of an attachment, relative to the base URL."""
        stamp = int(attachment.modified.timestamp() * 1000)
        return (
            f"/download/attachments/{attachment.page_id}/{quote(attachment.title)}"
            f"?version={attachment.version}&modificationDate={stamp}&api=v2"
        )

    def attachment_v1(self, attachment: FakeAttachment, expand: set[str]) -> dict:
        """The REST v1 content JSON of an attachment (`version` always, `container` as
        asked)."""
        out: dict = {
            "id": attachment.id,
            "type": "attachment",
            "status": "current",
            "title": attachment.title,
            "version": {
                "number": attachment.version,
                "when": _iso(attachment.modified),
                "by": {"type": "known", "displayName": "Ada Example", "username": "ada"},
                "minorEdit": False,
            },
            "metadata": {"mediaType": attachment.media_type, "comment": ""},
            "extensions": {
                "mediaType": attachment.media_type,
                "fileSize": len(attachment.data),
                "comment": "",
            },
            "_links": {
                "webui": f"/pages/viewpageattachments.action?pageId={attachment.page_id}",
                "download": self.download_link(attachment),
                "self": f"{self.url}/rest/api/content/{attachment.id}",
            },
        }
        if "container" in expand:
            page = self.pages[attachment.page_id]
            out["container"] = {"id": page.id, "type": "page", "title": page.title}
        return out

    def attachment_v2(self, attachment: FakeAttachment) -> dict:
        """The REST v2 JSON of an attachment."""
        download = self.download_link(attachment)
        webui = f"/pages/viewpageattachments.action?pageId={attachment.page_id}"
        return {
            "id": attachment.id,
            "status": "current",
            "title": attachment.title,
            "createdAt": _iso(attachment.created),
            "pageId": attachment.page_id,
            "mediaType": attachment.media_type,
            "mediaTypeDescription": "",
            "comment": "",
            "fileId": f"file-{attachment.id}",
            "fileSize": len(attachment.data),
            "webuiLink": webui,
            "downloadLink": download,
            "version": {
                "number": attachment.version,
                "createdAt": _iso(attachment.modified),
                "message": "",
                "minorEdit": False,
                "authorId": "5b10ac8d82e05b22cc7d4ef5",
            },
            "_links": {"webui": webui, "download": download},
        }

    def file(self, path: str) -> FakeAttachment | None:
        """The attachment a `download/attachments/{page id}/{name}` path names."""
        m = re.fullmatch(r"/download/attachments/([\w-]+)/([^/]+)", path)
        page = self._page(m.group(1)) if m else None
        if page is None:
            return None
        name = unquote(m.group(2))
        return next((a for a in page.attachments if a.title == name), None)

    def _restrictions(self, page: FakePage) -> dict:
        users = [self.person_json(u) for u in page.read_users]
        groups = [{"type": "group", "name": g} for g in page.read_groups]
        return {
            "user": {"results": users, "size": len(users), "start": 0, "limit": 200},
            "group": {"results": groups, "size": len(groups), "start": 0, "limit": 200},
        }

    def _page_links(self, page: FakePage, with_base: bool) -> dict:
        if self.cloud:
            webui = f"/spaces/{page.space}/pages/{page.id}/{quote(page.title.replace(' ', '+'))}"
        else:
            webui = f"/pages/viewpage.action?pageId={page.id}"
        links = {"webui": webui, "self": f"{self.url}/rest/api/content/{page.id}"}
        if with_base:
            links.update(base=self.url, context=self.context)
        return links


def _handler(fake: FakeConfluence) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # keep test output quiet
            pass

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            parts = urlsplit(self.path)
            params = dict(parse_qsl(parts.query, keep_blank_values=True))
            status, body, headers = self._answer(parts.path, params)
            with fake.lock:
                fake.requests.append(
                    Recorded("GET", parts.path, params, dict(self.headers.items()), status)
                )
            binary = isinstance(body, bytes)
            payload = body if binary else json.dumps(body).encode()
            self.send_response(status)
            self.send_header(
                "Content-Type", "application/octet-stream" if binary else "application/json"
            )
            self.send_header("Content-Length", str(len(payload)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def _answer(self, path: str, params: dict[str, str]) -> tuple[int, dict | bytes, dict]:
            if fake.delay:
                time.sleep(fake.delay)
            api = (fake.context + "/rest/api/", fake.context + "/api/v2/")
            files = fake.context + "/download/attachments/"
            if path.startswith(files):
                if not fake.authorized(self.headers.get("Authorization", "")):
                    return 401, {"message": "unauthorized"}, {}
                with fake.lock:
                    attachment = fake.file(path[len(fake.context) :])
                if attachment is None:
                    return 404, {"message": "no such file"}, {}
                return 200, attachment.data, {}
            if not path.startswith(api):
                return 404, {"message": "not found"}, {}
            if not fake.authorized(self.headers.get("Authorization", "")):
                return 401, {"message": "unauthorized"}, {}
            fault = fake._fault()
            if fault is not None:
                status, retry_after = fault
                headers = {"Retry-After": retry_after} if retry_after is not None else {}
                return status, {"message": "injected fault"}, headers
            with fake.lock:
                status, body = fake.handle(path[len(fake.context) :], params)
            return status, body, {}

    return Handler
